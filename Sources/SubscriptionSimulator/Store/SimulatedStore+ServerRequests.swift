/// The store's side of the App Store Server API's requests that change it (issue 25): Set App Account Token, Finish
/// Transaction, Send Consumption Information by `transactionId`, the mass extensions' status, and the order ids of
/// Look Up Order ID. `ServerAPI/ServerAPIChanges.swift` checks a request's ids and body with Apple's error codes
/// before it calls these.
extension SimulatedStore {
    /// Set App Account Token (Apple: "sets the app account token value for a purchase the customer makes outside of
    /// your app, or updates its value in an existing transaction"): every transaction the customer bought with that
    /// `originalTransactionId` carries `token` from now on, the existing ones included (each is changed, so it comes
    /// back in a history listing by `revision`), and so does the subscription's renewal info. The token set this way
    /// takes precedence over the one the app supplies with later purchases, for this purchase only [assumed]. A
    /// family member's transactions never carry it (reference §4.5). Throws `invalidAppAccountToken` for a token
    /// that is not a lowercase UUID (rule app-account-token-is-a-uuid).
    public mutating func setAppAccountToken(_ token: String, forOriginalTransactionId id: String) throws(StoreError) {
        if let problem = AppAccountToken.problem(with: token) { throw .invalidAppAccountToken(token, problem) }
        serverRequests.appAccountTokens[id] = token
        for index in transactions.indices
        where transactions[index].originalTransactionId == id && transactions[index].ownership == .purchased {
            ledger.setAppAccountToken(token, of: index, at: now)
        }
    }

    /// The token Set App Account Token gave the purchase with this `originalTransactionId`, if any.
    public func appAccountToken(forOriginalTransactionId id: String) -> String? {
        serverRequests.appAccountTokens.isEmpty ? nil : serverRequests.appAccountTokens[id]
    }

    /// Finish Transaction: the developer's server "has finished processing the customer's transaction". Recorded
    /// once (finishing again changes nothing); sends nothing. A finished consumable that is not refunded or revoked
    /// leaves Get Transaction History v1 (Apple: v1 "doesn't include consumable in-app purchases that the app marks
    /// as finished"); v2 and every other read are unchanged.
    public mutating func finishTransaction(_ transactionId: String) {
        guard serverRequests.finishedIds.insert(transactionId).inserted else { return }
        serverRequests.finished.append(FinishedTransaction(transactionId: transactionId, finishedAt: now))
    }

    /// Whether Finish Transaction was called for the transaction.
    public func isFinished(_ transactionId: String) -> Bool {
        serverRequests.finishedIds.contains(transactionId)
    }

    /// Every transaction finished, in order.
    public var finishedTransactions: [FinishedTransaction] { serverRequests.finished }

    /// Send Consumption Information for one transaction (`transactionId` of one of the customer's own purchases, or
    /// its purchase's `originalTransactionId`: rule consumption-by-original-transaction-id):
    /// the rules of ``sendConsumptionInformation(_:of:transaction:customerConsented:refundPreference:)`` (a pending
    /// refund request with its `CONSUMPTION_REQUEST`, consent, 12 hours), then the body is kept as received,
    /// readable in ``consumptionInformation``.
    public mutating func sendConsumptionInformation(
        transactionId: String, customerConsented: Bool, refundPreference: RefundPreference?,
        received: ConsumptionInformation
    ) throws(StoreError) {
        guard var index = transactions.indices.first(where: { transactions[$0].transactionId == transactionId }) else {
            throw .refunds(.noConsumptionRequest(transactionId: transactionId))
        }
        // Rule consumption-by-original-transaction-id: Apple's Send Consumption Information V1 named its path
        // parameter `originalTransactionId` ("You receive this identifier in the CONSUMPTION_REQUEST
        // notification"), so the purchase's original id also reaches the request pending on one of its later
        // transactions (a renewal); the latest such request is meant. For v2 [assumed] (Apple's page names
        // `transactionId`; clients still send the original one).
        if ledger.pendingRequest(for: index) == nil, transactions[index].originalTransactionId == transactionId,
            let pending = transactions.indices.last(where: {
                transactions[$0].originalTransactionId == transactionId && ledger.pendingRequest(for: $0) != nil
            })
        {
            index = pending
        }
        let record = transactions[index]
        let all = purchasedTransactions(record.productId, of: record.customer)
        guard let position = all.firstIndex(of: index) else {
            throw .refunds(.noPendingRequest(customer: record.customer, productId: record.productId))
        }
        try sendConsumptionInformation(
            record.productId, of: record.customer, transaction: position + 1, customerConsented: customerConsented,
            refundPreference: refundPreference)
        var kept = received
        kept.transactionId = record.transactionId
        // Rule consumption-information-kept-latest: Apple takes the information again for as long as the request is
        // open (12 hours); the store keeps the latest ``consumptionInformationKeptPerTransaction`` of each
        // transaction, so repeated calls at one instant cannot grow it without bound [assumed: what Apple keeps is
        // not documented; the latest is what it uses].
        let earlier = serverRequests.consumptionInformation.indices.filter {
            serverRequests.consumptionInformation[$0].transactionId == kept.transactionId
        }
        if earlier.count >= Self.consumptionInformationKeptPerTransaction {
            serverRequests.consumptionInformation.remove(at: earlier[0])
        }
        serverRequests.consumptionInformation.append(kept)
    }

    /// How many consumption informations the store keeps per transaction (rule
    /// consumption-information-kept-latest): the latest 16.
    public static let consumptionInformationKeptPerTransaction = 16

    /// Every consumption information the store accepted, in the order received.
    public var consumptionInformation: [ConsumptionInformation] { serverRequests.consumptionInformation }

    /// The mass extension request `requestIdentifier` of `productId`, once it has completed.
    public func massExtension(productId: String, requestIdentifier: String) -> MassExtensionRecord? {
        serverRequests.massExtensions.last {
            $0.summary.productId == productId && $0.summary.requestIdentifier == requestIdentifier
        }
    }

    /// Records a completed mass extension request (rule mass-extension-summary: at the request's instant).
    mutating func recordMassExtension(_ summary: RenewalExtensionSummary) {
        serverRequests.massExtensions.append(MassExtensionRecord(summary: summary, completeDate: now))
    }

    /// Rule order-id-from-the-seed: the store has no invoices, so each purchased transaction's order id (the id on
    /// the customer's App Store receipt email, which Look Up Order ID takes) is derived from the store's seed and
    /// the `transactionId`: `M` and nine characters of `23456789ABCDEFGHJKLMNPQRSTUVWXYZ`, e.g. `MQ7K2XH9PA`
    /// [assumed: Apple's order ids are ten uppercase letters and digits, such as `MK5TTTVWJH`; one order per
    /// transaction, renewals included]. A family member's transactions have none (the purchaser paid).
    public func orderId(of record: TransactionRecord) -> String? {
        guard record.ownership == .purchased else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in record.transactionId.utf8 {
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

    /// The transactions of the order `orderId` (``orderId(of:)``), in creation order; empty when no order has it.
    public func transactions(inOrder orderId: String) -> [TransactionRecord] {
        guard orderId.count == 10, orderId.first == "M" else { return [] }
        return transactions.filter { self.orderId(of: $0) == orderId }
    }
}
