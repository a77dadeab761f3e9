/// What a change of a purchaser's current transaction reaches among the family (issue 44, item 1): the members'
/// current transactions that `isUpgraded` and a renewal-date extension re-sign with the purchaser's (reference §4.4,
/// §4.5, §5.10, §5.13, A-14, S-EXT-FS). A file of its own beside `FamilyBook.swift` (the share records) and
/// `FamilyBook+Shares.swift` (who shares what); the store's coordination of refunds, extensions and plan changes
/// reads it.
extension FamilyBook {
    /// The ledger index of the current transaction of each fan-out member of the purchaser's chain `key`
    /// (``fanOutTargets(of:)``: the member chains of its granted shares, members in family order), skipping a member
    /// chain that has no transaction yet. Empty, without allocating, when the store shares nothing.
    func fanOutCurrentTransactions(of key: ChainID, in subscriptions: SubscriptionBook) -> [Int] {
        let targets = fanOutTargets(of: key)
        if targets.isEmpty { return [] }
        var indices: [Int] = []
        indices.reserveCapacity(targets.count)
        for member in targets {
            let index = subscriptions.chains[member.index].currentTransactionIndex
            if index >= 0 { indices.append(index) }
        }
        return indices
    }
}
