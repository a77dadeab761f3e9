/// The read view of access by `originalTransactionId`.
extension SimulatedStore {
    /// What `originalTransactionId` gives now, after every event at or before `now`; nil when the store never made
    /// that id. Needs the store's transaction history for one-time purchases (``StoreRetention/everything``).
    public func access(ofOriginalTransactionId originalTransactionId: String) -> OriginalTransactionAccess? {
        OriginalTransactionAccess(of: originalTransactionId, book: subscriptionBook, ledger: ledger, at: now)
    }
}
