/// What the catalogue must offer in the customer's storefront before a purchase is made (issue 44, item 1): a price
/// there, for the product and the introductory offer the customer would get, and the monthly plan where it is bought.
/// Stateless: the store passes the customer's storefront and the parts it reads; a refusal is a ``StoreError``.
enum PurchaseRequirements {
    /// Rule price-in-storefront-currency (`Catalog/Prices.swift`): the product must have a price in `customer`'s
    /// `storefront`, and the introductory offer the customer would get on `plan` one too: an introductory offer
    /// configured for the other plan is not the customer's (rule offer-for-its-plan), and a plan change (`plan`
    /// `nil`) never carries one (rule "No introductory offer after a plan change"). `book`: who has had an
    /// introductory offer in which group.
    static func checkPrice(
        of product: Product, for customer: String, in storefront: Storefront, plan: BillingPlan?,
        book: SubscriptionBook
    ) throws(StoreError) {
        guard StorefrontPricing.price(of: product, in: storefront) != nil else {
            throw .noPriceInStorefront(productId: product.id, storefront: storefront.countryCode)
        }
        if let plan, let group = product.group, let offer = product.introOffer(for: plan),
            book.introOfferAvailable(to: customer, inGroup: group),
            StorefrontPricing.price(of: product, offer: offer, in: storefront) == nil
        {
            throw .noPriceInStorefront(productId: product.id, storefront: storefront.countryCode)
        }
    }

    /// Rules commitment-plan-needs-one-year and commitment-storefronts (`Catalog/CommitmentPlan.swift`): the monthly
    /// plan is bought only of a product that offers it, in a storefront where it is sold and priced.
    static func checkCommitmentPlan(of product: Product, in storefront: Storefront, catalog: Catalog)
        throws(StoreError)
    {
        guard product.monthlyCommitment != nil else {
            throw .commitmentUnavailable(
                productId: product.id,
                "the product has no monthly plan with a 12-month commitment; give it a `monthlyCommitment` (one-year "
                    + "subscriptions only, rule commitment-plan-needs-one-year)")
        }
        if CommitmentPlan.unavailableStorefronts.contains(storefront.countryCode) {
            throw .commitmentUnavailable(
                productId: product.id,
                "the monthly plan with a 12-month commitment is not sold in storefront \(storefront.countryCode) (rule "
                    + "commitment-storefronts: every storefront except USA and SGP)")
        }
        guard catalog.monthlyCommitmentPrice(of: product.id, in: storefront) != nil else {
            throw .commitmentUnavailable(
                productId: product.id,
                "the monthly plan has no price in storefront \(storefront.countryCode); give it one "
                    + "(`monthlyCommitment.prices`, rule price-in-storefront-currency)")
        }
    }
}
