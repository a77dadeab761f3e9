/// Account-level fields of transactions and renewal info: `storefront`/`storefrontId`, the price in that storefront,
/// `appTransactionId` and `appAccountToken`.
extension SimulatedStore {
    /// Puts a customer in a storefront (default: `app.storefront`), until they have a transaction
    /// (``CustomerDirectory/storefrontIsFixed(ofCustomerAt:)``).
    public mutating func setStorefront(_ storefront: Storefront, for customer: String) throws(StoreError) {
        try directory.setStorefront(storefront, ofCustomerAt: register(customer), default: app.storefront)
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

    /// A purchase whose app supplies an `appAccountToken` (rule app-account-token-is-a-uuid, ``AppAccountToken``): the
    /// customer's transactions and renewal info carry it from this purchase on (``AccountFields``; never a member's).
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

    /// Rule price-in-storefront-currency in the customer's storefront
    /// (``PurchaseRequirements/checkPrice(of:for:in:plan:book:)``).
    func requirePrice(of product: Product, for customer: String, plan: BillingPlan?) throws(StoreError) {
        try PurchaseRequirements.checkPrice(
            of: product, for: customer, in: storefront(of: customer), plan: plan, book: subscriptionBook)
    }

    /// Rules commitment-plan-needs-one-year and commitment-storefronts in the customer's storefront
    /// (``PurchaseRequirements/checkCommitmentPlan(of:in:catalog:)``).
    func requireCommitmentPlan(of product: Product, for customer: String) throws(StoreError) {
        try PurchaseRequirements.checkCommitmentPlan(of: product, in: storefront(of: customer), catalog: catalog)
    }
}
