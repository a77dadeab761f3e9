/// App Store Server API request parameters as typed queries, and Apple's error responses. A server maps a request's
/// query string to these (`parse`), and reports a parameter Apple would refuse with Apple's `errorCode` and
/// `errorMessage` (reference §3.3; library `APIError`; Apple's error object pages, e.g. `InvalidRequestRevisionError`).

/// An App Store Server API error: the HTTP status and the JSON body `{"errorCode": ..., "errorMessage": ...}`.
public struct ServerAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    public var httpStatus: Int
    public var errorCode: Int64
    public var errorMessage: String

    public init(httpStatus: Int, errorCode: Int64, errorMessage: String) {
        self.httpStatus = httpStatus
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// The response body, as Apple sends it.
    public var body: JSONValue {
        .object(["errorCode": .integer(errorCode), "errorMessage": .string(errorMessage)])
    }

    public var description: String { "\(httpStatus) \(errorCode): \(errorMessage)" }

    // Codes are Apple's (library `APIError`). Messages quoted from Apple's error pages or library test resources
    // where they are published (4000005, 4000006, 4000012, 4000021, 4040010); the others follow Apple's
    // "Invalid request. The … parameter is invalid." wording [assumed].

    /// `RateLimitExceededError` (HTTP 429), Apple's "try again later": what `simctl serve` answers a request that
    /// changes the store while another change is still delivering (docs/server.md, "One change at a time")
    /// [assumed: Apple has no such state; this is the code its clients already retry on]. `reason` says which
    /// request is running.
    public static func busy(_ reason: String) -> ServerAPIError {
        ServerAPIError(httpStatus: 429, errorCode: 4_290_000, errorMessage: "Rate limit exceeded. " + reason)
    }

    /// `InvalidRequestRevisionError`.
    public static let invalidRequestRevision = bad(4_000_005, "Invalid request revision.")
    /// `InvalidTransactionIdError`.
    public static let invalidTransactionId = bad(4_000_006, "Invalid transaction id.")
    /// `StartDateAfterEndDateError`.
    public static let startDateAfterEndDate = bad(
        4_000_013, "Invalid request. The end date precedes the start date or the dates are the same.")
    /// `InvalidStartDateError`.
    public static let invalidStartDate = bad(4_000_015, "Invalid request. The start date is invalid.")
    /// `InvalidEndDateError`.
    public static let invalidEndDate = bad(4_000_016, "Invalid request. The end date is invalid.")
    /// `InvalidSortError`.
    public static let invalidSort = bad(4_000_021, "Invalid request. The sort parameter is invalid.")
    /// `InvalidProductTypeError`.
    public static let invalidProductType = bad(4_000_022, "Invalid request. The product type parameter is invalid.")
    /// `InvalidProductIdError`.
    public static let invalidProductId = bad(4_000_023, "Invalid request. The product id parameter is invalid.")
    /// `InvalidSubscriptionGroupIdentifierError`.
    public static let invalidSubscriptionGroupIdentifier = bad(
        4_000_024, "Invalid request. The subscription group identifier parameter is invalid.")
    /// `InvalidInAppOwnershipTypeError`.
    public static let invalidInAppOwnershipType = bad(
        4_000_026, "Invalid request. The in-app ownership type parameter is invalid.")
    /// `InvalidRevokedError`.
    public static let invalidRevoked = bad(4_000_030, "Invalid request. The revoked parameter is invalid.")
    /// `InvalidStatusError`.
    public static let invalidStatus = bad(4_000_031, "Invalid request. The status parameter is invalid.")
    /// `TransactionIdNotFoundError` (HTTP 404).
    public static let transactionIdNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_010, errorMessage: "Transaction id not found.")
    /// `AppTransactionIdNotSupportedError`: "the endpoint doesn't support an app transaction ID" (rule
    /// app-transaction-id-not-supported); the message is the one a developer reported Get Transaction Info answering
    /// (Apple Developer Forums thread 787397).
    public static let appTransactionIdNotSupported = bad(
        4_000_048, "Invalid request. App transactions aren't supported by this endpoint.")

    // Get Notification History, Request a Test Notification and Get Test Notification Status (reference §6.3,
    // §6.4, Appendix D; library `APIError`). Messages [assumed], in Apple's wording style.

    /// `GeneralBadRequestError`: a body that is not the request object Apple defines.
    public static let generalBadRequest = bad(4_000_000, "Bad request.")
    /// `StartDateTooFarInPastError`: Get Notification History's `startDate` is more than 180 days (sandbox: 30)
    /// before now.
    public static let startDateTooFarInPast = bad(
        4_000_012, "Invalid request. The start date is earlier than the allowed start date.")
    /// `InvalidPaginationTokenError`.
    public static let invalidPaginationToken = bad(4_000_014, "Invalid request. The pagination token is invalid.")
    /// `InvalidNotificationTypeError`: an unknown `notificationType` or `notificationSubtype`, or a subtype
    /// without its type.
    public static let invalidNotificationType = bad(
        4_000_018, "Invalid request. The notification type or subtype is invalid.")
    /// `MultipleFiltersSuppliedError`: `transactionId` and `notificationType` together.
    public static let multipleFiltersSupplied = bad(
        4_000_019, "Invalid request. Provide either a transaction id or a notification type, but not both.")
    /// `InvalidTestNotificationTokenError`.
    public static let invalidTestNotificationToken = bad(
        4_000_020, "Invalid request. The test notification token is invalid.")
    /// `ServerNotificationURLNotFoundError` (HTTP 404): Request a Test Notification with no notification URL.
    public static let serverNotificationURLNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_007, errorMessage: "No App Store Server Notifications URL is configured.")
    /// `TestNotificationNotFoundError` (HTTP 404).
    public static let testNotificationNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_008,
        errorMessage: "The test notification token is expired or the test notification status is not available.")

    static func bad(_ code: Int64, _ message: String) -> ServerAPIError {
        ServerAPIError(httpStatus: 400, errorCode: code, errorMessage: message)
    }
}

/// The `sort` parameter of Get Transaction History (library `Order`): by last modification, `ASCENDING` default.
public enum HistoryOrder: String, Hashable, Sendable, CaseIterable {
    case ascending = "ASCENDING"
    case descending = "DESCENDING"
}

/// The `productType` parameter of Get Transaction History (library `TransactionHistoryRequest.ProductType`).
public enum HistoryProductType: String, Hashable, Sendable, CaseIterable {
    case autoRenewable = "AUTO_RENEWABLE"
    case nonRenewable = "NON_RENEWABLE"
    case consumable = "CONSUMABLE"
    case nonConsumable = "NON_CONSUMABLE"

    /// The product type it selects.
    public var productType: ProductType {
        switch self {
        case .autoRenewable: return .autoRenewable
        case .nonRenewable: return .nonRenewing
        case .consumable: return .consumable
        case .nonConsumable: return .nonConsumable
        }
    }
}

/// Get Transaction History (v2) query parameters (Apple's `TransactionHistoryRequest` plus `revision`).
/// Repeated parameters (`productId`, `productType`, `subscriptionGroupIdentifier`) match any of their values; an
/// empty list does not filter.
public struct TransactionHistoryQuery: Hashable, Sendable {
    /// The `revision` of the previous response; `nil` for the first call.
    public var revision: String?
    /// Only transactions with `purchaseDate` at or after it.
    public var startDate: Instant?
    /// Only transactions with `purchaseDate` before it.
    public var endDate: Instant?
    public var productIds: [String]
    public var productTypes: [HistoryProductType]
    public var sort: HistoryOrder
    public var subscriptionGroupIdentifiers: [String]
    public var inAppOwnershipType: Ownership?
    /// `true`: only refunded or revoked transactions; `false`: only the others.
    public var revoked: Bool?

    public init(
        revision: String? = nil, startDate: Instant? = nil, endDate: Instant? = nil, productIds: [String] = [],
        productTypes: [HistoryProductType] = [], sort: HistoryOrder = .ascending,
        subscriptionGroupIdentifiers: [String] = [], inAppOwnershipType: Ownership? = nil, revoked: Bool? = nil
    ) {
        self.revision = revision
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The query from a request's query parameters (name, value; repeated names allowed, in order). Parameters Apple
    /// does not define are ignored [assumed].
    public static func parse(_ parameters: [(name: String, value: String)]) throws(ServerAPIError)
        -> TransactionHistoryQuery
    {
        var query = TransactionHistoryQuery()
        for (name, value) in parameters {
            switch name {
            case "revision":
                guard HistoryRevision(text: value) != nil else { throw .invalidRequestRevision }
                query.revision = value
            case "startDate":
                guard let ms = milliseconds(value) else { throw .invalidStartDate }
                query.startDate = Instant(millisecondsSince1970: ms)
            case "endDate":
                guard let ms = milliseconds(value) else { throw .invalidEndDate }
                query.endDate = Instant(millisecondsSince1970: ms)
            case "productId":
                guard !value.isEmpty else { throw .invalidProductId }
                query.productIds.append(value)
            case "productType":
                guard let type = HistoryProductType(rawValue: value) else { throw .invalidProductType }
                query.productTypes.append(type)
            case "sort":
                guard let order = HistoryOrder(rawValue: value) else { throw .invalidSort }
                query.sort = order
            case "subscriptionGroupIdentifier":
                guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    throw .invalidSubscriptionGroupIdentifier
                }
                query.subscriptionGroupIdentifiers.append(value)
            case "inAppOwnershipType":
                switch value {
                case "PURCHASED": query.inAppOwnershipType = .purchased
                case "FAMILY_SHARED": query.inAppOwnershipType = .familyShared
                default: throw .invalidInAppOwnershipType
                }
            case "revoked":
                // Apple's Python client writes the Boolean as Python prints it (`True`, `False`): case is ignored.
                switch value.lowercased() {
                case "true": query.revoked = true
                case "false": query.revoked = false
                default: throw .invalidRevoked
                }
            default:
                continue
            }
        }
        try query.validate()
        return query
    }

    /// Checks what a typed query can still get wrong: the date range and the revision's form and direction.
    public func validate() throws(ServerAPIError) {
        if let startDate, let endDate, endDate <= startDate { throw .startDateAfterEndDate }
        if let revision {
            guard let parsed = HistoryRevision(text: revision), parsed.order == sort else {
                throw .invalidRequestRevision
            }
        }
    }

    static func milliseconds(_ text: String) -> Int64? {
        guard !text.isEmpty, text.count <= 15, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }
}

/// Get All Subscription Statuses query: the repeatable `status` parameter (1–5).
public struct SubscriptionStatusQuery: Hashable, Sendable {
    /// Statuses to include; empty includes every subscription.
    public var statuses: [SubscriptionPhase]

    public init(statuses: [SubscriptionPhase] = []) {
        self.statuses = statuses
    }

    public static func parse(_ parameters: [(name: String, value: String)]) throws(ServerAPIError)
        -> SubscriptionStatusQuery
    {
        var query = SubscriptionStatusQuery()
        for (name, value) in parameters where name == "status" {
            guard let code = Int(value), let phase = SubscriptionPhase.allCases.first(where: { $0.statusCode == code })
            else { throw .invalidStatus }
            query.statuses.append(phase)
        }
        return query
    }
}

/// Get Refund History (v2) query: the `revision` of the previous response.
public struct RefundHistoryQuery: Hashable, Sendable {
    public var revision: String?

    public init(revision: String? = nil) {
        self.revision = revision
    }

    public static func parse(_ parameters: [(name: String, value: String)]) throws(ServerAPIError)
        -> RefundHistoryQuery
    {
        var query = RefundHistoryQuery()
        for (name, value) in parameters where name == "revision" {
            guard HistoryRevision(text: value).map({ $0.order == .ascending }) == true else {
                throw .invalidRequestRevision
            }
            query.revision = value
        }
        return query
    }
}

/// Rule history-revision-is-a-modification-token: the `revision` a history response returns marks the last
/// transaction the caller has seen in the store's modification order (the instant of its last change, then the
/// order of changes), not an offset. Called again with it, the same query returns every matching transaction
/// changed after that one, so a transaction refunded or revoked after a sync comes back. Apple: "a token you provide
/// to get the next set of up to 20 transactions", history "sorted by modification date" (library
/// `get_transaction_history`, reference §3.3). The text is `A` (ascending) or `D` (descending), the instant in
/// milliseconds, `.`, and the change's sequence number, e.g. `A1767603600000.3` [assumed: Apple's tokens are
/// opaque]. A `D` token continues a descending listing towards older changes.
public struct HistoryRevision: Hashable, Sendable, Comparable {
    public var order: HistoryOrder
    public var instant: Int64
    public var sequence: Int

    public init(order: HistoryOrder, instant: Int64, sequence: Int) {
        self.order = order
        self.instant = instant
        self.sequence = sequence
    }

    public init?(text: String) {
        guard let first = text.first, first == "A" || first == "D" else { return nil }
        let parts = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 19 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let instant = Int64(parts[0]), let sequence = Int(parts[1]), instant >= 0, sequence >= 0
        else { return nil }
        self.init(order: first == "A" ? .ascending : .descending, instant: instant, sequence: sequence)
    }

    public var text: String { "\(order == .ascending ? "A" : "D")\(instant).\(sequence)" }

    public static func < (lhs: HistoryRevision, rhs: HistoryRevision) -> Bool {
        (lhs.instant, lhs.sequence) < (rhs.instant, rhs.sequence)
    }
}

/// Get Notification History's request body (Apple's `NotificationHistoryRequest`): `startDate` and `endDate` in
/// milliseconds (both required), `notificationType` and `notificationSubtype`, `transactionId` (any transaction of
/// one customer), `onlyFailures`. Members Apple does not define are ignored [assumed].
public struct NotificationHistoryQuery: Hashable, Sendable {
    public var startDate: Instant
    public var endDate: Instant
    public var notificationType: NotificationType?
    public var notificationSubtype: NotificationSubtype?
    public var transactionId: String?
    /// Only notifications not delivered yet: out of attempts, or still being retried.
    public var onlyFailures: Bool

    public init(
        startDate: Instant, endDate: Instant, notificationType: NotificationType? = nil,
        notificationSubtype: NotificationSubtype? = nil, transactionId: String? = nil, onlyFailures: Bool = false
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }

    /// Apple: the history keeps 180 days in production and 30 in the sandbox (reference Appendix D).
    public static func retentionDays(_ environment: SimulatedEnvironment) -> Int64 {
        environment == .production ? 180 : 30
    }

    /// The query from a request body, checked against the store's clock `now` (rule
    /// notification-history-window: `startDate` not before `now` minus the retention, `endDate` after
    /// `startDate`; an `endDate` after `now` is read as `now`).
    public static func parse(_ body: JSONValue, now: Instant, environment: SimulatedEnvironment)
        throws(ServerAPIError) -> NotificationHistoryQuery
    {
        guard case .object(let members) = body else { throw .generalBadRequest }
        guard let start = members["startDate"]?.integerValue, start >= 0, start <= Instant.latest.millisecondsSince1970
        else { throw .invalidStartDate }
        guard let end = members["endDate"]?.integerValue, end >= 0, end <= Instant.latest.millisecondsSince1970
        else { throw .invalidEndDate }
        var query = NotificationHistoryQuery(
            startDate: Instant(millisecondsSince1970: start), endDate: Instant(millisecondsSince1970: end))
        if let value = members["notificationType"], value != .null {
            guard let text = value.stringValue, let type = NotificationType(rawValue: text) else {
                throw .invalidNotificationType
            }
            query.notificationType = type
        }
        if let value = members["notificationSubtype"], value != .null {
            guard let text = value.stringValue, let subtype = NotificationSubtype(rawValue: text),
                query.notificationType != nil
            else { throw .invalidNotificationType }
            query.notificationSubtype = subtype
        }
        if let value = members["transactionId"], value != .null {
            guard let text = value.stringValue, !text.isEmpty, text.count <= 40,
                text.allSatisfy({ $0.isASCII && $0.isNumber })
            else { throw .invalidTransactionId }
            query.transactionId = text
        }
        if query.transactionId != nil && query.notificationType != nil { throw .multipleFiltersSupplied }
        if let value = members["onlyFailures"], value != .null {
            guard case .bool(let flag) = value else { throw .generalBadRequest }
            query.onlyFailures = flag
        }
        if query.endDate <= query.startDate { throw .startDateAfterEndDate }
        let earliest = now.millisecondsSince1970 - retentionDays(environment) * 86_400_000
        if start < earliest { throw .startDateTooFarInPast }
        return query
    }
}
