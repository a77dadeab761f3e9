/// The read view of access by `originalTransactionId`.
extension SimulatedStore {
    /// What `originalTransactionId` gives now, after every event at or before `now`; nil when the store never made
    /// that id. Needs the store's transaction history for one-time purchases (``StoreRetention/everything``).
    public func access(ofOriginalTransactionId originalTransactionId: String) -> OriginalTransactionAccess? {
        if let chain = subscriptionBook.chains.first(where: { $0.originalTransactionId == originalTransactionId }) {
            return OriginalTransactionAccess(
                originalTransactionId: originalTransactionId, customer: chain.customer,
                kind: chain.ownership == .purchased ? .subscription : .familySharedSubscription,
                grantsAccess: chain.state.isEntitled, productId: chain.state.productId)
        }
        guard
            let index = transactions.indices.first(where: {
                transactions[$0].transactionId == originalTransactionId
                    && transactions[$0].originalTransactionId == originalTransactionId
            })
        else { return nil }
        let record = transactions[index]
        let revoked = record.revocation != nil
        let kind: OriginalTransactionAccess.Kind
        let grants: Bool
        switch record.productType {
        case .nonConsumable:
            kind = record.ownership == .purchased ? .nonConsumable : .familySharedNonConsumable
            grants = !revoked
        case .consumable:
            kind = .consumable
            grants = false
        case .nonRenewing:
            kind = .nonRenewingSubscription
            grants = !revoked && (ledger.nonRenewingTerms[index].map { now < $0 } ?? false)
        case .autoRenewable:
            // Every subscription transaction belongs to a chain, found above.
            return nil
        }
        return OriginalTransactionAccess(
            originalTransactionId: originalTransactionId, customer: record.customer, kind: kind, grantsAccess: grants,
            productId: record.productId)
    }
}
