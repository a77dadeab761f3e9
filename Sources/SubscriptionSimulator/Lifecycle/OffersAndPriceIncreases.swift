/// Where a price increase stands for one subscriber: `priceIncreaseStatus` 0 or 1 (reference §2.7, §5.12; library
/// `PriceIncreaseStatus`).
public enum PriceIncreaseConsent: Hashable, Sendable {
    /// 0: the increase needs consent and the customer has not answered.
    case pending
    /// 1: the customer consented, or was notified of an increase that needs no consent.
    case accepted
}

/// The transition table's rules for offers redeemed for the subscription's own product, and price increases (rows of
/// ``SubscriptionLifecycle/transition(_:_:_:)``).
extension SubscriptionLifecycle {
    /// **offer-redeemed-on-active**: an offer for the subscription's own product, redeemed while it is active, is
    /// `OFFER_REDEEMED` without subtype, now (reference §1.1, §5.11; S-NT: "no subtype = offer for the current
    /// product"); the transaction reported is the current one.
    ///
    /// **offer-starts-at-next-renewal**: the offer's periods start at the next renewal; the current paid period is
    /// not cut short. Apple: accepted offers "take effect immediately or at the next renewal period" (forum answer,
    /// thread 692798) and StoreKit's `RenewalInfo.offer` is "a subscription offer that applies to the transaction at
    /// the next renewal period"; so the renewal info carries the offer fields from the redemption on. That an offer
    /// for the *same* product always waits for the renewal is **[assumed]**.
    ///
    /// Redeeming turns auto-renew back on if the customer had turned it off: the offer is bought for the coming
    /// periods **[assumed]** (no DID_CHANGE_RENEWAL_STATUS is sent; the OFFER_REDEEMED renewal info shows
    /// `autoRenewStatus` 1).
    ///
    /// **win-back-eligibility**: win-back offers are for lapsed subscribers (reference §1.1: win-back redemption
    /// follows expiry), so never on an active subscription. **one-offer-at-a-time**: "a customer can only use an
    /// offer one at a time" (forum answer, thread 692798): refused while a redeemed offer waits or an offer still has
    /// periods to run. **no-offer-while-plan-change-pending** [assumed]: refused while a downgrade waits for the
    /// renewal, since the offer's product would not be the one renewing.
    static func redeemOnActiveSubscription(_ state: SubscriptionState, _ offer: IntroductoryOffer) -> TransitionResult {
        if offer.type == .winBack { return .rejected(.winBackOnlyAfterExpiry) }
        // [assumed]: Apple does not say what an offer for the current product does to a pending downgrade.
        if state.pendingChange != nil { return .rejected(.offerWhilePlanChangePending) }
        if state.pendingOffer != nil || (state.currentOffer?.periodsRemaining ?? 0) > 0 {
            return .rejected(.oneOfferAtATime)
        }
        var next = state
        next.pendingOffer = offer
        next.autoRenew = true
        return .changed(next, [.notify(.offerRedeemed, nil)])
    }

    /// Whether the renewal that follows `state` starts its waiting offer (no other offer period remains).
    static func startsPendingOffer(_ state: SubscriptionState) -> Bool {
        state.pendingOffer != nil && (state.currentOffer?.periodsRemaining ?? 0) == 0
    }

    /// **price-increase-consent**: an increase that needs consent is `PRICE_INCREASE` / `PENDING`
    /// (`priceIncreaseStatus` 0); one that needs none is `PRICE_INCREASE` / `ACCEPTED` at once (`priceIncreaseStatus`
    /// 1) (reference §1.1, §5.12; S-NT, S-ST, S-CL). A new increase that needs consent asks again even after an
    /// earlier consent. An increase without consent while an earlier one still waits for consent changes nothing:
    /// the customer must still answer the first [assumed]. Subscribers with auto-renew off are told too [assumed]:
    /// they pay the new price if they turn it back on. An increase without a start date is told now and charged from
    /// the next renewal on (`renewalPrice` shows it at once): Apple's notice periods (the increase reaching
    /// subscribers weeks after it is set) are not modelled for it [assumed: the next renewal].
    static func announcePriceIncrease(_ state: SubscriptionState, needsConsent: Bool) -> TransitionResult {
        var next = state
        if needsConsent {
            next.priceIncrease = .pending
            return .changed(next, [.notify(.priceIncrease, .pending)])
        }
        if state.priceIncrease == .pending {
            return .ignored(because: "an earlier increase still waits for the customer's consent [assumed]")
        }
        next.priceIncrease = .accepted
        return .changed(next, [.notify(.priceIncrease, .accepted)])
    }

    /// **price-increase-not-consented**: at the renewal, an increase still waiting for consent ends the
    /// subscription: `EXPIRED` / `PRICE_INCREASE`, status 2, `expirationIntent` 3 (reference §1.1, §5.12; S-NT,
    /// S-EI, S-BILL); `autoRenewStatus` 0 and `priceIncreaseStatus` 0 kept in that renewal info [assumed].
    static func expireForUnconsentedPriceIncrease(_ state: SubscriptionState) -> TransitionResult {
        var next = state
        next.phase = .expired
        next.autoRenew = false
        next.endReason = .priceIncreaseNotConsented
        return .changed(next, [.notify(.expired, .priceIncrease)])
    }
}
