/// Refunds in full (issue 14, item 5): any past transaction, prorated refunds, the customer's refund request with
/// `CONSUMPTION_REQUEST`, the developer's consumption information, Apple's decision, and reversals. Rules (reference
/// §1.1, §1.3, §4.6, §5.14, A-12, A-13) by name in `Store/*+Refunds.swift` and `Lifecycle/TransitionTable.swift`.
extension SimulatedStore {
    /// Apple refunds one of the customer's transactions of `productId`: `transaction` counts from 1 in purchase order
    /// (`nil`: the latest). `REFUND` carries that transaction with `revocationType` `REFUND_FULL` or
    /// `REFUND_PRORATED` and `revocationPercentage`. Only a refund of a subscription's current transaction ends it
    /// (``SubscriptionBook/chain(currentAt:in:catalog:)``, reference §5.14).
    public mutating func refund(
        _ productId: String, of customer: String, transaction position: Int?, amount: RefundAmount,
        reason: Int32 = 0
    ) throws(StoreError) {
        try TransactionLedger.checkRefundAmount(amount)
        let index = try transactionIndex(productId, of: customer, position: position)
        try grantRefund(index, amount: amount, reason: reason)
        refreshEntitlements()
    }

    /// The customer asks for a refund of a transaction (`nil`: the latest). For an auto-renewable subscription the
    /// App Store turns auto-renew off (`DID_CHANGE_RENEWAL_STATUS` / `AUTO_RENEW_DISABLED`, to members too, A-13);
    /// then `CONSUMPTION_REQUEST` with `consumptionRequestReason` to the purchaser only, for the types that
    /// ``TransactionLedger/sendsConsumptionRequest(for:)`` names. Apple decides: ``decideRefund(_:of:transaction:_:)``.
    public mutating func requestRefund(
        _ productId: String, by customer: String, transaction position: Int? = nil,
        reason: ConsumptionRequestReason
    ) throws(StoreError) {
        let index = try transactionIndex(productId, of: customer, position: position)
        try ledger.checkRefundRequestAllowed(index)
        if ledger.transactions[index].productType == .autoRenewable {
            try apply(.refundRequested, to: try requireChain(productId, customer))
        }
        let consumptionRequested = ledger.sendsConsumptionRequest(about: index)
        if consumptionRequested {
            sendAboutTransaction(.consumptionRequest, index)
            emissions.noteConsumptionRequestReason(reason)
        }
        ledger.recordRefundRequest(of: index, reason: reason, consumptionRequested: consumptionRequested, at: now)
        refreshEntitlements()
    }

    /// The developer answers the `CONSUMPTION_REQUEST` (Send Consumption Information): only with the customer's
    /// consent, within 12 hours of the request (rules consumption-information-needs-consent,
    /// consumption-information-within-12-hours). Sends nothing; Apple weighs it in its decision.
    public mutating func sendConsumptionInformation(
        _ productId: String, of customer: String, transaction position: Int? = nil, customerConsented: Bool,
        refundPreference: RefundPreference? = nil
    ) throws(StoreError) {
        let index = try transactionIndex(productId, of: customer, position: position)
        let request = try ledger.requestAnswerable(
            for: index, customer: customer, productId: productId, customerConsented: customerConsented, at: now)
        ledger.noteConsumptionInformation(of: request, refundPreference: refundPreference)
    }

    /// Apple's decision on a pending refund request, at `now`: `REFUND` (as ``refund(_:of:transaction:amount:reason:)``)
    /// or `REFUND_DECLINED` to the purchaser only (members are told nothing, reference §1.3); after a decline
    /// auto-renew stays off.
    public mutating func decideRefund(
        _ productId: String, of customer: String, transaction position: Int? = nil, _ decision: RefundDecision,
        reason: Int32 = 0
    ) throws(StoreError) {
        let index = try transactionIndex(productId, of: customer, position: position)
        let request = try ledger.requirePendingRequest(for: index, customer: customer, productId: productId)
        switch decision {
        case .grant(let amount):
            try TransactionLedger.checkRefundAmount(amount)
            try grantRefund(index, amount: amount, reason: reason)
        case .decline:
            sendAboutTransaction(.refundDeclined, index)
        }
        ledger.markDecided(request)
        refreshEntitlements()
    }

    /// A granted refund is reversed after a dispute: `REFUND_REVERSED` to the purchaser, the revocation fields
    /// removed, the content reinstated (reference §1.1, §5.14; S-F757986), a subscription's as
    /// ``SubscriptionBook/revokedChain(currentAt:in:catalog:)`` says. Family members receive nothing and keep the
    /// `REVOKE` they got (A-12 **[inferred]**, ``FamilyRules/memberNotification(for:)``).
    public mutating func reverseRefund(_ productId: String, of customer: String, transaction position: Int? = nil)
        throws(StoreError)
    {
        let index = try transactionIndex(productId, of: customer, position: position)
        try ledger.checkRefunded(index)
        if let key = subscriptionBook.revokedChain(currentAt: index, in: ledger, catalog: catalog) {
            try apply(.refundReversed, to: key)
        } else {
            ledger.reverseRefund(of: index, catalog: catalog, at: now)
            sendAboutTransaction(.refundReversed, index)
        }
        refreshEntitlements()
    }

    // MARK: - Helpers

    func transactionIndex(_ productId: String, of customer: String, position: Int?) throws(StoreError) -> Int {
        _ = try requireProduct(productId)
        requireHistory("a transaction named by its number")
        return try ledger.purchasedTransaction(productId, of: customer, position: position)
    }

    /// Sends `type` about transaction `index` to its customer, with the renewal info and status of its subscription
    /// now (``SubscriptionBook/chain(of:product:)``), none for a one-time purchase.
    mutating func sendAboutTransaction(_ type: NotificationType, _ index: Int, restored: Bool = false) {
        let record = ledger.transactions[index]
        let chain = subscriptionBook.chain(of: record, product: catalog[record.productId]).map {
            subscriptionBook.chains[$0.index]
        }
        send(
            type, nil, to: record.customer, transaction: record, renewal: chain.map { renewalSnapshot(of: $0) },
            status: chain?.state.phase, restored: restored)
    }

    /// A refund: through the table when it is a subscription's current transaction (the subscription ends there),
    /// otherwise on the transaction alone, ending its shares (``FamilyBook/sharesEnded(byRefundOf:ledger:)``).
    mutating func grantRefund(_ index: Int, amount stated: RefundAmount, reason: Int32) throws(StoreError) {
        try ledger.checkNotRefunded(index)
        let amount = try ledger.resolvedRefundAmount(stated, of: index, at: now)
        if let key = subscriptionBook.chain(currentAt: index, in: ledger, catalog: catalog) {
            return try apply(.refunded(amount: amount, reason: reason), to: key)
        }
        ledger.refundOneTime(index, Revocation.refund(amount, at: now, reason: reason), at: now)
        sendAboutTransaction(.refund, index)
        for share in familyBook.sharesEnded(byRefundOf: index, ledger: ledger) { try endShare(share, reason: reason) }
    }
}
