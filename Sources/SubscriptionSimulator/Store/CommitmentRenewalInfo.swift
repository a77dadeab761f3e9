/// The renewal info of a subscription on the monthly plan with a 12-month commitment, or about to start one (issue 44,
/// item 1): the rules that say what the renewal info reports at the top level and in `commitmentInfo`, worked out from
/// the catalogue's prices in the purchaser's storefront, the price increases the purchaser was told of and the prices
/// running commitments keep. The store facade passes its parts in place (no copies: this runs on every renewal info of
/// a commitment) and the snapshot it builds.
enum CommitmentRenewalInfo {
    /// **commitment-renewal-info**: inside a commitment the renewal info describes the next monthly period at the top
    /// level (`autoRenewProductId` the current product, `renewalPrice` the monthly price, `renewalBillingPlanType`
    /// MONTHLY) and what follows the commitment in `commitmentInfo` (reference Appendix E P10-P12; A3 sample). A
    /// product chosen for after the commitment (a downgrade or crossgrade, rule commitment-downgrade-at-end) is
    /// `commitmentAutoRenewProductId` with its up-front plan [inferred: E.1.7 G2], or the plan the customer chose
    /// (`commitmentRenewalBillingPlanType`, `commitmentRenewalPrice` that plan's price: the up-front price, or the
    /// monthly price as for a renewing commitment; A3 sample: the current product's up-front plan chosen for after
    /// the commitment, rule billing-plan-switch-at-renewal); in the 12th period it is the next period's product and
    /// plan at the top level too.
    ///
    /// `purchaser`: who pays for `chain` (a member's share renews at the purchaser's commitment's price, A-15), who
    /// shops in `storefront`.
    static func add(
        _ commitment: CommitmentState, of chain: SubscriptionChain, state: SubscriptionState, purchaser: String,
        storefront: Storefront, catalog: Catalog, schedule: PriceIncreaseSchedule, locks: CommitmentPriceLocks,
        to snapshot: inout RenewalSnapshot
    ) {
        // The next monthly period: the commitment's own price after an increase during it (rule
        // commitment-price-increase-at-commitment-renewal); the next commitment: the plan's price now, or the new
        // price of a rise not started yet that the purchaser has been told of (rule
        // commitment-price-increase-with-start-date).
        let catalogPrice = catalog.monthlyCommitmentPrice(of: state.productId, in: storefront)
        var current = catalogPrice
        if schedule.upcoming > 0, state.priceIncrease != nil, let found = catalogPrice,
            let told = schedule.toldPriceNotStarted(
                of: state.productId, to: chain.originalTransactionId, plan: .monthly)
        {
            current = (told, found.currency)
        }
        // A member's share renews at the purchaser's commitment's price.
        let monthly =
            commitment.isLastPeriod
            ? current : locks.kept(of: purchaser, inGroup: chain.groupIdentifier) ?? catalogPrice
        let after = state.pendingChange?.productId ?? state.productId
        let afterPlan = state.pendingChange?.plan ?? .monthly
        let afterPrice =
            afterPlan == .monthly
            ? (after == state.productId ? current : catalog.monthlyCommitmentPrice(of: after, in: storefront))?.price
            : catalog.storefrontPrice(of: after, offer: nil, in: storefront)?.price
        let changesNext = commitment.isLastPeriod && state.pendingChange != nil
        if !changesNext {
            snapshot.autoRenewProductId = state.productId
            if snapshot.upcomingOffer == nil, let monthly { snapshot.renewalPrice = monthly.price }
        } else if afterPlan == .monthly, snapshot.upcomingOffer == nil, let afterPrice {
            // The next period is the first of a commitment to another product: its monthly price.
            snapshot.renewalPrice = afterPrice
        }
        snapshot.commitment = RenewalCommitment(
            nextPeriodPlan: changesNext ? afterPlan : .monthly, autoRenewProductId: after,
            autoRenewOn: commitment.autoRenew, renewalPlan: afterPlan, renewalDate: commitment.expiresDate,
            renewalPrice: afterPrice ?? .free)
    }

    /// **billing-plan-switch-at-renewal**, outside a commitment: an up-front subscription whose next renewal starts a
    /// commitment (the monthly plan chosen with `changePlan`) reports that renewal's plan, `renewalBillingPlanType`
    /// `MONTHLY` (E P11: the plan of the next billing period), and its monthly price as `renewalPrice`; no
    /// `commitmentInfo`, which is "only present … when the subscription is currently in a commitment" (E P10; A3).
    /// `storefront`: the purchaser's.
    static func addPendingMonthlyPlan(
        _ change: PurchaseRequest, of chain: SubscriptionChain, storefront: Storefront, catalog: Catalog,
        schedule: PriceIncreaseSchedule, to snapshot: inout RenewalSnapshot
    ) {
        snapshot.renewalPlan = .monthly
        if snapshot.renewalPrice != nil, snapshot.upcomingOffer == nil,
            let monthly = catalog.monthlyCommitmentPrice(of: change.productId, in: storefront)
        {
            // Told of a rise of the monthly price not started yet: the commitment starting at the renewal pays it
            // (rule commitment-price-increase-with-start-date).
            let told =
                schedule.upcoming > 0
                ? schedule.toldPriceNotStarted(of: change.productId, to: chain.originalTransactionId, plan: .monthly)
                : nil
            snapshot.renewalPrice = told ?? monthly.price
        }
    }
}

extension Catalog {
    /// The monthly plan's price of `productId` in `storefront` (rules price-in-storefront-currency,
    /// commitment-storefronts); `nil` when the product has no such plan or no price there.
    func monthlyCommitmentPrice(of productId: String, in storefront: Storefront) -> (price: Price, currency: String)? {
        guard let index = index(of: productId), let plan = products[index].monthlyCommitment else { return nil }
        return plan.price(currency: products[index].currency, in: storefront)
    }
}
