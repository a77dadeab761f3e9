/// Refunds in full (issue 14, item 5): any past transaction, prorated refunds, the customer's refund request with
/// `CONSUMPTION_REQUEST`, the developer's consumption information, Apple's decision, and reversals. Rules:
/// reference §1.1, §1.3, §4.6, §5.14 and; the table rows are in `Lifecycle/TransitionTable.swift`.
extension SimulatedStore {
    /// Apple refunds one of the customer's transactions of `productId`: `transaction` counts from 1 in purchase order
    /// (`nil`: the latest). `REFUND` carries that transaction with `revocationType` `REFUND_FULL` or
    /// `REFUND_PRORATED` and `revocationPercentage`. A refund of a subscription's current transaction ends it
    /// (status 5, members get `REVOKE`); a refund of an earlier period leaves the subscription as it is: the status and
    /// renewal info stay those of the current period (reference §5.14, S-F774755: `signedTransactionInfo` is the
    /// transaction concerned) and members receive nothing, their access being unchanged [assumed].
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
    /// for a consumable or an auto-renewable it then sends `CONSUMPTION_REQUEST` with `consumptionRequestReason`
    /// (purchaser only, reference §1.3; S-NT, S-DATA). Apple decides later: ``decideRefund(_:of:transaction:_:)``.
    public mutating func requestRefund(
        _ productId: String, by customer: String, transaction position: Int? = nil,
        reason: ConsumptionRequestReason
    ) throws(StoreError) {
        let index = try transactionIndex(productId, of: customer, position: position)
        try ledger.checkRefundRequestAllowed(index)
        if ledger.transactions[index].productType == .autoRenewable {
            try apply(.refundRequested, to: try requireChain(productId, customer))
        }
        let consumptionRequested = TransactionLedger.sendsConsumptionRequest(
            for: ledger.transactions[index].productType)
        if consumptionRequested {
            let (renewal, status) = subscriptionView(of: index)
            send(
                .consumptionRequest, nil, to: customer, transaction: ledger.transactions[index], renewal: renewal,
                status: status)
            emissions.noteConsumptionRequestReason(reason)
        }
        ledger.recordRefundRequest(
            RefundRequestRecord(
                transactionIndex: index, requestedAt: now, reason: reason, consumptionRequested: consumptionRequested))
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
            let (renewal, status) = subscriptionView(of: index)
            send(
                .refundDeclined, nil, to: customer, transaction: ledger.transactions[index], renewal: renewal,
                status: status)
        }
        ledger.markDecided(request)
        refreshEntitlements()
    }

    /// A granted refund is reversed after a dispute: `REFUND_REVERSED` to the purchaser, the revocation fields
    /// removed, the content reinstated (reference §1.1, §5.14; S-F757986). A subscription whose current transaction
    /// it was is active again until its unchanged `expiresDate` (rule refund-reversal-restores-access). Family
    /// members receive nothing and keep the `REVOKE` they got (A-12: REFUND_REVERSED is not sent to members
    /// [inferred]; every change of a member's access comes with a notification to the member).
    public mutating func reverseRefund(_ productId: String, of customer: String, transaction position: Int? = nil)
        throws(StoreError)
    {
        let index = try transactionIndex(productId, of: customer, position: position)
        try ledger.checkRefunded(index)
        if let key = currentChain(of: index), subscriptionBook.chains[key.index].state.phase == .revoked {
            try apply(.refundReversed, to: key)
        } else {
            let product = catalog[ledger.transactions[index].productId]
            ledger.reverseRefund(of: index, term: ledger.termRestoredByReversal(of: index, product: product), at: now)
            let (renewal, status) = subscriptionView(of: index)
            send(
                .refundReversed, nil, to: customer, transaction: ledger.transactions[index], renewal: renewal,
                status: status)
        }
        refreshEntitlements()
    }

    // MARK: - Helpers

    func transactionIndex(_ productId: String, of customer: String, position: Int?) throws(StoreError) -> Int {
        _ = try requireProduct(productId)
        requireHistory("a transaction named by its number")
        return try ledger.purchasedTransaction(productId, of: customer, position: position)
    }

    /// The purchaser's chain whose current transaction is `index`, if any
    /// (``SubscriptionBook/chain(currentAt:of:product:)``).
    func currentChain(of index: Int) -> ChainID? {
        let record = ledger.transactions[index]
        return subscriptionBook.chain(currentAt: index, of: record, product: catalog[record.productId])
    }

    /// Renewal info and status sent with a notification about transaction `index`: the subscription's current ones
    /// (``SubscriptionBook/chain(of:product:)``).
    func subscriptionView(of index: Int) -> (RenewalSnapshot?, SubscriptionPhase?) {
        let record = ledger.transactions[index]
        guard let key = subscriptionBook.chain(of: record, product: catalog[record.productId]) else {
            return (nil, nil)
        }
        let chain = subscriptionBook.chains[key.index]
        return (renewalSnapshot(of: chain, state: chain.state), chain.state.phase)
    }

    /// A refund: through the table when it is a subscription's current transaction (the subscription ends there),
    /// otherwise on the transaction alone.
    mutating func grantRefund(_ index: Int, amount stated: RefundAmount, reason: Int32) throws(StoreError) {
        try ledger.checkNotRefunded(index)
        let amount = try ledger.resolvedRefundAmount(stated, of: index, at: now)
        if let key = currentChain(of: index) {
            try apply(.refunded(amount: amount, reason: reason), to: key)
            return
        }
        ledger.refundOneTime(index, Revocation.refund(amount, at: now, reason: reason), at: now)
        let (renewal, status) = subscriptionView(of: index)
        send(
            .refund, nil, to: ledger.transactions[index].customer, transaction: ledger.transactions[index],
            renewal: renewal, status: status)
        if ledger.transactions[index].productType == .nonConsumable {
            for share in familyBook.sharesOf(.nonConsumable(transactionIndex: index)) {
                try endShare(share, reason: reason)
            }
        }
    }
}
