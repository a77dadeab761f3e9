/// What the catalogue must offer in the customer's storefront before an offer is redeemed (issue 44).
extension PurchaseRequirements {
    /// Rule price-in-storefront-currency (`Catalog/Prices.swift`) for a redemption: the product and the redeemed
    /// `offer` must each have a price in the customer's `storefront`.
    static func checkOfferPrice(of product: Product, offer: SubscriptionOffer, in storefront: Storefront)
        throws(StoreError)
    {
        guard StorefrontPricing.price(of: product, in: storefront) != nil,
            StorefrontPricing.price(of: product, offer: offer, in: storefront) != nil
        else {
            throw .noPriceInStorefront(productId: product.id, storefront: storefront.countryCode)
        }
    }
}
