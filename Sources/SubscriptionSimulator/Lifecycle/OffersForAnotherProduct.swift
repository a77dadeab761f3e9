/// Offers redeemed for another product of the subscription's group (issue 14 item 2; reference §1.1, §5.10, §5.11):
/// a plan change and an offer in one step. The rules are rows of the transition table (offers for another product in
/// ``SubscriptionLifecycle/transition(_:_:_:)``); the timing is the plan change's (``PlanChangeKind``).
extension PlanChangeKind {
    /// The lifecycle input of this change when the customer makes it by redeeming `redemption`, an offer for the new
    /// product; nil for the current product (an offer for it is ``LifecycleInput/offerRedeemed(_:)``).
    public func offerInput(_ redemption: OfferRedemption) -> LifecycleInput? {
        switch self {
        case .immediate: return .offerUpgradeRedeemed(redemption)
        case .atNextRenewal: return .offerDowngradeRedeemed(redemption)
        case .currentProduct: return nil
        }
    }
}

extension SubscriptionLifecycle {
    /// **offer-for-another-product-upgrade**: an offer (promotional offer or offer code) for a higher level of the
    /// group, or for a product of the same level and duration, redeemed while the subscription is active:
    /// `OFFER_REDEEMED` / `UPGRADE` (reference §1.1, §5.11; S-NT "Promo offer / offer code that upgrades"), and the
    /// change takes effect at once as an upgrade does (reference §5.10, rule plan-change-upgrade): the old transaction
    /// is re-signed with `isUpgraded: true`; a new transaction for the new product, `transactionReason` `PURCHASE`,
    /// `purchaseDate` = now, carrying the offer (`offerType`, `offerIdentifier`, `offerDiscountType`, `offerPeriod`),
    /// whose first period starts now **[assumed]** (Apple: an upgrade starts a new billing period at once; the offer
    /// applies to that purchase). A pending downgrade is dropped; auto-renew comes back on (as for an upgrade and for
    /// an offer on the current product) **[assumed]**. The change itself is ``upgrade(_:to:notifying:at:)``.
    static func redeemOfferForUpgrade(_ state: SubscriptionState, _ redemption: OfferRedemption, at now: Instant)
        -> TransitionResult
    {
        if let refusal = offerForAnotherProductRefusal(state, redemption.offer) { return .rejected(refusal) }
        return upgrade(state, to: redemption.purchase, notifying: .offerRedeemed, at: now)
    }

    /// **offer-for-another-product-downgrade**: an offer for a lower level of the group, or for a product of the same
    /// level and another duration, redeemed while the subscription is active: `OFFER_REDEEMED` / `DOWNGRADE` now
    /// (reference §1.1, §5.11; S-NT "Promo offer that downgrades"), the change taking effect at the next renewal as a
    /// downgrade does (reference §5.10, rule plan-change-downgrade): until then the renewal info names the new
    /// product (`autoRenewProductId`, `renewalPrice` the offer's price) and the pending offer (`offerType`,
    /// `offerIdentifier`, `offerDiscountType`, `offerPeriod`); the renewal is `DID_RENEW` with the new product and the
    /// offer's first period (``pendingChangePeriod(_:from:)``). That an offer code may downgrade too, as Apple's table
    /// names only promotional offers for it, is **[assumed]**. A downgrade already pending is replaced; auto-renew
    /// comes back on if it was off (the offer is bought for the coming periods, as for an offer on the current
    /// product) **[assumed]**.
    static func redeemOfferForDowngrade(_ state: SubscriptionState, _ redemption: OfferRedemption) -> TransitionResult {
        if let refusal = offerForAnotherProductRefusal(state, redemption.offer) { return .rejected(refusal) }
        var next = state
        next.pendingChange = redemption.purchase
        next.autoRenew = true
        return .changed(next, [.notify(.offerRedeemed, .downgrade)])
    }

    /// The rules an offer for another product shares with an offer for the current one (rule
    /// offer-redeemed-on-active): win-back offers only after expiry (**win-back-eligibility**: reference §1.1, they
    /// are for lapsed subscribers, whose redemption is `SUBSCRIBED`), and one offer at a time (**one-offer-at-a-time**:
    /// refused while a redeemed offer waits, for this product or with a pending downgrade, or an offer still has
    /// periods to run).
    static func offerForAnotherProductRefusal(_ state: SubscriptionState, _ offer: IntroductoryOffer)
        -> LifecycleRuleViolation?
    {
        if offer.type == .winBack { return .winBackOnlyAfterExpiry }
        if state.pendingOffer != nil || state.pendingChange?.offer != nil
            || (state.currentOffer?.periodsRemaining ?? 0) > 0
        {
            return .oneOfferAtATime
        }
        return nil
    }

    /// The first period of a pending product from `start` (the renewal, or a recovery after grace): its offer's first
    /// period when the change came with an offer (rule offer-for-another-product-downgrade), else a regular period.
    static func pendingChangePeriod(_ change: PurchaseRequest, from start: Instant) -> (BillingCycle, OfferUse?) {
        guard let offer = change.offer else { return (pendingChangeCycle(change, from: start), nil) }
        return (
            BillingCycle(anchor: start, unit: offer.period, periodsElapsed: 1),
            OfferUse(offer: offer, periodsRemaining: offer.periods - 1)
        )
    }
}
