/// Which running commitments keep their monthly price when a rise of it is set (issue 44, item 1): the lock is taken
/// by the part that holds the locks, from the book's chains and the catalogue's prices; the store facade calls it
/// before it puts the new price in the catalogue.
extension CommitmentPriceLocks {
    /// Rule **commitment-price-increase-at-commitment-renewal**: before the monthly price at `target` changes, each
    /// commitment of `subscriptions` running to the product in the target's storefronts
    /// (``PriceTarget/keepsCommitmentPrice(_:in:)``; its purchaser shops in `storefront(customer)`) keeps the price it
    /// was sold at in the purchaser's storefront (`catalog`'s monthly price there, before the change), unless it keeps
    /// one already. The lock is dropped at the next period 1 (``priceForCharge(ofPeriod:of:inGroup:currency:)``).
    mutating func keepPrices(
        for target: PriceTarget, of subscriptions: SubscriptionBook, catalog: Catalog,
        storefront: (String) -> Storefront
    ) {
        for chain in subscriptions.chains where target.keepsCommitmentPrice(chain, in: storefront(chain.customer)) {
            if !keepsPrice(of: chain.customer, inGroup: chain.groupIdentifier),
                let old = catalog.monthlyCommitmentPrice(of: target.productId, in: storefront(chain.customer))
            {
                keep(
                    StorefrontPrice(price: old.price, currency: old.currency), of: chain.customer,
                    inGroup: chain.groupIdentifier)
            }
        }
    }

    /// ``keepPrices(for:of:catalog:storefront:)`` when `target` is the monthly plan's price (a rise of the up-front
    /// price locks nothing), each purchaser shopping in `directory`'s storefront for them (`fallback` when none).
    mutating func keepPrices(
        for target: PriceTarget, of subscriptions: SubscriptionBook, catalog: Catalog, directory: CustomerDirectory,
        default fallback: Storefront
    ) {
        guard target.plan == .monthly else { return }
        keepPrices(
            for: target, of: subscriptions, catalog: catalog,
            storefront: { directory.storefront(of: $0, default: fallback) })
    }
}
