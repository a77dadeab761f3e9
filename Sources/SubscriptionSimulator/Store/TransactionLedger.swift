/// The store's transactions (``TransactionLog``, by creation index), the order in which they were created and
/// changed, the terms of non-renewing subscriptions and the customers' refund requests.
///
/// The modification order is what the history's `revision` token reads (rule history-revision-is-a-modification-token,
/// `ServerAPI/ServerAPIRequests.swift`): every creation (``append(_:at:)``) and every change of a recorded
/// transaction (a refund, a Family Sharing revocation, an extension, `isUpgraded`) goes through
/// ``markModified(_:at:)``.
///
/// Invariants (``isConsistent``, over the transactions held): each transaction's `modificationSequence` is between 1
/// and `modifications`, no two are equal, and a later `modificationSequence` never has an earlier `lastModified`;
/// `nonRenewingTerms` and `refundRequests` name transactions that exist.
struct TransactionLedger: Sendable {
    /// Every transaction, in creation order.
    private(set) var transactions = TransactionLog()
    /// Transaction creations and changes so far.
    private(set) var modifications = 0
    /// Active terms of non-renewing subscriptions: transaction index → end of term.
    private(set) var nonRenewingTerms: [Int: Instant] = [:]
    /// Every refund request, in the order made.
    private(set) var refundRequests: [RefundRequestRecord] = []

    /// The index the next transaction appended gets.
    var nextIndex: Int { transactions.endIndex }

    /// Records a transaction created at `now`, last in the modification order; returns its shared fields. The record
    /// is consumed: moved into the log, never copied (a copy retains its shared fields and identifiers).
    mutating func append(_ record: consuming TransactionRecord, at now: Instant) -> TransactionRecord.Box {
        modifications += 1
        record.lastModified = now
        record.modificationSequence = modifications
        let box = record.box
        transactions.append(record)
        return box
    }

    /// Puts a transaction last in the modification order (a change at `now`: refund, revocation, ...).
    mutating func markModified(_ index: Int, at now: Instant) {
        modifications += 1
        transactions[index].lastModified = now
        transactions[index].modificationSequence = modifications
    }

    // MARK: - Charges, revocations and other changes (each one a modification, at `now`)

    /// Revokes transaction `index` (a refund, a Family Sharing revocation).
    mutating func revoke(_ index: Int, _ revocation: Revocation, at now: Instant) {
        transactions[index].revocation = revocation
        markModified(index, at: now)
    }

    /// Removes transaction `index`'s revocation (a refund reversed).
    mutating func restore(_ index: Int, at now: Instant) {
        transactions[index].revocation = nil
        markModified(index, at: now)
    }

    /// Marks transaction `index` `isUpgraded` (reference §5.10, A-14).
    mutating func markUpgraded(_ index: Int, at now: Instant) {
        transactions[index].isUpgraded = true
        markModified(index, at: now)
    }

    /// Moves transaction `index`'s `expiresDate`, and its commitment's end when it has one and `commitmentExpiresDate`
    /// is given (rule commitment-extension-shift).
    mutating func extend(_ index: Int, to expiresDate: Instant, commitmentExpiresDate: Instant?, at now: Instant) {
        transactions[index].expiresDate = expiresDate
        if let commitmentExpiresDate, transactions[index].commitment != nil {
            transactions[index].commitment?.expiresDate = commitmentExpiresDate
        }
        markModified(index, at: now)
    }

    /// Sets the `appAccountToken` of transaction `index` (Set App Account Token), keeping its other account fields.
    mutating func setAppAccountToken(_ token: String, of index: Int, at now: Instant) {
        var record = transactions[index]
        record.setAccountFields(
            storefront: record.storefront, appTransactionId: record.appTransactionId, appAccountToken: token,
            currency: record.currency)
        transactions[index] = record
        markModified(index, at: now)
    }

    /// The non-renewing transaction `index` gives access until `end`.
    mutating func startTerm(of index: Int, ending end: Instant) { nonRenewingTerms[index] = end }

    /// The non-renewing transaction `index` no longer gives access (refunded).
    mutating func endTerm(of index: Int) { nonRenewingTerms[index] = nil }

    /// A refund of transaction `index` that is no subscription's current one: revoked, and a non-renewing term ends.
    mutating func refundOneTime(_ index: Int, _ revocation: Revocation, at now: Instant) {
        revoke(index, revocation, at: now)
        endTerm(of: index)
    }

    /// A refund of transaction `index` reversed (rule refund-reversal-restores-access): the revocation removed and,
    /// for a non-renewing subscription of duration `term`, its term given back when it has not ended by `now`.
    mutating func reverseRefund(of index: Int, term: CalendarDuration?, at now: Instant) {
        restore(index, at: now)
        if let term {
            let end = transactions[index].purchaseDate.adding(term)
            if now < end { startTerm(of: index, ending: end) }
        }
    }

    // MARK: - Refund requests

    /// Records a customer's refund request.
    mutating func recordRefundRequest(_ request: RefundRequestRecord) { refundRequests.append(request) }

    /// The developer sent consumption information for refund request `request`.
    mutating func noteConsumptionInformation(of request: Int, refundPreference: RefundPreference?) {
        refundRequests[request].consumptionInformationSent = true
        refundRequests[request].refundPreference = refundPreference
    }

    /// Apple decided refund request `request`.
    mutating func markDecided(_ request: Int) { refundRequests[request].decided = true }

    /// The refund request of transaction `index` waiting for Apple's decision, if any (its place in
    /// `refundRequests`).
    func pendingRequest(for index: Int) -> Int? {
        refundRequests.lastIndex { $0.transactionIndex == index && !$0.decided }
    }

    /// The customer's transactions, in creation order.
    func transactions(of customer: String) -> [TransactionRecord] {
        transactions.filter { $0.customer == customer }
    }

    /// The latest of `purchases` (one customer's one-time purchases, by index) that is of `productId`, the
    /// customer's own (not family-shared) and not refunded.
    func latestUnrefundedPurchase(_ productId: String, among purchases: [Int]) -> Int? {
        purchases.last {
            transactions[$0].productId == productId && transactions[$0].ownership == .purchased
                && transactions[$0].revocation == nil
        }
    }

    /// The customer's own transactions of the product (purchased, not family-shared), in purchase order.
    func purchasedTransactions(_ productId: String, of customer: String) -> [Int] {
        transactions.indices.filter {
            transactions[$0].customer == customer && transactions[$0].productId == productId
                && transactions[$0].ownership == .purchased
        }
    }

    /// **paid-days-of-service**'s paid time, in milliseconds, of the current run of purchases of the subscription
    /// `originalTransactionId` at `now` (``TransactionLedger/paidDaysOfService(of:at:)`` in
    /// `TransactionLedger+PaidDays.swift` states the rule).
    func paidMilliseconds(of originalTransactionId: String, at now: Instant) -> Int64 {
        let records = transactions.filter { $0.originalTransactionId == originalTransactionId }
            .sorted { $0.purchaseDate < $1.purchaseDate }
        var paid: Int64 = 0
        var serviceEnd: Instant?
        for (index, record) in records.enumerated() {
            let start = record.purchaseDate
            if start >= now { break }
            if let serviceEnd, serviceEnd.adding(BillingRules.recentStartGapAllowance) < start { paid = 0 }
            var end = min(record.expiresDate ?? now, now)
            if record.isUpgraded, index + 1 < records.count { end = min(end, records[index + 1].purchaseDate) }
            if let revocation = record.revocation { end = min(end, revocation.date) }
            let isPaid = record.revocation == nil && record.offer?.mode != .freeTrial
            if isPaid && start < end { paid += start.milliseconds(to: end) }
            serviceEnd = max(serviceEnd ?? end, end)
        }
        return paid
    }

    /// Keeps, of the transactions before the log's window, only `live` ones and those not auto-renewable
    /// (``StoreRetention/liveState``, ``TransactionLog/keepOnly(_:orNotAutoRenewable:)``).
    mutating func keepOnly(_ live: [Int]) { transactions.keepOnly(live, orNotAutoRenewable: true) }

    /// Room for `count` transactions.
    mutating func reserveCapacity(_ count: Int) { transactions.reserveCapacity(count) }

    /// Whether the invariants in the type's documentation hold.
    var isConsistent: Bool {
        let held = transactions.indices.map { transactions[$0] }
        let sequences = held.map(\.modificationSequence)
        guard sequences.allSatisfy({ (1...max(modifications, 1)).contains($0) }),
            Set(sequences).count == sequences.count
        else { return false }
        let byOrder = held.sorted { $0.modificationSequence < $1.modificationSequence }
        guard zip(byOrder, byOrder.dropFirst()).allSatisfy({ $0.lastModified <= $1.lastModified }) else { return false }
        return nonRenewingTerms.keys.allSatisfy { $0 < transactions.endIndex }
            && refundRequests.allSatisfy { $0.transactionIndex < transactions.endIndex }
    }
}
