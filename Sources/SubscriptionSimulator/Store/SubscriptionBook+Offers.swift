/// The offer rules the subscription book owns (issue 44, item 1): who may still get a group's introductory offer,
/// which billing plan a redemption is on, and whether a lapsed purchaser may redeem a win-back offer. The store facade
/// validates the product and the storefront, asks the book, and runs the redemption.
extension SubscriptionBook {
    /// Whether `customer` still gets `group`'s introductory offer: Apple grants it to customers who have not received
    /// one in the group (once per group, reference §5.11; StoreKit, "Implementing introductory offers").
    func introOfferAvailable(to customer: String, inGroup group: String) -> Bool {
        !introOfferUsed.contains(Self.customerGroupKey(customer, group))
    }

    /// Rule **offer-for-its-plan**: the plan a redemption of an offer configured for `offerPlan` is on. While the
    /// customer's subscription in the group (`key`) runs, it is the subscription's plan for the same product
    /// (`productId`) and the up-front plan for another product of the group; one that starts or restarts a
    /// subscription (no chain, or an expired or revoked one) buys the offer's plan (rule offer-code-buys-its-plan).
    /// A redemption whose plan is not `offerPlan` is refused by the caller.
    func redemptionPlan(ofOfferFor offerPlan: BillingPlan, productId: String, chain key: ChainID?) -> BillingPlan {
        guard let key else { return offerPlan }
        let state = chains[key.index].state
        guard state.phase != .expired, state.phase != .revoked else { return offerPlan }
        return state.productId == productId ? state.billingPlan : .upfront
    }

    /// Rule offer-for-its-plan, refused: the redemption of `offer` (of `productId`) by the customer whose chain in the
    /// group is `key` must be on the plan the offer is configured for
    /// (``redemptionPlan(ofOfferFor:productId:chain:)``). An offer configured for no plan passes.
    func checkRedemptionPlan(of offer: SubscriptionOffer, productId: String, chain key: ChainID?) throws(StoreError) {
        guard let offerPlan = offer.plan else { return }
        let plan = redemptionPlan(ofOfferFor: offerPlan, productId: productId, chain: key)
        if offerPlan != plan {
            throw .offerForAnotherPlan(
                productId: productId, offerId: offer.identifier ?? "", offerPlan: offerPlan, plan: plan)
        }
    }

    /// Rule **promotional-offer-for-subscribers**: with no subscription in the group yet, only an offer code starts
    /// one; promotional and win-back offers are for "existing or former subscribers" (App Store Connect
    /// `SubscriptionPromotionalOffer`), refused for `customer`.
    static func checkStartsSubscription(_ offer: SubscriptionOffer, customer: String, productId: String)
        throws(StoreError)
    {
        guard offer.type == .offerCode else {
            throw .lifecycle(.promotionalOfferNeedsSubscriber, customer: customer, productId: productId)
        }
    }

    /// An offer for another product of the group (`productId`) is a plan change with the offer: refused as
    /// ``purchasedChain(of:inGroup:)`` refuses a plan change when chain `key` is a family member's share (the share is
    /// the purchaser's).
    func checkOwnSubscription(_ key: ChainID, productId: String) throws(StoreError) {
        guard chains[key.index].ownership == .purchased else {
            throw .noSubscription(customer: chains[key.index].customer, productId: productId)
        }
    }

    /// Rules **win-back-eligibility** (win-back offers only after expiry: a revoked subscription has not lapsed) and
    /// **win-back-conditions** (`WinBackEligibility`): whether the purchaser of chain `key` may redeem win-back offer
    /// `offer` at `now`, checked before anything changes. `paidMilliseconds`: the chain's paid service so far
    /// (``TransactionLedger/paidMilliseconds(of:at:)``). Offers of other types pass.
    func checkWinBackRedemption(
        _ offer: SubscriptionOffer, of key: ChainID, productId: String, paidMilliseconds: Int64, at now: Instant
    ) throws(StoreError) {
        guard offer.type == .winBack else { return }
        let chain = chains[key.index]
        if chain.state.phase != .expired {
            throw .lifecycle(.winBackOnlyAfterExpiry, customer: chain.customer, productId: productId)
        }
        if let conditions = offer.winBackConditions,
            let unmet = WinBackEligibility.unmetCondition(
                conditions,
                Self.winBackHistory(chain, state: chain.state, paidMilliseconds: paidMilliseconds, at: now))
        {
            throw .winBackIneligible(
                customer: chain.customer, productId: productId, offerId: offer.identifier ?? "", condition: unmet)
        }
    }

    /// Rule **win-back-eligibility**: `eligibleWinBackOfferIds` lists the product's win-back offers while the
    /// customer's subscription has expired (status 2), and is absent otherwise: never while it is active, in grace,
    /// in billing retry (Apple: win-back offers are for lapsed subscribers and the field appears "when eligible",
    /// reference §2.6; during retry the subscription has not lapsed) or revoked [assumed], and never on a family
    /// member's renewal info [assumed: members cannot buy the purchaser's subscription; the caller asks only for a
    /// purchaser's]. Of those offers it lists the ones whose App Store Connect conditions hold at the instant the
    /// renewal info is made (at the `EXPIRED` notification: at the expiry [assumed]), best first (rule
    /// win-back-conditions, `WinBackEligibility`). Offers without conditions are always listed, in declaration order.
    ///
    /// `chain` may be one the store holds out of the book for a transition, in `state`; `paidMilliseconds` is asked
    /// only when an offer has conditions.
    static func eligibleWinBackOfferIds(
        _ product: Product, chain: SubscriptionChain, state: SubscriptionState,
        paidMilliseconds: () -> Int64, at now: Instant
    ) -> [String] {
        guard state.phase == .expired else { return [] }
        guard product.offers.contains(where: { $0.winBackConditions != nil }) else { return product.winBackOfferIds }
        return WinBackEligibility.eligibleOfferIds(
            product, winBackHistory(chain, state: state, paidMilliseconds: paidMilliseconds(), at: now))
    }

    /// What rule win-back-conditions reads about a lapsed purchaser's chain at `now`: when it lapsed, the start of its
    /// current run of purchases, its paid service and its last win-back redemption.
    static func winBackHistory(
        _ chain: SubscriptionChain, state: SubscriptionState, paidMilliseconds: Int64, at now: Instant
    ) -> WinBackHistory {
        WinBackHistory(
            now: now, lapsedAt: state.expiresDate, runStart: chain.recentSubscriptionStartDate,
            paidMilliseconds: paidMilliseconds, lastWinBackRedemption: chain.lastWinBackRedemption)
    }
}
