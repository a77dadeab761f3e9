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

/// The refund desk's rules, on the transactions and refund requests the ledger holds (reference §1.1, §1.3, §5.14,
/// A-12, A-13; the facade's `Store/SimulatedStore+Refunds.swift` orders what follows from them). Each refusal is a
/// ``RefundRuleViolation`` named by its rule.
extension TransactionLedger {
    /// Rule **prorated-percentage-in-milliunits**: a stated prorated refund's percentage is 1 to 99999 milliunits.
    static func checkRefundAmount(_ amount: RefundAmount) throws(StoreError) {
        if case .prorated(let value) = amount, !(1...99_999).contains(value) {
            throw .refunds(.invalidPercentage(value))
        }
    }

    /// A stated amount as it is; a prorated refund without a stated percentage gets the one rule
    /// **prorated-refund-by-time-remaining** gives for transaction `index` at `now`.
    func resolvedRefundAmount(_ amount: RefundAmount, of index: Int, at now: Instant) throws(StoreError)
        -> RefundAmount
    {
        guard case .proratedByTimeRemaining = amount else { return amount }
        let record = transactions[index]
        guard let expiresDate = record.expiresDate,
            let value = BillingRules.proratedRefundPercentage(
                purchaseDate: record.purchaseDate, expiresDate: expiresDate, at: now)
        else { throw .refunds(.noTimeRemaining(transactionId: record.transactionId)) }
        return .prorated(milliPercent: value)
    }

    /// The customer's own transaction of the product that a refund action names: `position` counts from 1 in purchase
    /// order (`nil`: the latest). Refused when there is none (rule **refund-needs-a-purchase**).
    func purchasedTransaction(_ productId: String, of customer: String, position: Int?) throws(StoreError) -> Int {
        let all = purchasedTransactions(productId, of: customer)
        guard !all.isEmpty else { throw .nothingToRefund(customer: customer, productId: productId) }
        guard let position else { return all[all.count - 1] }
        guard position >= 1, position <= all.count else {
            throw .refunds(
                .noSuchTransaction(customer: customer, productId: productId, position: position, count: all.count))
        }
        return all[position - 1]
    }

    /// Rule **already-refunded**: a refunded transaction is not refunded again.
    func checkNotRefunded(_ index: Int) throws(StoreError) {
        if transactions[index].revocation != nil {
            throw .refunds(.alreadyRefunded(transactionId: transactions[index].transactionId))
        }
    }

    /// Rules already-refunded and **one-refund-request-at-a-time**: a customer may ask for a refund of transaction
    /// `index` only when it is not refunded and no request of it waits for Apple's decision.
    func checkRefundRequestAllowed(_ index: Int) throws(StoreError) {
        try checkNotRefunded(index)
        if pendingRequest(for: index) != nil {
            throw .refunds(.requestPending(transactionId: transactions[index].transactionId))
        }
    }

    /// The refund request of transaction `index` waiting for Apple's decision (rule
    /// **decision-needs-a-refund-request**; its place in ``refundRequests``).
    func requirePendingRequest(for index: Int, customer: String, productId: String) throws(StoreError) -> Int {
        guard let request = pendingRequest(for: index) else {
            throw .refunds(.noPendingRequest(customer: customer, productId: productId))
        }
        return request
    }

    /// The refund request that consumption information sent at `now` answers: one waiting for Apple's decision (rule
    /// decision-needs-a-refund-request) for which Apple sent `CONSUMPTION_REQUEST` (rule
    /// **consumption-information-answers-a-consumption-request**), with the customer's consent (rule
    /// **consumption-information-needs-consent**), within 12 hours of the request (rule
    /// **consumption-information-within-12-hours**).
    func requestAnswerable(
        for index: Int, customer: String, productId: String, customerConsented: Bool, at now: Instant
    ) throws(StoreError) -> Int {
        let request = try requirePendingRequest(for: index, customer: customer, productId: productId)
        let record = refundRequests[request]
        guard record.consumptionRequested else {
            throw .refunds(.noConsumptionRequest(transactionId: transactions[index].transactionId))
        }
        guard customerConsented else { throw .refunds(.customerDidNotConsent) }
        let deadline = record.requestedAt.adding(BillingRules.consumptionInformationDeadline)
        guard now <= deadline else { throw .refunds(.consumptionInformationLate(deadline: deadline)) }
        return request
    }

    /// The transaction consumption information sent for `transactionId` answers. Rule
    /// **consumption-by-original-transaction-id**: Apple's Send Consumption Information V1 named its path parameter
    /// `originalTransactionId` ("You receive this identifier in the CONSUMPTION_REQUEST notification"), so the
    /// purchase's original id also reaches the request pending on one of its later transactions (a renewal); the
    /// latest such request is meant. For v2 [assumed] (Apple's page names `transactionId`; clients still send the
    /// original one). Refused when no transaction has the id.
    func transactionAnsweringConsumptionRequest(_ transactionId: String) throws(StoreError) -> Int {
        guard let index = transactions.indices.first(where: { transactions[$0].transactionId == transactionId }) else {
            throw .refunds(.noConsumptionRequest(transactionId: transactionId))
        }
        if pendingRequest(for: index) == nil, transactions[index].originalTransactionId == transactionId,
            let pending = transactions.indices.last(where: {
                transactions[$0].originalTransactionId == transactionId && pendingRequest(for: $0) != nil
            })
        {
            return pending
        }
        return index
    }

    /// Whether a refund request of transaction `index` makes Apple send `CONSUMPTION_REQUEST`: consumables and
    /// auto-renewable subscriptions only; none for non-consumables and non-renewing subscriptions (reference §1.2,
    /// §1.3, §5.14; S-NT, S-DATA).
    func sendsConsumptionRequest(about index: Int) -> Bool {
        Self.sendsConsumptionRequest(for: transactions[index].productType)
    }

    /// ``sendsConsumptionRequest(about:)`` for a purchase of `type`.
    static func sendsConsumptionRequest(for type: ProductType) -> Bool {
        switch type {
        case .autoRenewable, .consumable: return true
        case .nonConsumable, .nonRenewing: return false
        }
    }

    /// The place, counted from 1 in purchase order, of transaction `index` among its customer's own transactions of
    /// its product (``purchasedTransaction(_:of:position:)`` reads it back); refused as rule
    /// decision-needs-a-refund-request when it is not one of them (a family member's transaction).
    func purchasePosition(of index: Int) throws(StoreError) -> Int {
        let record = transactions[index]
        guard let offset = purchasedTransactions(record.productId, of: record.customer).firstIndex(of: index) else {
            throw .refunds(.noPendingRequest(customer: record.customer, productId: record.productId))
        }
        return offset + 1
    }

    /// Rule **refund-reversal-restores-access**, for a purchase's term: the duration a reversed refund of transaction
    /// `index` gives back, a non-renewing subscription's (`product`: the transaction's product in the catalogue);
    /// `nil` for other types, whose access needs no term.
    func termRestoredByReversal(of index: Int, product: Product?) -> CalendarDuration? {
        transactions[index].productType == .nonRenewing ? product?.duration : nil
    }

    /// A refund of transaction `index` reversed on the transaction alone (``reverseRefund(of:term:at:)``), with the
    /// term rule refund-reversal-restores-access gives back (``termRestoredByReversal(of:product:)``, its product
    /// read in `catalog`).
    mutating func reverseRefund(of index: Int, catalog: Catalog, at now: Instant) {
        reverseRefund(
            of: index, term: termRestoredByReversal(of: index, product: catalog[transactions[index].productId]), at: now
        )
    }

    /// The customer asked at `now` for a refund of transaction `index`, for `reason`; `consumptionRequested`: Apple
    /// sent `CONSUMPTION_REQUEST` (``sendsConsumptionRequest(about:)``).
    mutating func recordRefundRequest(
        of index: Int, reason: ConsumptionRequestReason, consumptionRequested: Bool, at now: Instant
    ) {
        recordRefundRequest(
            RefundRequestRecord(
                transactionIndex: index, requestedAt: now, reason: reason, consumptionRequested: consumptionRequested))
    }

    /// Rule **reversal-needs-a-refund**: only a refunded transaction's refund is reversed.
    func checkRefunded(_ index: Int) throws(StoreError) {
        guard let revocation = transactions[index].revocation, revocation.isRefund else {
            throw .refunds(.notRefunded(transactionId: transactions[index].transactionId))
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
