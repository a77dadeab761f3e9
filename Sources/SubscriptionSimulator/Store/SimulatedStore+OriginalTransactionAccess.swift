/// The read view of access by `originalTransactionId`.
extension SimulatedStore {
    /// What `originalTransactionId` gives now, after every event at or before `now`; nil when the store never made
    /// that id. Needs the store's transaction history for one-time purchases (``StoreRetention/everything``).
    public func access(ofOriginalTransactionId originalTransactionId: String) -> OriginalTransactionAccess? {
        if let chain = subscriptionBook.chains.first(where: { $0.originalTransactionId == originalTransactionId }) {
            return OriginalTransactionAccess(of: chain)
        }
        guard
            let index = transactions.indices.first(where: {
                transactions[$0].transactionId == originalTransactionId
                    && transactions[$0].originalTransactionId == originalTransactionId
            })
        else { return nil }
        // Every subscription transaction belongs to a chain, found above.
        return OriginalTransactionAccess(
            oneTime: transactions[index], termEnd: ledger.nonRenewingTerms[index], at: now)
    }
}
