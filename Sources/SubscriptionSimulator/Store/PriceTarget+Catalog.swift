/// What an increase at a ``PriceTarget`` changes in the catalogue, and which running commitments keep their price
/// (issue 44, item 1): the store facade replaces the product and keeps the prices in ``CommitmentPriceLocks``.
extension PriceTarget {
    /// `product` with `newPrice` where this target says: the storefront's own price, or the base price, which applies
    /// to every storefront of the product's currency (one price applies per currency, `Catalog/Prices.swift`); of the
    /// product's own (up-front) price or its monthly plan's.
    func raising(_ product: Product, to newPrice: Price) -> Product {
        var product = product
        switch (plan, storefront) {
        case (.upfront, let code?): product.prices[code] = newPrice
        case (.upfront, nil): product.price = newPrice
        case (.monthly, let code?): product.monthlyCommitment?.prices[code] = newPrice
        case (.monthly, nil): product.monthlyCommitment?.monthlyPrice = newPrice
        }
        return product
    }

    /// Rule **commitment-price-increase-at-commitment-renewal**: whether `chain`, whose purchaser shops in
    /// `storefront`, is a commitment running to this target's product in a storefront of the target, which keeps the
    /// monthly price it was sold at to its end when the monthly price changes (whatever follows the commitment).
    func keepsCommitmentPrice(_ chain: SubscriptionChain, in storefront: Storefront) -> Bool {
        chain.ownership == .purchased && chain.state.commitment != nil && chain.state.productId == productId
            && covers(storefront)
    }

    /// Whether an increase at this target reaches `chain`, whose purchaser shops in `storefront`: its plan
    /// (``reachesPlan(of:)``, rule price-increase-reaches-its-plan) in a storefront of the increase (``covers(_:)``).
    /// `storefront` is read only when the plan is reached.
    func reaches(_ chain: SubscriptionChain, in storefront: @autoclosure () -> Storefront) -> Bool {
        reachesPlan(of: chain) && covers(storefront())
    }
}
