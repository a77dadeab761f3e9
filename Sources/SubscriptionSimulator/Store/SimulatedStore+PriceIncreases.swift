/// Price increases of auto-renewable subscriptions (reference §5.12, §1.1).
extension SimulatedStore {
    /// The developer raises an auto-renewable subscription's price: in one storefront (`storefront`, ISO 3166-1
    /// alpha-3) or, when `storefront` is `nil`, in every storefront of the product's own currency (its base `price`;
    /// a storefront of that currency also changes the base price, since one price applies per currency,
    /// `Catalog/Prices.swift`).
    ///
    /// New purchases pay the new price at once. Each purchaser whose subscription renews to the product
    /// (`autoRenewProductId`: a pending downgrade counts for the product it renews to) and is active in an affected
    /// storefront is told now (rule price-increase-consent): `PRICE_INCREASE` / `PENDING` when
    /// `consentRequired`, else `PRICE_INCREASE` / `ACCEPTED`; the new price is charged from the next renewal on
    /// (`renewalPrice` shows it at once). Without consent by then the subscription expires (rule
    /// price-increase-not-consented). Family members get no `PRICE_INCREASE` (rule member-notifications, reference
    /// §1.3) and no `priceIncreaseStatus`; they follow the purchaser's renewal or expiry. Apple's notice periods
    /// (the increase reaching subscribers weeks after it is set) are not modelled [assumed: the next renewal].
    ///
    /// Rule **price-increase-raises-price**: the new price must be above the current one there.
    public mutating func raisePrice(
        _ productId: String, to newPrice: Price, in storefront: String? = nil, consentRequired: Bool
    ) throws(StoreError) {
        var product = try requireProduct(productId)
        guard product.type == .autoRenewable else {
            throw .priceIncrease(
                productId: productId,
                "only auto-renewable subscriptions have price increases; a one-time product's new price is a new "
                    + "catalogue entry")
        }
        var affectedCurrency: String? = product.currency
        var affectedStorefront: String? = nil
        if let code = storefront {
            guard let currency = Storefronts.currency(countryCode: code) else {
                throw .priceIncrease(
                    productId: productId,
                    "unknown storefront '\(code)'; expected an ISO 3166-1 alpha-3 code such as FRA")
            }
            if currency != product.currency {
                guard let old = product.prices[code] else {
                    throw .noPriceInStorefront(productId: productId, storefront: code)
                }
                guard newPrice > old else {
                    throw .priceIncrease(
                        productId: productId, "the new price \(newPrice) is not above \(old) in \(code)")
                }
                product.prices[code] = newPrice
                affectedCurrency = nil
                affectedStorefront = code
            }
        }
        if affectedCurrency != nil {
            guard newPrice > product.price else {
                throw .priceIncrease(
                    productId: productId, "the new price \(newPrice) is not above \(product.price) \(product.currency)")
            }
            product.price = newPrice
        }
        do throws(CatalogError) { try catalog.replace(product) } catch { throw .catalog(error) }
        for index in subscriptionBook.chains.indices
        where subscriptionBook.chains[index].ownership == .purchased
            && subscriptionBook.chains[index].state.autoRenewProductId == productId
        {
            let customerStorefront = self.storefront(of: subscriptionBook.chains[index].customer).countryCode
            let affected =
                affectedStorefront.map { $0 == customerStorefront }
                ?? (Storefronts.currency(countryCode: customerStorefront) == affectedCurrency
                    || Storefronts.currency(countryCode: customerStorefront) == nil)
            if affected {
                try apply(.priceIncreaseAnnounced(needsConsent: consentRequired), to: ChainID(index: index))
            }
        }
        refreshEntitlements()
    }

    /// The customer consents to the price increase waiting for them: `PRICE_INCREASE` / `ACCEPTED`,
    /// `priceIncreaseStatus` 1 (reference §5.12). Refused when none waits (rule no-price-increase-pending).
    public mutating func consentToPriceIncrease(_ productId: String, by customer: String) throws(StoreError) {
        try apply(.priceIncreaseConsented, to: try requireChain(productId, customer))
        refreshEntitlements()
    }
}
