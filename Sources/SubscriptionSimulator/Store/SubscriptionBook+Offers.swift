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

    /// What a subscription offer's redemption does to the customer's subscription in the group.
    enum Redemption: Hashable, Sendable {
        /// No subscription in the group yet: the offer starts one.
        case starts
        /// Expired or refunded: the offer restarts it.
        case restarts(ChainID)
        /// Active, in grace or in billing retry: the offer is redeemed on it.
        case onSubscription(ChainID)
    }

    /// Rule **offer-notification-choice** (reference §1.1, §5.11; S-NT, S-CL 23 Jan 2024): what a redemption does to
    /// the customer's chain in the group, `key`:
    /// - no subscription in the group yet: an offer code starts it, `SUBSCRIBED` / `INITIAL_BUY` with the offer as the
    ///   first period(s); promotional and win-back offers are refused (rule promotional-offer-for-subscribers).
    /// - expired or refunded: `SUBSCRIBED` / `RESUBSCRIBE`, a new transaction with the offer, now.
    /// - active: `OFFER_REDEEMED` without subtype; the offer starts at the next renewal (rule
    ///   offer-starts-at-next-renewal in `Lifecycle/OffersAndPriceIncreases.swift`). An offer for another product of
    ///   the group: `OFFER_REDEEMED` / `UPGRADE` or `DOWNGRADE`, a plan change with the offer
    ///   (``SimulatedStore/redeemOfferForAnotherProduct(_:_:key:)``).
    /// - grace or billing retry: refused (rule no-offer-during-billing-retry) [assumed, as for purchases].
    func redemption(chain key: ChainID?) -> Redemption {
        guard let key else { return .starts }
        switch chains[key.index].state.phase {
        case .expired, .revoked: return .restarts(key)
        case .active, .gracePeriod, .billingRetry: return .onSubscription(key)
        }
    }

    /// Rule **offer-code-buys-its-plan** [assumed]: a redemption that starts or restarts a subscription (an offer
    /// code with no subscription in the group, any offer after expiry or refund) buys the billing plan the offer is
    /// configured for, the up-front plan when it names none: an offer configured for the monthly plan starts a
    /// commitment (Appendix E O1: offers, offer codes included, are configured per billing plan, so redeeming one buys
    /// that plan; Apple does not describe the redemption itself). The monthly plan needs a storefront that sells it
    /// (rule commitment-storefronts). The transactions carry the offer fields and, from billing period 1,
    /// `commitmentInfo` (a free trial runs first, rule commitment-starts-after-free-trial).
    static func startPlan(of offer: SubscriptionOffer) -> BillingPlan { offer.plan ?? .upfront }

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

    /// ``checkWinBackRedemption(_:of:key:productId:paidMilliseconds:at:)`` with the chain's paid service from
    /// `ledger`, read only for a win-back offer.
    func checkWinBackRedemption(
        _ offer: SubscriptionOffer, of key: ChainID, productId: String, ledger: TransactionLedger, at now: Instant
    ) throws(StoreError) {
        guard offer.type == .winBack else { return }
        try checkWinBackRedemption(
            offer, of: key, productId: productId,
            paidMilliseconds: ledger.paidMilliseconds(of: chains[key.index].originalTransactionId, at: now), at: now)
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
