/// Paid days of service from the ledger (issue 44): the count the proceeds rate reads.
extension TransactionLedger {
    /// **paid-days-of-service**: whole days of paid service in the current run of subscription purchases of `chain`
    /// (the customer's chain in a group, `nil` when they have none) at `now`, the count behind the proceeds rate rising
    /// from 70 % to 85 % after one year of paid service (reference §5.16; S-TT-RET, S-F74297):
    /// - days keep accumulating across upgrades, downgrades and crossgrades; an upgraded period counts only up to the
    ///   upgrade (its unused part is refunded, §5.10);
    /// - a resubscribe within 60 days of the end of service resumes the count; after more than 60 days it restarts
    ///   (the same gap as `recentSubscriptionStartDate`, §5.15); recovery from billing retry continues it;
    /// - free-trial periods and refunded transactions are not paid **[assumed]** (§5.16 [inferred]);
    /// - a family member's share produces no proceeds: 0 (S-RC-BLOG).
    /// Days are whole 24-hour days of the summed paid time (``paidMilliseconds(of:at:)``).
    func paidDaysOfService(of chain: SubscriptionChain?, at now: Instant) -> Int {
        guard let chain, chain.ownership == .purchased else { return 0 }
        return Int(paidMilliseconds(of: chain.originalTransactionId, at: now) / 86_400_000)
    }
}
