/// What the developer's App Store Server API requests left in the store (issue 25): app account tokens set on a
/// purchase (Set App Account Token), transactions finished (Finish Transaction), consumption information sent (Send
/// Consumption Information v1 and v2) and renewal-date extension requests (Extend a Subscription Renewal Date with a
/// `requestIdentifier`; Extend Subscription Renewal Dates for All Active Subscribers). Operations:
/// `Store/SimulatedStore+ServerRequests.swift` and `Store/SimulatedStore+Extensions.swift`.
struct ServerRequestRecords: Hashable, Sendable {
    /// The token Set App Account Token gave each `originalTransactionId`; it overrides the customer's in-app token
    /// on that purchase's transactions and renewal info.
    var appAccountTokens: [String: String] = [:]
    /// Every transaction finished, in the order finished (each once).
    var finished: [FinishedTransaction] = []
    /// The `transactionId`s in `finished`.
    var finishedIds: Set<String> = []
    /// Every consumption information the store accepted, in the order received.
    var consumptionInformation: [ConsumptionInformation] = []
    /// Every mass extension request completed, in the order made.
    var massExtensions: [MassExtensionRecord] = []
    /// Every single renewal-date extension made with a `requestIdentifier`, in the order made (rule
    /// extension-request-identifier-once).
    var renewalExtensions: [RenewalExtensionRecord] = []
    /// Every cancellation-page view (`viewCancellation`), in the order made (`SimulatedStore+CancellationViews.swift`).
    var cancellationViews: [CancellationView] = []
}

/// One subscription's renewal-date extension (Extend a Subscription Renewal Date): the values Apple's
/// `ExtendRenewalDateResponse` answers, and the request's identifier when it had one.
public struct RenewalExtensionRecord: Hashable, Sendable {
    /// The subscription extended.
    public var originalTransactionId: String
    /// The request's `requestIdentifier`, if it gave one.
    public var requestIdentifier: String?
    /// The `webOrderLineItemId` of the period extended (the current transaction's).
    public var webOrderLineItemId: String?
    /// The new `expiresDate` of the current transaction (`effectiveDate` in the response).
    public var effectiveDate: Instant?
    /// The store's clock when the extension was made.
    public var extendedAt: Instant
}

/// A transaction the developer's server marked finished (Finish Transaction), and when.
public struct FinishedTransaction: Hashable, Sendable {
    /// The transaction finished.
    public var transactionId: String
    /// The store's clock when Finish Transaction was called.
    public var finishedAt: Instant
}

/// Consumption information the developer sent for a transaction with a pending refund request: the endpoint's
/// version (1: `ConsumptionRequestV1`, 2: `ConsumptionRequest`), when it arrived, and the request body as received.
public struct ConsumptionInformation: Hashable, Sendable {
    /// The transaction the information is about: the path's `{transactionId}`, or, when the path named the
    /// purchase's `originalTransactionId`, the transaction whose refund request it answers (rule
    /// consumption-by-original-transaction-id).
    public var transactionId: String
    /// 1: `PUT /inApps/v1/transactions/consumption/…`; 2: `PUT /inApps/v2/transactions/consumption/…`.
    public var version: Int
    /// The store's clock when it arrived.
    public var receivedAt: Instant
    /// The request body (a JSON object), as the developer sent it.
    public var body: JSONValue

    /// The information as received.
    public init(transactionId: String, version: Int, receivedAt: Instant, body: JSONValue) {
        self.transactionId = transactionId
        self.version = version
        self.receivedAt = receivedAt
        self.body = body
    }
}

/// A completed mass renewal-date extension request: its summary and the instant it completed (the request's own,
/// rule mass-extension-summary).
public struct MassExtensionRecord: Hashable, Sendable {
    /// The request's identifier, product, storefronts and counts, as `RENEWAL_EXTENSION` / `SUMMARY` reports them.
    public var summary: RenewalExtensionSummary
    /// When the request completed (its own instant).
    public var completeDate: Instant
}
