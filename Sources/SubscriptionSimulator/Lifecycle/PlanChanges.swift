/// How a move from one product of a subscription group to another takes effect (reference §5.10; S-NT, S-ST,
/// S-BILL). Levels come from the catalogue (`level`, `groupNumber` in `.storekit` files): 1 is the highest level of
/// service (StoreKit `Product.SubscriptionInfo.groupLevel`).
public enum PlanChangeKind: Hashable, Sendable {
    /// **plan-change-upgrade**: a higher level (a smaller `level`), of any duration, or a crossgrade to the same
    /// level with the same duration: at once, `DID_CHANGE_RENEWAL_PREF` / `UPGRADE`.
    case immediate
    /// **plan-change-downgrade**: a lower level, or a crossgrade to the same level with another duration: at the
    /// next renewal, `DID_CHANGE_RENEWAL_PREF` / `DOWNGRADE` now. Also the switch of the current product's billing
    /// plan (rule billing-plan-switch-at-renewal). Inside a commitment the next renewal that can change the product
    /// or plan is the commitment's end (rule commitment-downgrade-at-end).
    case atNextRenewal
    /// The product and billing plan the customer has now: cancels a pending downgrade or plan switch
    /// (`DID_CHANGE_RENEWAL_PREF`, no subtype).
    case currentProduct

    /// Classifies a move from `current` on `currentPlan` to `target` on `targetPlan` (both of one group). The plans
    /// default to the up-front plan, which every plan change used before billing plans could be chosen.
    public static func of(
        from current: Product, currentPlan: BillingPlan = .upfront, to target: Product,
        targetPlan: BillingPlan = .upfront
    ) -> PlanChangeKind {
        if current.id == target.id { return currentPlan == targetPlan ? .currentProduct : .atNextRenewal }
        if target.level < current.level { return .immediate }
        if target.level > current.level { return .atNextRenewal }
        return crossgradeTakesEffectAtOnce(from: current, plan: currentPlan, to: target, plan: targetPlan)
            ? .immediate : .atNextRenewal
    }

    /// **crossgrade-between-plans** [assumed]: a crossgrade (another product of the same level) takes effect at once
    /// only between up-front plans of the same duration, as before billing plans (reference §5.10). Apple says the
    /// timing "depends on the plan duration and the billing plan type of both the current and target plans" (A1
    /// "Manage subscription groups"; Appendix E G3) and defers to App Store Connect help that was not found, so the
    /// simulator chooses:
    /// - from a commitment (the monthly plan), a crossgrade waits for the commitment's end, as a downgrade does
    ///   (rule commitment-downgrade-at-end): the customer committed to 12 payments;
    /// - onto the monthly plan of another product, it takes effect at the next renewal, which is period 1 of the new
    ///   commitment: a commitment starts on a renewal date, never inside a paid up-front period.
    /// Both notify `DID_CHANGE_RENEWAL_PREF` / `DOWNGRADE` now, as a crossgrade to another duration does (S-ST). Change
    /// this one function to change the timing.
    public static func crossgradeTakesEffectAtOnce(
        from current: Product, plan currentPlan: BillingPlan, to target: Product, plan targetPlan: BillingPlan
    ) -> Bool {
        if currentPlan == .monthly || targetPlan == .monthly { return false }
        return target.period == current.period
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
        next.period = request.billingPeriod
        next.autoRenew = true
        next.cycle = BillingCycle(
            anchor: now, unit: request.offer?.period ?? request.billingPeriod.duration, periodsElapsed: 1)
        next.currentPeriodStart = now
        next.currentOffer = request.offer.map { OfferUse(offer: $0, periodsRemaining: $0.periods - 1) }
        next.pendingChange = nil
        // **commitment-upgrade-ends-it**: an upgrade from a commitment plan ends the commitment at once and the new
        // plan starts (E.1.7 G1; A1 "Manage subscription groups"); the new product's up-front plan [assumed], or its
        // monthly plan when the customer chose it (`changePlan` with `plan: monthly`): period 1 of a new commitment.
        next.commitment = request.plan == .monthly ? .starting(at: now) : nil
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
    ///
    /// Inside a commitment the change waits for the commitment's end (rule commitment-downgrade-at-end), so it needs
    /// the commitment's renewal on (**plan-change-needs-commitment-renewal** [assumed], as
    /// plan-change-needs-auto-renew: after a cancel the commitment ends with period 12).
    static func requestDowngrade(_ state: SubscriptionState, _ request: PurchaseRequest) -> TransitionResult {
        guard state.autoRenew else { return .rejected(.planChangeNeedsAutoRenew) }
        if let commitment = state.commitment, !commitment.autoRenew {
            return .rejected(.planChangeNeedsCommitmentRenewal)
        }
        if let pending = state.pendingChange, pending.productId == request.productId, pending.plan == request.plan {
            return .rejected(.downgradeAlreadyPending)
        }
        var next = state
        next.pendingChange = PurchaseRequest(
            productId: request.productId, period: request.period, offer: nil, plan: request.plan)
        return .changed(next, [.notify(.didChangeRenewalPref, subtypeOfChangeAtRenewal(state, request))])
    }

    /// The subtype of `DID_CHANGE_RENEWAL_PREF` for a change that waits for the renewal: `DOWNGRADE` for another
    /// product (S-ST: a lower level, or a crossgrade to another duration), and none for a switch of the current
    /// product's billing plan (**billing-plan-switch-no-subtype** [assumed]): the product and its level stay, so
    /// neither `UPGRADE` nor `DOWNGRADE` describes it, and S-NT's `DID_CHANGE_RENEWAL_PREF` without subtype is "a
    /// change to the renewal preference" of the current product. Apple's A3 sample shows the choice only as renewal
    /// info (`commitmentRenewalBillingPlanType` `BILLED_UPFRONT`), not its notification (Appendix E G4).
    static func subtypeOfChangeAtRenewal(_ state: SubscriptionState, _ request: PurchaseRequest)
        -> NotificationSubtype?
    {
        request.productId == state.productId ? nil : .downgrade
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
        BillingCycle(anchor: start, unit: change.billingPeriod.duration, periodsElapsed: 1)
    }

    /// At a renewal (or recovery) at `now`, a pending downgrade or billing plan switch takes effect: the subscription
    /// is the new product on the new plan from now on (reference §5.10). Its offer, if any, is not carried over
    /// (S-INTRO). The monthly plan starts period 1 of a commitment (**billing-plan-switch-at-renewal** [assumed]:
    /// Apple does not say when a switch from the up-front plan takes effect, E G4; a commitment starts on a billing
    /// date, as a new purchase's does); the up-front plan has none (E P9, E2).
    static func takePendingChange(_ state: inout SubscriptionState, at now: Instant) {
        guard let change = state.pendingChange else { return }
        state.productId = change.productId
        state.period = change.billingPeriod
        state.commitment = change.plan == .monthly ? .starting(at: now) : nil
        state.pendingChange = nil
    }
}
