/// Account-level fields of transactions and renewal info: `storefront`/`storefrontId`, the price in that storefront,
/// `appTransactionId` and `appAccountToken`.
extension SimulatedStore {
    /// Puts a customer in a storefront (default: `app.storefront`), until they have a transaction
    /// (``CustomerDirectory/storefrontIsFixed(ofCustomerAt:)``).
    public mutating func setStorefront(_ storefront: Storefront, for customer: String) throws(StoreError) {
        let position = register(customer)
        if storefront == self.storefront(of: customer) { return }
        if directory.storefrontIsFixed(ofCustomerAt: position) {  // rule storefront-fixed-per-customer
            throw .storefrontFixed(customer: customer, storefront: self.storefront(of: customer).countryCode)
        }
        directory.setStorefront(storefront, for: customer)
    }

    /// The customer's storefront: their own, or the app's default.
    public func storefront(of customer: String) -> Storefront {
        directory.storefront(of: customer, default: app.storefront)
    }

    /// The customer's `appTransactionId` (``CustomerDirectory/appTransactionId(of:)``).
    public func appTransactionId(of customer: String) -> String? {
        directory.appTransactionId(of: customer)
    }

    /// The `appAccountToken` the customer's transactions carry now, if their app supplied one.
    public func appAccountToken(of customer: String) -> String? {
        directory.appAccountToken(of: customer)
    }

    /// A purchase whose app supplies an `appAccountToken` (a lowercase UUID; rule app-account-token-is-a-uuid).
    /// The token appears in the customer's transactions and renewal info from this purchase on, and never in a family
    /// member's (reference §4.5). Apple refuses a token that is not a UUID (`InvalidAppAccountTokenUUIDError`,
    /// 4000183).
    public mutating func purchase(
        _ productId: String, by customer: String, appAccountToken: String?, plan: BillingPlan = .upfront
    ) throws(StoreError) {
        guard let token = appAccountToken else { return try purchase(productId, by: customer, plan: plan) }
        if let problem = AppAccountToken.problem(with: token) {
            throw .invalidAppAccountToken(token, problem)
        }
        let product = try requireProduct(productId)
        try requirePrice(of: product, for: customer, plan: plan)
        let previous = directory.setAppAccountToken(token, for: customer)
        do throws(StoreError) { try purchase(productId, by: customer, plan: plan) } catch {
            directory.setAppAccountToken(previous, for: customer)
            throw error
        }
    }

    /// Rule price-in-storefront-currency (`Catalog/Prices.swift`): the product must have a price in the customer's
    /// storefront, and the introductory offer the customer would get on `plan` one too: an introductory offer
    /// configured for the other plan is not the customer's (rule offer-for-its-plan), and a plan change (`plan`
    /// `nil`) never carries one (rule "No introductory offer after a plan change").
    func requirePrice(of product: Product, for customer: String, plan: BillingPlan?) throws(StoreError) {
        let storefront = storefront(of: customer)
        guard StorefrontPricing.price(of: product, in: storefront) != nil else {
            throw .noPriceInStorefront(productId: product.id, storefront: storefront.countryCode)
        }
        if let plan, let group = product.group, let offer = product.introOffer(for: plan),
            subscriptionBook.introOfferAvailable(to: customer, inGroup: group),
            StorefrontPricing.price(of: product, offer: offer, in: storefront) == nil
        {
            throw .noPriceInStorefront(productId: product.id, storefront: storefront.countryCode)
        }
    }
}

extension SimulatedStore {
    /// Who pays for `chain` (``CustomerDirectory/purchaser(of:)``).
    func purchaser(of chain: SubscriptionChain) -> String {
        directory.purchaser(of: chain)
    }

    /// The monthly plan's price of `productId` in `storefront` (``Catalog/monthlyCommitmentPrice(of:in:)``).
    func monthlyCommitmentPrice(of productId: String, in storefront: Storefront) -> (price: Price, currency: String)? {
        catalog.monthlyCommitmentPrice(of: productId, in: storefront)
    }

    /// Rules commitment-plan-needs-one-year and commitment-storefronts (`Catalog/CommitmentPlan.swift`): the monthly
    /// plan is bought only of a product that offers it, in a storefront where it is sold and priced.
    func requireCommitmentPlan(of product: Product, for customer: String) throws(StoreError) {
        guard product.monthlyCommitment != nil else {
            throw .commitmentUnavailable(
                productId: product.id,
                "the product has no monthly plan with a 12-month commitment; give it a `monthlyCommitment` (one-year "
                    + "subscriptions only, rule commitment-plan-needs-one-year)")
        }
        let storefront = storefront(of: customer)
        if CommitmentPlan.unavailableStorefronts.contains(storefront.countryCode) {
            throw .commitmentUnavailable(
                productId: product.id,
                "the monthly plan with a 12-month commitment is not sold in storefront \(storefront.countryCode) (rule "
                    + "commitment-storefronts: every storefront except USA and SGP)")
        }
        guard monthlyCommitmentPrice(of: product.id, in: storefront) != nil else {
            throw .commitmentUnavailable(
                productId: product.id,
                "the monthly plan has no price in storefront \(storefront.countryCode); give it one "
                    + "(`monthlyCommitment.prices`, rule price-in-storefront-currency)")
        }
    }
}
