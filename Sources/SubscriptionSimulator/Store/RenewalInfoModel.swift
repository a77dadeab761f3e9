/// The renewal info of a subscription as a read model (issue 44, item 1): the ``RenewalSnapshot`` a notification, a
/// status or the device view reports, built from the chain, the state it reports (the chain's own or an interim one)
/// and the store's parts it reads: the catalogue, the price-increase schedule, the commitment locks, the customer
/// directory's account fields, what Set App Account Token left and the ledger's paid time (win-back). Stateless: the
/// store passes its parts in place, as borrowed arguments (a copy would retain each of their arrays and dictionaries;
/// this runs on every notification, issue 27).
enum RenewalInfoModel {
    /// The renewal info of `chain` reporting `state` at `now`. `productAt`: the place of `state.productId` in the
    /// catalogue, when the caller has looked it up; `defaultStorefront`: the app's. Always inlined into the store's
    /// two `renewalSnapshot` entry points, so that `state` is read where it lies.
    @inline(__always)
    static func snapshot(
        of chain: SubscriptionChain, state: SubscriptionState, productAt known: Int?, catalog: Catalog,
        directory: CustomerDirectory, serverRequests: ServerRequestRecords, schedule: PriceIncreaseSchedule,
        locks: CommitmentPriceLocks, ledger: TransactionLedger, defaultStorefront: Storefront, at now: Instant
    ) -> RenewalSnapshot {
        // Products are read in place by index: a copy would retain each of their strings, arrays and dictionaries.
        let product = known ?? catalog.index(of: state.productId)!
        let products = catalog.products
        let upcoming = SubscriptionLifecycle.followingOffer(state)
        let expirationIntent: EndReason?
        switch state.phase {
        case .active, .revoked: expirationIntent = nil
        case .expired, .billingRetry, .gracePeriod: expirationIntent = state.endReason
        }
        // After a downgrade the renewal is priced as the pending product (reference §5.10; renewalPrice §2.6).
        let renewing = state.pendingChange == nil ? product : (catalog.index(of: state.autoRenewProductId) ?? product)
        // Every field is worked out before the snapshot is built, so that it is built once and returned as it is (a
        // snapshot set field by field is copied on the way out).
        let purchased = chain.ownership == .purchased
        // Rule win-back-eligibility (``SubscriptionBook/eligibleWinBackOfferIds(_:chain:state:paidMilliseconds:at:)``):
        // the purchaser's, at `now`; the paid time is the ledger's.
        let winBackOfferIds =
            purchased && state.phase == .expired && !products[product].offers.isEmpty
            ? SubscriptionBook.eligibleWinBackOfferIds(
                products[product], chain: chain, state: state,
                paidMilliseconds: { ledger.paidMilliseconds(of: chain.originalTransactionId, at: now) }, at: now)
            : []
        var snapshot = RenewalSnapshot(
            originalTransactionId: chain.originalTransactionId, productId: state.productId,
            autoRenewProductId: state.autoRenewProductId, autoRenewOn: state.autoRenew,
            expirationIntent: expirationIntent,
            isInBillingRetryPeriod: state.isInBillingRetryPeriod,
            gracePeriodExpiresDate: state.gracePeriodExpiresDate,
            renewalDate: state.expiresDate, recentSubscriptionStartDate: chain.recentSubscriptionStartDate,
            renewalPrice: upcoming?.offer.price ?? products[renewing].price, currency: products[product].currency,
            upcomingOffer: upcoming?.offer, priceIncreaseStatus: purchased ? state.priceIncrease : nil,
            eligibleWinBackOfferIds: winBackOfferIds)
        AccountFields.add(
            of: chain, productAt: renewing, to: &snapshot, directory: directory, serverRequests: serverRequests,
            catalog: catalog, defaultStorefront: defaultStorefront)
        // Told of an increase that has not started: the renewal is at the new price (rule
        // price-increase-first-renewal).
        if schedule.upcoming > 0, purchased, state.priceIncrease != nil, upcoming == nil,
            snapshot.renewalPrice != nil,
            let told = schedule.toldPriceNotStarted(
                of: products[renewing].id, to: chain.originalTransactionId, plan: .upfront)
        {
            snapshot.renewalPrice = told
        }
        if let commitment = state.commitment, isInCommitment(state) {
            // Rule commitment-renewal-info, priced in the purchaser's storefront.
            let purchaser = directory.purchaser(of: chain)
            CommitmentRenewalInfo.add(
                commitment, of: chain, state: state, purchaser: purchaser,
                storefront: directory.storefront(of: purchaser, default: defaultStorefront), catalog: catalog,
                schedule: schedule, locks: locks, to: &snapshot)
        } else if let change = state.pendingChange, change.plan == .monthly {
            // Rule billing-plan-switch-at-renewal outside a commitment.
            CommitmentRenewalInfo.addPendingMonthlyPlan(
                change, of: chain,
                storefront: directory.storefront(of: directory.purchaser(of: chain), default: defaultStorefront),
                catalog: catalog, schedule: schedule, to: &snapshot)
        }
        return snapshot
    }

    /// **commitment-fields-only-in-a-commitment**: the renewal info's `commitmentInfo` and the commitment's
    /// `renewalBillingPlanType` are "only present in the renewal info when the subscription is currently in a
    /// commitment" (WWDC26 session 210, 7:45; reference Appendix E P10). An expired or revoked subscription is in none,
    /// even when its state still remembers the commitment it ended in: the `EXPIRED` at a commitment's end (after a
    /// price increase without consent) and a family member's `REVOKE` carry none, as the purchaser's `REFUND` does not
    /// (rule commitment-current-refund-ends-it). Billing retry keeps the commitment (it resumes on recovery, E B3).
    static func isInCommitment(_ state: SubscriptionState) -> Bool {
        switch state.phase {
        case .active, .gracePeriod, .billingRetry: return true
        case .expired, .revoked: return false
        }
    }
}
