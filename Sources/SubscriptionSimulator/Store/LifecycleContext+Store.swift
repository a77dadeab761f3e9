extension LifecycleContext {
    /// The context the lifecycle table reads for `chain` now (``SimulatedStore/apply(_:to:)``,
    /// ``SimulatedStore/checkAllowed(_:on:)``): whether its customer's payment method works (``CustomerDirectory``),
    /// whether the product it renews to is on sale, and the app's grace period settings. Built from the parts it
    /// reads, borrowed: a method of the store would copy the store and the chain. Always inlined (the renewal path).
    @inline(__always)
    init(
        for chain: SubscriptionChain, directory: CustomerDirectory, saleStatus: SaleStatus,
        app: AppConfiguration, at now: Instant
    ) {
        let position = chain.customerPosition >= 0 ? chain.customerPosition : directory.positions[chain.customer]
        self.init(
            now: now, paymentSucceeds: !(position.map { directory.records[$0].paymentFails } ?? false),
            productForSale: saleStatus.isForSale(chain.state.autoRenewProductId),
            gracePeriod: app.gracePeriod, graceEligibility: app.graceEligibility)
    }

    /// Throws the rule of the lifecycle table that refuses `input` on `chain` now (in the context above), changing
    /// nothing.
    static func checkAllowed(
        _ input: LifecycleInput, on chain: SubscriptionChain, directory: CustomerDirectory,
        saleStatus: SaleStatus, app: AppConfiguration, at now: Instant
    ) throws(StoreError) {
        let context = LifecycleContext(
            for: chain, directory: directory, saleStatus: saleStatus, app: app, at: now)
        if case .rejected(let violation) = SubscriptionLifecycle.transition(chain.state, input, context) {
            throw .lifecycle(violation, customer: chain.customer, productId: chain.state.productId)
        }
    }
}
