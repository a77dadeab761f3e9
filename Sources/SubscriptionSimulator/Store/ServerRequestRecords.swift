/// What the developer's App Store Server API requests left in the store (issue 25): app account tokens set on a
/// purchase (Set App Account Token), transactions finished (Finish Transaction), consumption information sent (Send
/// Consumption Information v1 and v2) and renewal-date extension requests (Extend a Subscription Renewal Date with a
/// `requestIdentifier`; Extend Subscription Renewal Dates for All Active Subscribers). Operations:
/// `Store/SimulatedStore+ServerRequests.swift` and `Store/SimulatedStore+Extensions.swift` order them; the rules
/// on what is kept are here.
struct ServerRequestRecords: Hashable, Sendable {
    /// The token Set App Account Token gave each `originalTransactionId`; it overrides the customer's in-app token
    /// on that purchase's transactions and renewal info.
    private(set) var appAccountTokens: [String: String] = [:]
    /// Every transaction finished, in the order finished (each once).
    private(set) var finished: [FinishedTransaction] = []
    /// The `transactionId`s in `finished`.
    private(set) var finishedIds: Set<String> = []
    /// Every consumption information the store accepted, in the order received.
    private(set) var consumptionInformation: [ConsumptionInformation] = []
    /// Every mass extension request completed, in the order made.
    private(set) var massExtensions: [MassExtensionRecord] = []
    /// Every single renewal-date extension made with a `requestIdentifier`, in the order made (rule
    /// extension-request-identifier-once).
    private(set) var renewalExtensions: [RenewalExtensionRecord] = []
    /// Every cancellation-page view (`viewCancellation`), in the order made (`SimulatedStore+CancellationViews.swift`).
    private(set) var cancellationViews: [CancellationView] = []

    /// How many consumption informations are kept per transaction (rule consumption-information-kept-latest).
    static let consumptionInformationKeptPerTransaction = 16

    // MARK: - App account tokens (Set App Account Token)

    /// The purchase `originalTransactionId` carries `token` from now on.
    mutating func setAppAccountToken(_ token: String, forOriginalTransactionId id: String) {
        appAccountTokens[id] = token
    }

    /// The token Set App Account Token gave the purchase `originalTransactionId`, if any (no hashing while none was).
    @inline(__always)
    func appAccountToken(forOriginalTransactionId id: String) -> String? {
        appAccountTokens.isEmpty ? nil : appAccountTokens[id]
    }

    // MARK: - Finished transactions (Finish Transaction)

    /// The transaction is finished at `now`, once: finishing again changes nothing (Finish Transaction); `false`
    /// then.
    mutating func finish(_ transactionId: String, at now: Instant) -> Bool {
        guard finishedIds.insert(transactionId).inserted else { return false }
        finished.append(FinishedTransaction(transactionId: transactionId, finishedAt: now))
        return true
    }

    // MARK: - Consumption information

    /// Keeps consumption information as received. Rule **consumption-information-kept-latest**: Apple takes the
    /// information again for as long as the request is open (12 hours); the store keeps the latest
    /// ``consumptionInformationKeptPerTransaction`` of each transaction, so repeated calls at one instant cannot grow
    /// it without bound [assumed: what Apple keeps is not documented; the latest is what it uses].
    mutating func keep(_ information: ConsumptionInformation) {
        let earlier = consumptionInformation.indices.filter {
            consumptionInformation[$0].transactionId == information.transactionId
        }
        if earlier.count >= Self.consumptionInformationKeptPerTransaction {
            consumptionInformation.remove(at: earlier[0])
        }
        consumptionInformation.append(information)
    }

    /// ``keep(_:)`` of a body received for the transaction `transactionId` (the body's own id is replaced).
    mutating func keep(_ information: ConsumptionInformation, for transactionId: String) {
        var information = information
        information.transactionId = transactionId
        keep(information)
    }

    // MARK: - Renewal-date extensions

    /// The extension of the subscription `originalTransactionId` that `requestIdentifier` made, if any (rule
    /// extension-request-identifier-once).
    func renewalExtension(originalTransactionId: String, requestIdentifier: String) -> RenewalExtensionRecord? {
        renewalExtensions.last {
            $0.originalTransactionId == originalTransactionId && $0.requestIdentifier == requestIdentifier
        }
    }

    /// Records an extension made with a `requestIdentifier` (rule extension-request-identifier-once).
    mutating func record(_ renewalExtension: RenewalExtensionRecord) {
        renewalExtensions.append(renewalExtension)
    }

    /// The mass extension request `requestIdentifier` of `productId`, once it has completed.
    func massExtension(productId: String, requestIdentifier: String) -> MassExtensionRecord? {
        massExtensions.last { $0.summary.productId == productId && $0.summary.requestIdentifier == requestIdentifier }
    }

    /// Records a mass extension request completed at `now` (rule mass-extension-summary: at the request's instant).
    mutating func recordMassExtension(_ summary: RenewalExtensionSummary, completedAt now: Instant) {
        massExtensions.append(MassExtensionRecord(summary: summary, completeDate: now))
    }

    // MARK: - Cancellation-page views (Retention Messaging)

    /// Records a cancellation-page view; returns its number, counted from 1.
    mutating func record(_ view: CancellationView) -> Int {
        cancellationViews.append(view)
        return cancellationViews.count
    }

    /// Records what came of view `index`.
    mutating func recordOutcome(
        of index: Int, _ outcome: RetentionOutcome, httpStatus: Int?, elapsedMilliseconds: Int64?, url: String?
    ) {
        cancellationViews[index].outcome = outcome
        cancellationViews[index].httpStatus = httpStatus
        cancellationViews[index].elapsedMilliseconds = elapsedMilliseconds
        cancellationViews[index].url = url
    }

    // MARK: - Order ids (Look Up Order ID)

    /// Rule **order-id-from-the-seed**: the store has no invoices, so each purchased transaction's order id (the id on
    /// the customer's App Store receipt email, which Look Up Order ID takes) is derived from the store's `seed` and
    /// the `transactionId`: `M` and nine characters of `23456789ABCDEFGHJKLMNPQRSTUVWXYZ`, e.g. `MQ7K2XH9PA`
    /// [assumed: Apple's order ids are ten uppercase letters and digits, such as `MK5TTTVWJH`; one order per
    /// transaction, renewals included].
    static func orderId(ofTransaction transactionId: String, seed: UInt64) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in transactionId.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        var value = SplitMix64.mix(hash ^ SplitMix64.mix(seed &+ 0x6f72_6465_7269_64))
        let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
        var text = "M"
        for _ in 0..<9 {
            text.append(alphabet[Int(value & 31)])
            value >>= 5
        }
        return text
    }

    /// Whether `text` has the form of an order id (``orderId(ofTransaction:seed:)``).
    static func looksLikeOrderId(_ text: String) -> Bool { text.count == 10 && text.first == "M" }

    /// Rule order-id-from-the-seed for a record: a purchased transaction's order id; a family member's transactions
    /// have none (the purchaser paid).
    static func orderId(of record: TransactionRecord, seed: UInt64) -> String? {
        guard record.ownership == .purchased else { return nil }
        return orderId(ofTransaction: record.transactionId, seed: seed)
    }

    /// The transactions of `log` in the order `orderId` (``orderId(of:seed:)``), in creation order; empty when no
    /// order has it.
    static func transactions(inOrder orderId: String, among log: TransactionLog, seed: UInt64) -> [TransactionRecord] {
        guard looksLikeOrderId(orderId) else { return [] }
        return log.filter { Self.orderId(of: $0, seed: seed) == orderId }
    }

    /// Whether the invariants hold: `finishedIds` are the ids in `finished`, each finished once; at most
    /// ``consumptionInformationKeptPerTransaction`` consumption informations per transaction.
    var isConsistent: Bool {
        var perTransaction: [String: Int] = [:]
        for information in consumptionInformation { perTransaction[information.transactionId, default: 0] += 1 }
        return finished.count == finishedIds.count && Set(finished.map(\.transactionId)) == finishedIds
            && perTransaction.values.allSatisfy { $0 <= Self.consumptionInformationKeptPerTransaction }
    }
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
