/// Apple's `revocationReason`: why the App Store refunded a transaction (reference §2.7; app-store-server-library
/// `RevocationReason`). The raw value is the wire code, and the value prints as it (`1`), as it appears in
/// `signedTransactionInfo`.
public enum RevocationReason: Int32, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `0`, `REFUNDED_FOR_OTHER_REASON`.
    case refundedForOtherReason = 0
    /// `1`, `REFUNDED_DUE_TO_ISSUE`: an actual or perceived issue within the app.
    case refundedDueToIssue = 1

    public var description: String { "\(rawValue)" }
}

/// The refund actions with a typed reason. The `Int32` forms stay: the scenario format writes the code, and
/// existing callers pass it.
extension SimulatedStore {
    /// ``refund(_:of:reason:)`` with Apple's typed reason.
    public mutating func refund(_ productId: String, of customer: String, reason: RevocationReason)
        throws(StoreError)
    {
        try refund(productId, of: customer, reason: reason.rawValue)
    }

    /// ``refund(_:of:transaction:amount:reason:)`` with Apple's typed reason.
    public mutating func refund(
        _ productId: String, of customer: String, transaction position: Int?, amount: RefundAmount,
        reason: RevocationReason
    ) throws(StoreError) {
        try refund(productId, of: customer, transaction: position, amount: amount, reason: reason.rawValue)
    }

    /// ``decideRefund(_:of:transaction:_:reason:)`` with Apple's typed reason.
    public mutating func decideRefund(
        _ productId: String, of customer: String, transaction position: Int? = nil, _ decision: RefundDecision,
        reason: RevocationReason
    ) throws(StoreError) {
        try decideRefund(productId, of: customer, transaction: position, decision, reason: reason.rawValue)
    }
}
