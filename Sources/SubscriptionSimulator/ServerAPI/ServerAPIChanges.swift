/// The App Store Server API endpoints beyond the subscription reads (issue 25): the ones that change the store
/// (Extend a Subscription Renewal Date, Extend Subscription Renewal Dates for All Active Subscribers, Send
/// Consumption Information v1 and v2, Set App Account Token, Finish Transaction) and the reads that go with them
/// (Get Status of Subscription Renewal Date Extensions, Look Up Order ID, Get App Transaction Info, Get Transaction
/// History V1). Paths, bodies and models are Apple's (library `api_client.py` and models `ExtendRenewalDateRequest`,
/// `MassExtendRenewalDateRequest`, `ConsumptionRequestV1`, `ConsumptionRequest`, `UpdateAppAccountTokenRequest`,
/// `OrderLookupResponse`, `AppTransactionInfoResponse`, `MassExtendRenewalDateStatusResponse`); the error codes
/// are the library's `APIError`. Each change checks the path's id, then the body, then applies one store operation;
/// a refused request changes nothing. `simctl serve` runs the changes under its lock and delivers the
/// notifications they cause (`SimctlServer/AppleChangeEndpoints.swift`).
extension ServerAPIError {
    // Messages follow Apple's "Invalid request. The … is invalid." wording [assumed], except 4000183 (library test
    // resource `invalidAppAccountTokenUUIDError.json`).

    /// `InvalidOriginalTransactionIdError`.
    public static let invalidOriginalTransactionId = bad(4_000_008, "Invalid original transaction id.")
    /// `InvalidExtendByDaysError`: `extendByDays` is 1 to 90.
    public static let invalidExtendByDays = bad(4_000_009, "Invalid extend by days value.")
    /// `InvalidExtendReasonCodeError`: `extendReasonCode` is 0 to 3.
    public static let invalidExtendReasonCode = bad(4_000_010, "Invalid extend reason code.")
    /// `InvalidRequestIdentifierError`: `requestIdentifier` is 1 to 128 characters.
    public static let invalidRequestIdentifier = bad(4_000_011, "Invalid request identifier.")
    /// `InvalidEmptyStorefrontCountryCodeListError`.
    public static let invalidEmptyStorefrontCountryCodeList = bad(
        4_000_027, "Invalid request. The storefront country code list is empty.")
    /// `InvalidStorefrontCountryCodeError`: not an ISO 3166-1 alpha-3 code.
    public static let invalidStorefrontCountryCode = bad(
        4_000_028, "Invalid request. A storefront country code is invalid.")
    /// `InvalidAccountTenureError`.
    public static let invalidAccountTenure = bad(4_000_032, "Invalid request. The account tenure field is invalid.")
    /// `InvalidAppAccountTokenError` (the `appAccountToken` of `ConsumptionRequestV1`).
    public static let invalidAppAccountToken = bad(
        4_000_033, "Invalid request. The app account token field is invalid.")
    /// `InvalidConsumptionStatusError`.
    public static let invalidConsumptionStatus = bad(
        4_000_034, "Invalid request. The consumption status field is invalid.")
    /// `InvalidCustomerConsentedError`: `customerConsented` must be `true`.
    public static let invalidCustomerConsented = bad(
        4_000_035, "Invalid request. The customer consented field is invalid.")
    /// `InvalidDeliveryStatusError`.
    public static let invalidDeliveryStatus = bad(4_000_036, "Invalid request. The delivery status field is invalid.")
    /// `InvalidLifetimeDollarsPurchasedError`.
    public static let invalidLifetimeDollarsPurchased = bad(
        4_000_037, "Invalid request. The lifetime dollars purchased field is invalid.")
    /// `InvalidLifetimeDollarsRefundedError`.
    public static let invalidLifetimeDollarsRefunded = bad(
        4_000_038, "Invalid request. The lifetime dollars refunded field is invalid.")
    /// `InvalidPlatformError`.
    public static let invalidPlatform = bad(4_000_039, "Invalid request. The platform field is invalid.")
    /// `InvalidPlayTimeError`.
    public static let invalidPlayTime = bad(4_000_040, "Invalid request. The play time field is invalid.")
    /// `InvalidSampleContentProvidedError`.
    public static let invalidSampleContentProvided = bad(
        4_000_041, "Invalid request. The sample content provided field is invalid.")
    /// `InvalidUserStatusError`.
    public static let invalidUserStatus = bad(4_000_042, "Invalid request. The user status field is invalid.")
    /// `InvalidTransactionTypeNotSupportedError`: consumption information for a product type Apple sends no
    /// `CONSUMPTION_REQUEST` for (non-consumables, non-renewing subscriptions).
    public static let invalidTransactionTypeNotSupported = bad(
        4_000_047, "Invalid request. The transaction type is not supported by this endpoint.")
    /// `InvalidAppAccountTokenUUIDError`.
    public static let invalidAppAccountTokenUUID = bad(
        4_000_183, "Invalid request. The app account token field must be a valid UUID.")
    /// `FamilyTransactionNotSupportedError`.
    public static let familyTransactionNotSupported = bad(
        4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
    /// `TransactionIdIsNotOriginalTransactionIdError`.
    public static let transactionIdIsNotOriginalTransactionId = bad(
        4_000_187, "Invalid request. The transaction id is not an original transaction id.")
    /// `SubscriptionExtensionIneligibleError` (HTTP 403).
    public static let subscriptionExtensionIneligible = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_004, errorMessage: "Forbidden - subscription state ineligible for extension.")
    /// `SubscriptionMaxExtensionError` (HTTP 403).
    public static let subscriptionMaxExtension = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_005,
        errorMessage: "Forbidden - subscription has reached maximum extension count.")
    /// `FamilySharedSubscriptionExtensionIneligibleError` (HTTP 403).
    public static let familySharedSubscriptionExtensionIneligible = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_007,
        errorMessage:
            "Subscriptions that users obtain through Family Sharing can't get a renewal date extension directly.")
    /// `OriginalTransactionIdNotFoundError` (HTTP 404).
    public static let originalTransactionIdNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_005, errorMessage: "Original transaction id not found.")
    /// `StatusRequestNotFoundError` (HTTP 404): no mass extension request with that identifier and product.
    public static let statusRequestNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_009,
        errorMessage:
            "The server didn't find a subscription-renewal-date extension request for this identifier and product.")
    /// `AppTransactionDoesNotExistError` (HTTP 404).
    public static let appTransactionDoesNotExist = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_019, errorMessage: "No app transaction exists for the customer.")

    /// A request the store's rules refuse where Apple defines no code (`GeneralBadRequestError`, 4000000), with the
    /// rule's text as the message [assumed].
    public static func refused(_ error: StoreError) -> ServerAPIError {
        bad(4_000_000, "Bad request. \(error)")
    }
}

/// The members of a JSON request body, with Apple's error for each wrong one. A member that is absent or `null` is
/// not given.
struct RequestBody {
    /// The body's members, as received.
    var members: [String: JSONValue]

    /// The body as a JSON object; anything else is `GeneralBadRequestError`.
    init(_ body: [UInt8]) throws(ServerAPIError) {
        let text = String(decoding: body, as: UTF8.self)
        guard let value = try? CanonicalJSON.parse(text), case .object(let members) = value else {
            throw .generalBadRequest
        }
        self.members = members
    }

    /// The member `key`, unless it is absent or `null`.
    func given(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    /// The integer member `key` within `range`; `error` when it is missing (and `required`), not an integer or
    /// out of range.
    func int(_ key: String, in range: ClosedRange<Int64>, required: Bool, _ error: ServerAPIError)
        throws(ServerAPIError) -> Int64?
    {
        guard let value = given(key) else {
            if required { throw error }
            return nil
        }
        guard let number = value.integerValue, range.contains(number) else { throw error }
        return number
    }

    /// The Boolean member `key`; `error` when it is missing (and `required`) or not a Boolean.
    func bool(_ key: String, required: Bool, _ error: ServerAPIError) throws(ServerAPIError) -> Bool? {
        guard let value = given(key) else {
            if required { throw error }
            return nil
        }
        guard case .bool(let flag) = value else { throw error }
        return flag
    }

    /// The string member `key` that `valid` accepts; `error` when it is missing (and `required`), not a string or
    /// refused.
    func string(_ key: String, required: Bool, _ error: ServerAPIError, valid: (String) -> Bool)
        throws(ServerAPIError) -> String?
    {
        guard let value = given(key) else {
            if required { throw error }
            return nil
        }
        guard let text = value.stringValue, valid(text) else { throw error }
        return text
    }

    /// Apple's `requestIdentifier`: a string of 1 to 128 characters [assumed: Apple gives no format; its examples
    /// are UUIDs].
    func requestIdentifier() throws(ServerAPIError) -> String {
        try string("requestIdentifier", required: true, .invalidRequestIdentifier) { !$0.isEmpty && $0.count <= 128 }!
    }

    /// `extendByDays` (1 to 90) and `extendReasonCode` (0 to 3), both required.
    func extensionRequest() throws(ServerAPIError) -> (days: Int, reason: ExtendReasonCode) {
        let days = try int("extendByDays", in: 1...90, required: true, .invalidExtendByDays)!
        let code = try int("extendReasonCode", in: 0...3, required: true, .invalidExtendReasonCode)!
        return (Int(days), ExtendReasonCode(rawValue: Int32(code)) ?? .undeclared)
    }
}

extension ServerAPI {
    /// The store's transaction with this id, if any.
    func record(_ id: String) -> TransactionRecord? {
        store.transactions.first { $0.transactionId == id }
    }

    /// The path's `{originalTransactionId}` of a purchase: checked (4000008, 4040005, 4000187 for a transaction that
    /// is not the first of its purchase), and the first transaction of that purchase.
    func originalTransaction(_ id: String) throws(ServerAPIError) -> TransactionRecord {
        guard !id.isEmpty, id.count <= 40, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidOriginalTransactionId
        }
        if let first = store.transactions.first(where: { $0.originalTransactionId == id }) { return first }
        if record(id) != nil { throw .transactionIdIsNotOriginalTransactionId }
        throw unknownTransactionId(id, notFound: .originalTransactionIdNotFound)
    }

    // MARK: reads

    /// Get Transaction History V1 (`GET /inApps/v1/history/{transactionId}`, Apple's Python client's default
    /// version): as v2 (``transactionHistory(for:query:)``), except that consumables the developer finished and that
    /// are not refunded or revoked are left out (Apple: v1 "doesn't include consumable in-app purchases that the app
    /// marks as finished"; here: marked by Finish Transaction).
    public func transactionHistoryV1(for customer: String, query: TransactionHistoryQuery) throws(ServerAPIError)
        -> JSONValue
    {
        try transactionHistory(for: customer, query: query) { record in
            !(record.productType == .consumable && record.revocation == nil
                && store.isFinished(record.transactionId))
        }
    }

    /// Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`), `OrderLookupResponse`: `{"status": 0,
    /// "signedTransactions": [...]}` for an order of the store (rule order-id-from-the-seed,
    /// ``SimulatedStore/orderId(of:)``), `{"status": 1}` for any other text (Apple: an invalid `orderId` gives no
    /// `signedTransactions`).
    public func lookUpOrderId(_ orderId: String) -> JSONValue {
        let records = store.transactions(inOrder: orderId)
        guard !records.isEmpty else { return .object(["status": .integer(1)]) }
        return .object(["status": .integer(0), "signedTransactions": signedTransactions(records)])
    }

    /// Get App Transaction Info (`GET /inApps/v1/transactions/appTransactions/{transactionId}`),
    /// `AppTransactionInfoResponse`: `{"signedAppTransactionInfo": "<JWS>"}` for the customer any of whose ids is
    /// given (``customer(forTransactionId:)``). The payload is the customer's `AppTransaction` (rule
    /// app-transaction-of-a-customer, ``SimulatedStore/appTransaction(of:)``, written by ``Payloads/appTransaction(_:app:)``,
    /// the same writer as `RESCIND_CONSENT`'s `appData`).
    public func appTransactionInfo(transactionId: String) throws(ServerAPIError) -> JSONValue {
        let customer = try customer(forTransactionId: transactionId)
        guard let record = store.appTransaction(of: customer) else { throw .appTransactionDoesNotExist }
        let app = store.app
        let signer = self.signer ?? app.environment.defaultSigner
        let payload = Payloads.appTransaction(record, app: app)
        return .object(["signedAppTransactionInfo": .string(JWS.compact(payload: payload, signer: signer))])
    }

    /// Get Status of Subscription Renewal Date Extensions (`GET
    /// /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`), `MassExtendRenewalDateStatusResponse`:
    /// `requestIdentifier`, `complete` (always `true`: the store completes a request at once, rule
    /// mass-extension-summary), `completeDate`, `succeededCount`, `failedCount`. `StatusRequestNotFoundError` for a
    /// request the store has not had.
    public func massExtensionStatus(productId: String, requestIdentifier: String) throws(ServerAPIError)
        -> JSONValue
    {
        guard !productId.isEmpty else { throw .invalidProductId }
        guard !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else { throw .invalidRequestIdentifier }
        guard let record = store.massExtension(productId: productId, requestIdentifier: requestIdentifier) else {
            throw .statusRequestNotFound
        }
        var o = JSONObjectBuilder()
        o.set("requestIdentifier", record.summary.requestIdentifier)
        o.set("complete", true)
        o.set("completeDate", record.completeDate)
        o.set("succeededCount", record.summary.succeededCount)
        o.set("failedCount", record.summary.failedCount)
        return o.value
    }

    // MARK: changes

    /// Extend a Subscription Renewal Date (`PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`, body
    /// `ExtendRenewalDateRequest`): ``SimulatedStore/extendRenewalDate(_:for:days:reason:)`` on the purchase's
    /// subscription (`RENEWAL_EXTENDED` to the purchaser and sharing members). Answers `ExtendRenewalDateResponse`:
    /// `originalTransactionId`, `webOrderLineItemId` (the current period's), `success` `true`, `effectiveDate` (the
    /// new `expiresDate`). A family member's share is 4030007, a subscription the rules do not extend 4030004, a
    /// third extension within 365 days 4030005; a purchase that is not an auto-renewable subscription 4030004
    /// [assumed]. A `requestIdentifier` that already extended this subscription is answered as the first time,
    /// without a second extension (rule extension-request-identifier-once [assumed]).
    public static func extendRenewalDate(
        in store: inout SimulatedStore, originalTransactionId id: String, body: [UInt8]
    ) throws(ServerAPIError) -> JSONValue {
        let first = try ServerAPI(store).originalTransaction(id)
        let request = try RequestBody(body)
        let (days, reason) = try request.extensionRequest()
        let identifier = try request.requestIdentifier()
        if first.ownership == .familyShared { throw .familySharedSubscriptionExtensionIneligible }
        guard first.productType == .autoRenewable,
            let summary = store.subscriptions(for: first.customer).first(where: { $0.originalTransactionId == id })
        else { throw .subscriptionExtensionIneligible }
        let record: RenewalExtensionRecord
        do throws(StoreError) {
            // A repeated requestIdentifier is answered from the first extension (rule
            // extension-request-identifier-once, in the store).
            record = try store.extendRenewalDate(
                summary.latestTransaction.productId, for: first.customer, days: days, reason: reason,
                requestIdentifier: identifier)
        } catch { throw extensionError(error) }
        var o = JSONObjectBuilder()
        o.set("originalTransactionId", id)
        o.set("webOrderLineItemId", record.webOrderLineItemId)
        o.set("success", true)
        o.set("effectiveDate", record.effectiveDate)
        return o.value
    }

    /// The Apple error for a store refusal of an extension.
    static func extensionError(_ error: StoreError) -> ServerAPIError {
        guard case .lifecycle(let violation, _, _) = error else { return .refused(error) }
        switch violation {
        case .invalidExtendByDays: return .invalidExtendByDays
        case .extensionIneligible: return .subscriptionExtensionIneligible
        case .maximumExtensionsReached: return .subscriptionMaxExtension
        case .familySharedExtension: return .familySharedSubscriptionExtensionIneligible
        case .autoRenewAlreadyOff, .autoRenewAlreadyOn, .subscriptionNotActive, .changingProductsNotSupported,
            .purchaseDuringBillingRetry, .alreadyRefunded, .notRefunded, .planChangeDuringBillingFailure,
            .planChangeNeedsAutoRenew, .planChangeNeedsCommitmentRenewal, .downgradeAlreadyPending,
            .offerDuringBillingRetry, .winBackOnlyAfterExpiry,
            .oneOfferAtATime, .promotionalOfferNeedsSubscriber, .noPriceIncreasePending, .offerWhilePlanChangePending:
            return .subscriptionExtensionIneligible
        }
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers (`POST /inApps/v1/subscriptions/extend/mass`,
    /// body `MassExtendRenewalDateRequest`): ``SimulatedStore/extendRenewalDatesForAllActiveSubscribers(_:days:reason:requestIdentifier:storefrontCountryCodes:)``
    /// (`RENEWAL_EXTENDED` or `RENEWAL_EXTENSION` / `FAILURE` per purchaser, then `RENEWAL_EXTENSION` / `SUMMARY`).
    /// Answers `MassExtendRenewalDateResponse` `{"requestIdentifier": ...}`. `productId` must be an auto-renewable
    /// subscription of the catalogue (4000023); `storefrontCountryCodes`, when given, a non-empty list (4000027) of
    /// ISO 3166-1 alpha-3 codes (4000028). A `requestIdentifier` the store already had for the product is answered
    /// again without extending twice (rule extension-request-identifier-once [assumed]).
    public static func extendRenewalDatesForAllActiveSubscribers(in store: inout SimulatedStore, body: [UInt8])
        throws(ServerAPIError) -> JSONValue
    {
        let request = try RequestBody(body)
        let identifier = try request.requestIdentifier()
        let (days, reason) = try request.extensionRequest()
        let productId = try request.string("productId", required: true, .invalidProductId) { !$0.isEmpty }!
        guard store.catalog[productId]?.type == .autoRenewable else { throw .invalidProductId }
        var codes: [String] = []
        if let value = request.given("storefrontCountryCodes") {
            guard case .array(let items) = value else { throw .invalidStorefrontCountryCode }
            guard !items.isEmpty else { throw .invalidEmptyStorefrontCountryCodeList }
            for item in items {
                guard let code = item.stringValue, code.count == 3,
                    code.allSatisfy({ $0.isASCII && $0.isUppercase && $0.isLetter })
                else { throw .invalidStorefrontCountryCode }
                codes.append(code)
            }
        }
        do throws(StoreError) {
            // A repeated identifier extends nothing (rule extension-request-identifier-once, in the store).
            _ = try store.extendRenewalDatesForAllActiveSubscribers(
                productId, days: days, reason: reason, requestIdentifier: identifier, storefrontCountryCodes: codes)
        } catch { throw extensionError(error) }
        return .object(["requestIdentifier": .string(identifier)])
    }

    /// Send Consumption Information, v1 (`PUT /inApps/v1/transactions/consumption/{transactionId}`, body
    /// `ConsumptionRequestV1`, integer codes) or v2 (`PUT /inApps/v2/transactions/consumption/{transactionId}`, body
    /// `ConsumptionRequest`: `customerConsented`, `sampleContentProvided`, `deliveryStatus` required,
    /// `consumptionPercentage` and `refundPreference` optional). Apple answers `202 Accepted` with no body. The body
    /// is checked field by field with Apple's codes; `customerConsented` must be `true` (4000035). v1's optional
    /// fields are checked when given [assumed: Apple marks them required]; v1's `refundPreference` 1 is
    /// `GRANT_FULL`, 2 `DECLINE`, 0 and 3 no preference. Then the store's rules
    /// (``SimulatedStore/sendConsumptionInformation(transactionId:customerConsented:refundPreference:received:)``):
    /// a non-consumable or non-renewing purchase is 4000047 (Apple sends it no `CONSUMPTION_REQUEST`), a
    /// transaction without a pending refund request, or past the 12 hours, `GeneralBadRequestError` naming the rule
    /// [assumed]. Accepted information is kept (``SimulatedStore/consumptionInformation``).
    public static func sendConsumptionInformation(
        in store: inout SimulatedStore, transactionId: String, version: Int, body: [UInt8]
    ) throws(ServerAPIError) {
        try checkTransactionId(transactionId)
        let api = ServerAPI(store)
        guard let record = api.record(transactionId) else { throw api.unknownTransactionId(transactionId) }
        let request = try RequestBody(body)
        guard try request.bool("customerConsented", required: true, .invalidCustomerConsented) == true else {
            throw .invalidCustomerConsented
        }
        var preference: RefundPreference?
        if version == 1 {
            _ = try request.int("consumptionStatus", in: 0...3, required: false, .invalidConsumptionStatus)
            _ = try request.int("platform", in: 0...2, required: false, .invalidPlatform)
            _ = try request.bool("sampleContentProvided", required: false, .invalidSampleContentProvided)
            _ = try request.int("deliveryStatus", in: 0...5, required: false, .invalidDeliveryStatus)
            _ = try request.string("appAccountToken", required: false, .invalidAppAccountToken) {
                $0.isEmpty || AppAccountToken.problem(with: $0.lowercased()) == nil
            }
            _ = try request.int("accountTenure", in: 0...7, required: false, .invalidAccountTenure)
            _ = try request.int("playTime", in: 0...7, required: false, .invalidPlayTime)
            _ = try request.int("lifetimeDollarsRefunded", in: 0...7, required: false, .invalidLifetimeDollarsRefunded)
            _ = try request.int(
                "lifetimeDollarsPurchased", in: 0...7, required: false, .invalidLifetimeDollarsPurchased)
            _ = try request.int("userStatus", in: 0...4, required: false, .invalidUserStatus)
            switch try request.int("refundPreference", in: 0...3, required: false, .generalBadRequest) {
            case 1: preference = .grantFull
            case 2: preference = .decline
            default: preference = nil
            }
        } else {
            _ = try request.bool("sampleContentProvided", required: true, .invalidSampleContentProvided)
            let statuses = [
                "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
                "UNDELIVERED_OTHER",
            ]
            _ = try request.string("deliveryStatus", required: true, .invalidDeliveryStatus) { statuses.contains($0) }
            _ = try request.int("consumptionPercentage", in: 0...100_000, required: false, .generalBadRequest)
            if let raw = try request.string(
                "refundPreference", required: false, .generalBadRequest,
                valid: { RefundPreference(rawValue: $0) != nil })
            {
                preference = RefundPreference(rawValue: raw)
            }
        }
        switch record.productType {
        case .nonConsumable, .nonRenewing: throw .invalidTransactionTypeNotSupported
        case .consumable, .autoRenewable: break
        }
        if record.ownership == .familyShared { throw .familyTransactionNotSupported }
        // Rule consumption-information-kept-fields: only the fields of Apple's request type are kept (they are all
        // checked above, so each is a bounded value); anything else in the body is ignored [assumed: Apple ignores
        // members its model does not have]. A body of unknown members therefore cannot grow the store.
        let fields = version == 1 ? Self.consumptionRequestV1Fields : Self.consumptionRequestFields
        let received = ConsumptionInformation(
            transactionId: transactionId, version: version, receivedAt: store.now,
            body: .object(request.members.filter { fields.contains($0.key) }))
        do throws(StoreError) {
            try store.sendConsumptionInformation(
                transactionId: transactionId, customerConsented: true, refundPreference: preference,
                received: received)
        } catch { throw .refused(error) }
    }

    /// The members of Apple's `ConsumptionRequestV1`.
    static let consumptionRequestV1Fields: Set<String> = [
        "customerConsented", "consumptionStatus", "platform", "sampleContentProvided", "deliveryStatus",
        "appAccountToken", "accountTenure", "playTime", "lifetimeDollarsRefunded", "lifetimeDollarsPurchased",
        "userStatus", "refundPreference",
    ]
    /// The members of Apple's `ConsumptionRequest` (v2).
    static let consumptionRequestFields: Set<String> = [
        "customerConsented", "sampleContentProvided", "deliveryStatus", "consumptionPercentage", "refundPreference",
    ]

    /// Set App Account Token (`PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`, body
    /// `UpdateAppAccountTokenRequest`): ``SimulatedStore/setAppAccountToken(_:forOriginalTransactionId:)``. Apple
    /// answers `200 OK` with no body. The id must be a purchase's original transaction id (4000006 malformed,
    /// 4040010 unknown, 4000187 another transaction of the purchase), not a family member's (4000185); the token a
    /// UUID (4000183; Apple's payloads write it in lowercase, so an uppercase one is stored lowercased).
    public static func setAppAccountToken(
        in store: inout SimulatedStore, originalTransactionId id: String, body: [UInt8]
    )
        throws(ServerAPIError)
    {
        try checkTransactionId(id)
        let api = ServerAPI(store)
        guard let first = store.transactions.first(where: { $0.originalTransactionId == id }) else {
            throw api.record(id) == nil ? api.unknownTransactionId(id) : .transactionIdIsNotOriginalTransactionId
        }
        let request = try RequestBody(body)
        let token = try request.string("appAccountToken", required: true, .invalidAppAccountTokenUUID) {
            AppAccountToken.problem(with: $0.lowercased()) == nil
        }!
        if first.ownership == .familyShared { throw .familyTransactionNotSupported }
        do throws(StoreError) { try store.setAppAccountToken(token.lowercased(), forOriginalTransactionId: id) } catch {
            throw .invalidAppAccountTokenUUID
        }
    }

    /// Finish Transaction (`POST /inApps/v1/transactions/{transactionId}/finish`, no body): Apple: "notifies the App
    /// Store server that your system has finished processing the customer's transaction". Answers `200 OK` with no
    /// body; ``SimulatedStore/finishTransaction(_:)`` records it (4000006 malformed id, 4040010 unknown).
    public static func finishTransaction(in store: inout SimulatedStore, transactionId: String) throws(ServerAPIError) {
        try checkTransactionId(transactionId)
        let api = ServerAPI(store)
        guard api.record(transactionId) != nil else { throw api.unknownTransactionId(transactionId) }
        store.finishTransaction(transactionId)
    }
}
