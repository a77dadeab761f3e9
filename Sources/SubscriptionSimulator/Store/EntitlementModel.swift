/// Which products a customer is entitled to, as a read model (issue 44, item 1): entitlements are derived from the
/// customer's subscriptions (``SubscriptionBook``) and one-time purchases (``TransactionLedger``), never toggled; the
/// store re-derives them for the customers ``CustomerDirectory/toRefresh`` names and logs each change. Stateless: the
/// store passes its parts in place.
enum EntitlementModel {
    /// Whether a customer with one subscription and no one-time purchase (the usual case) is entitled to exactly
    /// what they were: decided without building the list ``derived(ofCustomerAt:directory:book:ledger:at:)`` would
    /// (`false` otherwise, which only means "derive it").
    static func unchanged(ofCustomerAt position: Int, directory: CustomerDirectory, book: SubscriptionBook) -> Bool {
        let record = directory.records[position]
        guard record.oneTimePurchases.isEmpty, record.chains.count == 1 else { return false }
        let state = book.chains[record.chains[0].index].state
        let current = record.entitlements
        return state.isEntitled ? current.count == 1 && current[0] == state.productId : current.isEmpty
    }

    /// The products the customer at `position` is entitled to at `now`, sorted, each once: the product of each
    /// subscription whose state entitles (``SubscriptionState/isEntitled``), each non-consumable not revoked, and each
    /// non-renewing subscription not revoked whose term has not ended.
    static func derived(
        ofCustomerAt position: Int, directory: CustomerDirectory, book: SubscriptionBook, ledger: TransactionLedger,
        at now: Instant
    ) -> [String] {
        var products: [String] = []
        let record = directory.records[position]
        for key in record.chains {
            let state = book.chains[key.index].state
            if state.isEntitled { products.append(state.productId) }
        }
        for index in record.oneTimePurchases where ledger.transactions[index].revocation == nil {
            let record = ledger.transactions[index]
            switch record.productType {
            case .nonConsumable: products.append(record.productId)
            case .nonRenewing:
                if let end = ledger.nonRenewingTerms[index], now < end { products.append(record.productId) }
            case .consumable, .autoRenewable: break
            }
        }
        if products.count < 2 { return products }
        products.sort()
        var unique: [String] = []
        for product in products where unique.last != product { unique.append(product) }
        return unique
    }
}
