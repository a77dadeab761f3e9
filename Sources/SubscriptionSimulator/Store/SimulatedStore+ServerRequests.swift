/// The store's side of the App Store Server API's requests that change it (issue 25): Set App Account Token, Finish
/// Transaction, Send Consumption Information by `transactionId`, the mass extensions' status, and the order ids of
/// Look Up Order ID. `ServerAPI/ServerAPIChanges.swift` checks a request's ids and body with Apple's error codes
/// before it calls these.
extension SimulatedStore {
    /// Set App Account Token (Apple: "sets the app account token value for a purchase the customer makes outside of
    /// your app, or updates its value in an existing transaction"): the purchase's transactions
    /// (``TransactionLedger/setAppAccountToken(_:forOriginalTransactionId:at:)``) and renewal info carry `token`
    /// (``AccountFields/appAccountToken(of:purchase:directory:serverRequests:)``). Throws `invalidAppAccountToken`
    /// for a token that is not a lowercase UUID (rule app-account-token-is-a-uuid).
    public mutating func setAppAccountToken(_ token: String, forOriginalTransactionId id: String) throws(StoreError) {
        if let problem = AppAccountToken.problem(with: token) { throw .invalidAppAccountToken(token, problem) }
        serverRequests.setAppAccountToken(token, forOriginalTransactionId: id)
        ledger.setAppAccountToken(token, forOriginalTransactionId: id, at: now)
    }

    /// The token Set App Account Token gave the purchase with this `originalTransactionId`, if any.
    public func appAccountToken(forOriginalTransactionId id: String) -> String? {
        serverRequests.appAccountToken(forOriginalTransactionId: id)
    }

    /// Finish Transaction: the developer's server "has finished processing the customer's transaction". Recorded
    /// once (finishing again changes nothing); sends nothing. A finished consumable that is not refunded or revoked
    /// leaves Get Transaction History v1 (Apple: v1 "doesn't include consumable in-app purchases that the app marks
    /// as finished"); v2 and every other read are unchanged.
    public mutating func finishTransaction(_ transactionId: String) {
        _ = serverRequests.finish(transactionId, at: now)
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
        let index = try ledger.transactionAnsweringConsumptionRequest(transactionId)
        let record = transactions[index]
        requireHistory("a transaction named by its number")
        try sendConsumptionInformation(
            record.productId, of: record.customer, transaction: try ledger.purchasePosition(of: index),
            customerConsented: customerConsented, refundPreference: refundPreference)
        serverRequests.keep(received, for: record.transactionId)
    }

    /// How many consumption informations the store keeps per transaction (rule
    /// consumption-information-kept-latest): the latest 16.
    public static let consumptionInformationKeptPerTransaction = ServerRequestRecords
        .consumptionInformationKeptPerTransaction

    /// Every consumption information the store accepted, in the order received.
    public var consumptionInformation: [ConsumptionInformation] { serverRequests.consumptionInformation }

    /// The mass extension request `requestIdentifier` of `productId`, once it has completed.
    public func massExtension(productId: String, requestIdentifier: String) -> MassExtensionRecord? {
        serverRequests.massExtension(productId: productId, requestIdentifier: requestIdentifier)
    }

    /// A purchased transaction's order id; nil for a family member's (``ServerRequestRecords/orderId(of:seed:)``).
    public func orderId(of record: TransactionRecord) -> String? {
        ServerRequestRecords.orderId(of: record, seed: seed)
    }

    /// The transactions of the order `orderId` (``orderId(of:)``), in creation order; empty when no order has it.
    public func transactions(inOrder orderId: String) -> [TransactionRecord] {
        ServerRequestRecords.transactions(inOrder: orderId, among: transactions, seed: seed)
    }
}
