/// How a move from one product of a subscription group to another takes effect (reference §5.10; S-NT, S-ST,
/// S-BILL). Levels come from the catalogue (`level`, `groupNumber` in `.storekit` files): 1 is the highest level of
/// service (StoreKit `Product.SubscriptionInfo.groupLevel`).
public enum PlanChangeKind: Hashable, Sendable {
    /// **plan-change-upgrade**: a higher level (a smaller `level`), of any duration, or a crossgrade to the same
    /// level with the same duration: at once, `DID_CHANGE_RENEWAL_PREF` / `UPGRADE`.
    case immediate
    /// **plan-change-downgrade**: a lower level, or a crossgrade to the same level with another duration: at the
    /// next renewal, `DID_CHANGE_RENEWAL_PREF` / `DOWNGRADE` now.
    case atNextRenewal
    /// The product the customer has now: cancels a pending downgrade (`DID_CHANGE_RENEWAL_PREF`, no subtype).
    case currentProduct

    /// Classifies a move from `current` to `target` (both of one group).
    public static func of(from current: Product, to target: Product) -> PlanChangeKind {
        if current.id == target.id { return .currentProduct }
        if target.level < current.level { return .immediate }
        if target.level > current.level { return .atNextRenewal }
        return target.period == current.period ? .immediate : .atNextRenewal
    }

    /// The lifecycle input this change to `request`'s product is.
    public func input(_ request: PurchaseRequest) -> LifecycleInput {
        switch self {
        case .immediate: return .upgradeRequested(request)
        case .atNextRenewal: return .downgradeRequested(request)
        case .currentProduct: return .currentProductChosen
        }
    }
}

extension SubscriptionLifecycle {
    /// Upgrade, or crossgrade of the same duration (reference §5.10; S-NT, S-ST, S-BILL, S-TR): at once. The old
    /// transaction is re-signed with `isUpgraded: true` and no `revocationDate` (Appendix A-14: the prorated refund of
    /// its unused part is not expressed in any transaction field Apple sends, B-7); a new transaction for the new
    /// product, `transactionReason` `PURCHASE`, `purchaseDate` = now, `expiresDate` = now + the new product's period;
    /// a new billing cycle from now; `DID_CHANGE_RENEWAL_PREF` / `UPGRADE`. A pending downgrade is dropped (the
    /// customer chose again). No introductory offer: eligibility is per group and an existing subscriber is not
    /// eligible (S-INTRO; rule intro-offer-once-per-group). During a free trial the trial ends at once and the new
    /// product is charged in full **[assumed]**. Auto-renew comes back on if it was off: the customer bought a
    /// subscription to the new product **[assumed]**.
    ///
    /// One path for both upgrades: a plan change (`request` without offer, `DID_CHANGE_RENEWAL_PREF` / `UPGRADE`) and
    /// an offer redeemed for a higher product (rule offer-for-another-product-upgrade: `request` with the offer, whose
    /// first period starts now, `OFFER_REDEEMED` / `UPGRADE`). `type` is the notification type; the subtype is
    /// `UPGRADE` in both.
    static func upgrade(
        _ state: SubscriptionState, to request: PurchaseRequest, notifying type: NotificationType, at now: Instant
    ) -> TransitionResult {
        var next = state
        next.productId = request.productId
        next.period = request.period
        next.autoRenew = true
        next.cycle = BillingCycle(
            anchor: now, unit: request.offer?.period ?? request.period.duration, periodsElapsed: 1)
        next.currentPeriodStart = now
        next.currentOffer = request.offer.map { OfferUse(offer: $0, periodsRemaining: $0.periods - 1) }
        next.pendingChange = nil
        // **commitment-upgrade-ends-it**: an upgrade from a commitment plan ends the commitment at once and the new
        // plan starts (E.1.7 G1; A1 "Manage subscription groups"); the new product's up-front plan [assumed].
        next.commitment = nil
        return .changed(
            next,
            [
                .cancelAllTimers,
                .markCurrentTransactionUpgraded,
                .charge(purchaseDate: now, expiresDate: next.expiresDate, offer: request.offer, reason: .purchase),
                .schedule(.renewal, at: next.expiresDate),
                .notify(type, .upgrade),
            ])
    }

    /// Downgrade, or crossgrade to another duration (reference §5.10; S-NT, S-ST, S-BILL): nothing changes now but
    /// the renewal info (`autoRenewProductId` = the new product, and its `renewalPrice`); `DID_CHANGE_RENEWAL_PREF` /
    /// `DOWNGRADE`. At the next renewal ``renewalAttempt(_:_:)`` renews to the new product (`DID_RENEW`,
    /// `transactionReason` `RENEWAL`, S-TR). Choosing another lower product while one is pending replaces it.
    /// **plan-change-needs-auto-renew** [assumed]: with auto-renew off there is no renewal for the change to take
    /// effect at; the customer resumes first (Apple documents no notification that would carry both changes).
    static func requestDowngrade(_ state: SubscriptionState, _ request: PurchaseRequest) -> TransitionResult {
        guard state.autoRenew else { return .rejected(.planChangeNeedsAutoRenew) }
        guard state.pendingChange?.productId != request.productId else { return .rejected(.downgradeAlreadyPending) }
        var next = state
        next.pendingChange = PurchaseRequest(productId: request.productId, period: request.period, offer: nil)
        return .changed(next, [.notify(.didChangeRenewalPref, .downgrade)])
    }

    /// The customer goes back to the current product: a pending downgrade is cancelled, `autoRenewProductId` is the
    /// current product again; `DID_CHANGE_RENEWAL_PREF` without subtype (reference §1.1, §5.10; S-NT). Without a
    /// pending downgrade the customer already has the product (rule one-subscription-per-group).
    static func cancelPendingDowngrade(_ state: SubscriptionState) -> TransitionResult {
        guard state.pendingChange != nil else { return .rejected(.changingProductsNotSupported) }
        var next = state
        next.pendingChange = nil
        return .changed(next, [.notify(.didChangeRenewalPref, nil)])
    }

    /// The billing cycle of the first period of a pending product: from the renewal instant, on the new product's
    /// period.
    static func pendingChangeCycle(_ change: PurchaseRequest, from start: Instant) -> BillingCycle {
        BillingCycle(anchor: start, unit: change.period.duration, periodsElapsed: 1)
    }

    /// At a renewal (or recovery), a pending downgrade takes effect: the subscription is the new product from now on
    /// (reference §5.10). Its offer, if any, is not carried over (S-INTRO).
    static func takePendingChange(_ state: inout SubscriptionState) {
        guard let change = state.pendingChange else { return }
        state.productId = change.productId
        state.period = change.period
        state.pendingChange = nil
    }
}
