/// A customer's refund request and what became of it.
struct RefundRequestRecord: Hashable, Sendable {
    var transactionIndex: Int
    var requestedAt: Instant
    var reason: ConsumptionRequestReason
    /// Whether Apple sent `CONSUMPTION_REQUEST` (consumables and auto-renewables only).
    var consumptionRequested: Bool
    /// The developer's Send Consumption Information answer, if any.
    var refundPreference: RefundPreference?
    var consumptionInformationSent = false
    var decided = false
}

/// A refund action the rules forbid. Each case is a named rule.
public enum RefundRuleViolation: Error, Hashable, Sendable, CustomStringConvertible {
    case noSuchTransaction(customer: String, productId: String, position: Int, count: Int)
    case alreadyRefunded(transactionId: String)
    case requestPending(transactionId: String)
    case noPendingRequest(customer: String, productId: String)
    case noConsumptionRequest(transactionId: String)
    case consumptionInformationLate(deadline: Instant)
    case customerDidNotConsent
    case invalidPercentage(Int32)
    case notRefunded(transactionId: String)
    case noTimeRemaining(transactionId: String)

    public var rule: String {
        switch self {
        case .noSuchTransaction: return "refund-needs-a-purchase"
        case .alreadyRefunded: return "already-refunded"
        case .requestPending: return "one-refund-request-at-a-time"
        case .noPendingRequest: return "decision-needs-a-refund-request"
        case .noConsumptionRequest: return "consumption-information-answers-a-consumption-request"
        case .consumptionInformationLate: return "consumption-information-within-12-hours"
        case .customerDidNotConsent: return "consumption-information-needs-consent"
        case .invalidPercentage: return "prorated-percentage-in-milliunits"
        case .notRefunded: return "reversal-needs-a-refund"
        case .noTimeRemaining: return "prorated-refund-by-time-remaining"
        }
    }

    public var description: String {
        switch self {
        case .noSuchTransaction(let customer, let productId, let position, let count):
            return "\(customer) has \(count) transaction\(count == 1 ? "" : "s") of '\(productId)'; there is no "
                + "transaction \(position) (counted from 1 in purchase order) (rule \(rule))"
        case .alreadyRefunded(let id): return "transaction \(id) is already refunded (rule \(rule))"
        case .requestPending(let id):
            return "a refund request for transaction \(id) is waiting for Apple's decision (rule \(rule))"
        case .noPendingRequest(let customer, let productId):
            return "\(customer) has no refund request of '\(productId)' waiting for a decision; use requestRefund "
                + "first (rule \(rule))"
        case .noConsumptionRequest(let id):
            return "Apple sent no CONSUMPTION_REQUEST for transaction \(id): only consumables and auto-renewable "
                + "subscriptions get one (rule \(rule))"
        case .consumptionInformationLate(let deadline):
            return "the consumption information is due within 12 hours of the CONSUMPTION_REQUEST, by \(deadline) "
                + "(rule \(rule))"
        case .customerDidNotConsent:
            return "customerConsented must be true (rule \(rule); InvalidCustomerConsentedError)"
        case .invalidPercentage(let value):
            return "a prorated refund's percentage is in milliunits, 1 to 99999 (50000 is 50 %), found \(value); "
                + "a full refund is REFUND_FULL (rule \(rule))"
        case .notRefunded(let id):
            return "transaction \(id) is not refunded, so there is no refund to reverse (rule \(rule))"
        case .noTimeRemaining(let id):
            return "transaction \(id) has no time left in its period, so a percentage by time remaining cannot be "
                + "computed; state `percentage` (milliunits) or refund in full (rule \(rule))"
        }
    }
}

/// Refunds in full (issue 14, item 5): any past transaction, prorated refunds, the customer's refund request with
/// `CONSUMPTION_REQUEST`, the developer's consumption information, Apple's decision, and reversals. Rules:
/// reference §1.1, §1.3, §4.6, §5.14 and A-12, A-13; the table rows are in `Lifecycle/TransitionTable.swift`.
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
        try checkAmount(amount)
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
        let record = ledger.transactions[index]
        if record.revocation != nil { throw .refunds(.alreadyRefunded(transactionId: record.transactionId)) }
        if ledger.pendingRequest(for: index) != nil {
            throw .refunds(.requestPending(transactionId: record.transactionId))
        }
        var consumptionRequested = false
        switch record.productType {
        case .autoRenewable:
            let key = try requireChain(productId, customer)
            try apply(.refundRequested, to: key)
            let chain = subscriptionBook.chains[key.index]
            send(
                .consumptionRequest, nil, to: customer, transaction: ledger.transactions[index],
                renewal: renewalSnapshot(of: chain, state: chain.state), status: chain.state.phase)
            emissions.noteConsumptionRequestReason(reason)
            consumptionRequested = true
        case .consumable:
            send(
                .consumptionRequest, nil, to: customer, transaction: ledger.transactions[index], renewal: nil,
                status: nil)
            emissions.noteConsumptionRequestReason(reason)
            consumptionRequested = true
        case .nonConsumable, .nonRenewing:
            break  // no CONSUMPTION_REQUEST for these types (reference §1.2, §5.14)
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
        guard let request = ledger.pendingRequest(for: index) else {
            throw .refunds(.noPendingRequest(customer: customer, productId: productId))
        }
        let record = ledger.refundRequests[request]
        guard record.consumptionRequested else {
            throw .refunds(.noConsumptionRequest(transactionId: ledger.transactions[index].transactionId))
        }
        guard customerConsented else { throw .refunds(.customerDidNotConsent) }
        let deadline = record.requestedAt.adding(BillingRules.consumptionInformationDeadline)
        guard now <= deadline else { throw .refunds(.consumptionInformationLate(deadline: deadline)) }
        ledger.noteConsumptionInformation(of: request, refundPreference: refundPreference)
    }

    /// Apple's decision on a pending refund request, at `now`: `REFUND` (as ``refund(_:of:transaction:amount:reason:)``)
    /// or `REFUND_DECLINED` to the purchaser only (members are told nothing, reference §1.3); after a decline
    /// auto-renew stays off (A-13).
    public mutating func decideRefund(
        _ productId: String, of customer: String, transaction position: Int? = nil, _ decision: RefundDecision,
        reason: Int32 = 0
    ) throws(StoreError) {
        let index = try transactionIndex(productId, of: customer, position: position)
        guard let request = ledger.pendingRequest(for: index) else {
            throw .refunds(.noPendingRequest(customer: customer, productId: productId))
        }
        switch decision {
        case .grant(let amount):
            try checkAmount(amount)
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
        guard let revocation = ledger.transactions[index].revocation, revocation.isRefund else {
            throw .refunds(.notRefunded(transactionId: ledger.transactions[index].transactionId))
        }
        if let key = currentChain(of: index), subscriptionBook.chains[key.index].state.phase == .revoked {
            try apply(.refundReversed, to: key)
        } else {
            ledger.restore(index, at: now)
            if ledger.transactions[index].productType == .nonRenewing,
                let duration = catalog[ledger.transactions[index].productId]?.duration
            {
                let end = ledger.transactions[index].purchaseDate.adding(duration)
                if now < end { ledger.startTerm(of: index, ending: end) }
            }
            let (renewal, status) = subscriptionView(of: index)
            send(
                .refundReversed, nil, to: customer, transaction: ledger.transactions[index], renewal: renewal,
                status: status)
        }
        refreshEntitlements()
    }

    // MARK: - Helpers

    /// A stated amount as it is; a prorated refund without a stated percentage gets the one rule
    /// prorated-refund-by-time-remaining gives for the transaction at `now`.
    func resolved(_ amount: RefundAmount, of record: TransactionRecord) throws(StoreError) -> RefundAmount {
        guard case .proratedByTimeRemaining = amount else { return amount }
        guard let expiresDate = record.expiresDate,
            let value = BillingRules.proratedRefundPercentage(
                purchaseDate: record.purchaseDate, expiresDate: expiresDate, at: now)
        else { throw .refunds(.noTimeRemaining(transactionId: record.transactionId)) }
        return .prorated(milliPercent: value)
    }

    func checkAmount(_ amount: RefundAmount) throws(StoreError) {
        if case .prorated(let value) = amount, !(1...99_999).contains(value) {
            throw .refunds(.invalidPercentage(value))
        }
    }

    /// The customer's own transactions of the product (purchased, not family-shared), in purchase order.
    func purchasedTransactions(_ productId: String, of customer: String) -> [Int] {
        requireHistory("a transaction named by its number")
        return ledger.purchasedTransactions(productId, of: customer)
    }

    func transactionIndex(_ productId: String, of customer: String, position: Int?) throws(StoreError) -> Int {
        _ = try requireProduct(productId)
        let all = purchasedTransactions(productId, of: customer)
        guard !all.isEmpty else { throw .nothingToRefund(customer: customer, productId: productId) }
        guard let position else { return all[all.count - 1] }
        guard position >= 1, position <= all.count else {
            throw .refunds(
                .noSuchTransaction(customer: customer, productId: productId, position: position, count: all.count))
        }
        return all[position - 1]
    }

    /// The purchaser's chain whose current transaction is `index`, if any.
    func currentChain(of index: Int) -> ChainID? {
        let record = ledger.transactions[index]
        guard record.productType == .autoRenewable, let product = catalog[record.productId],
            let key = chainKey(record.customer, product),
            subscriptionBook.chains[key.index].currentTransactionIndex == index
        else { return nil }
        return key
    }

    /// Renewal info and status sent with a notification about transaction `index`: the subscription's current ones.
    func subscriptionView(of index: Int) -> (RenewalSnapshot?, SubscriptionPhase?) {
        let record = ledger.transactions[index]
        guard record.productType == .autoRenewable, let product = catalog[record.productId],
            let key = chainKey(record.customer, product)
        else { return (nil, nil) }
        let chain = subscriptionBook.chains[key.index]
        return (renewalSnapshot(of: chain, state: chain.state), chain.state.phase)
    }

    /// A refund: through the table when it is a subscription's current transaction (the subscription ends there),
    /// otherwise on the transaction alone.
    mutating func grantRefund(_ index: Int, amount stated: RefundAmount, reason: Int32) throws(StoreError) {
        let record = ledger.transactions[index]
        if record.revocation != nil { throw .refunds(.alreadyRefunded(transactionId: record.transactionId)) }
        let amount = try resolved(stated, of: record)
        if let key = currentChain(of: index) {
            try apply(.refunded(amount: amount, reason: reason), to: key)
            return
        }
        ledger.revoke(index, Revocation.refund(amount, at: now, reason: reason), at: now)
        ledger.endTerm(of: index)
        let (renewal, status) = subscriptionView(of: index)
        send(
            .refund, nil, to: record.customer, transaction: ledger.transactions[index], renewal: renewal, status: status
        )
        if record.productType == .nonConsumable {
            for share in familyBook.sharesOf(.nonConsumable(transactionIndex: index)) {
                try endShare(share, reason: reason)
            }
        }
    }
}

extension Revocation {
    /// A refund's revocation: `REFUND_FULL` (100000) or `REFUND_PRORATED` with its percentage (reference §5.14).
    static func refund(_ amount: RefundAmount, at date: Instant, reason: Int32) -> Revocation {
        switch amount {
        case .full: return Revocation(date: date, reason: reason, kind: .refundFull)
        case .proratedByTimeRemaining:
            preconditionFailure("grantRefund resolves a percentage by time remaining before it revokes")
        case .prorated(let value):
            return Revocation(date: date, reason: reason, kind: .refundProrated, proratedPercentage: value)
        }
    }
}
