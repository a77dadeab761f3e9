/// Where a subscription billed monthly with a 12-month commitment stands (reference Appendix E; A1, A2). Present in
/// ``SubscriptionState/commitment`` while the subscription is in a commitment, `nil` otherwise.
public struct CommitmentState: Hashable, Sendable {
    /// `commitmentInfo.billingPeriodNumber`: the current billing period, 1 to 12 (E.1.2 P5; A1).
    public var billingPeriodNumber: Int
    /// `commitmentInfo.commitmentExpiresDate` (transaction) and `commitmentRenewalDate` (renewal info): the end of the
    /// 12-month commitment (E.1.2 P7, P10; A1, A3).
    public var expiresDate: Instant
    /// `commitmentInfo.commitmentAutoRenewStatus`: whether the subscription renews at the end of the commitment
    /// (E.1.2 P12; A2). The customer's cancel turns this off, not `autoRenewStatus` (E.1.4 C1, C2).
    public var autoRenew: Bool

    public init(billingPeriodNumber: Int, expiresDate: Instant, autoRenew: Bool) {
        self.billingPeriodNumber = billingPeriodNumber
        self.expiresDate = expiresDate
        self.autoRenew = autoRenew
    }

    /// A new commitment starting `now`: period 1, ending `now` + P1Y, renewing (rule commitment-length).
    public static func starting(at now: Instant) -> CommitmentState {
        CommitmentState(billingPeriodNumber: 1, expiresDate: now.adding(CommitmentPlan.length), autoRenew: true)
    }

    /// The 12th period is the current one: the next renewal ends the commitment.
    public var isLastPeriod: Bool { billingPeriodNumber >= CommitmentPlan.totalBillingPeriods }
}

/// The rules of the monthly plan with a 12-month commitment that differ from a standard subscription's, each named
/// and written once (reference Appendix E.1; sources A1, A2 as listed there). The transitions that use them are in
/// this file and in ``SubscriptionLifecycle/transition(_:_:_:)``.
public enum CommitmentRules {
    /// **commitment-billing-retry-90-days**: a commitment's failed renewal is retried for up to 90 days, then "the
    /// commitment ends" with `EXPIRED` / `BILLING_RETRY` (E.1.5 B2; A2 table; standard subscriptions: 60 days).
    public static let billingRetryWindow = CalendarDuration.days(90)

    /// **commitment-no-grace**: the billing grace period never applies to a commitment plan, even when the app has
    /// one (E.1.5 B1; A2 "Manage subscription access during billing issues"): `DID_FAIL_TO_RENEW` without subtype,
    /// status 3, no `gracePeriodExpiresDate`.
    public static let hasGracePeriod = false

    /// **commitment-recovery-shift** [assumed]: on recovery "`commitmentExpiresDate` shifts to a new billing date,
    /// reflecting the recovery date" (E.1.5 B3; A2). Apple does not give the amount; the simulator shifts it by the
    /// time spent in billing retry (recovery instant − failed renewal), so that 12 paid monthly periods still fit.
    /// Change this one function to change the shift.
    public static func shiftedCommitmentEnd(_ end: Instant, failedAt: Instant, recoveredAt: Instant) -> Instant {
        Instant(
            millisecondsSince1970: end.millisecondsSince1970
                + (recoveredAt.millisecondsSince1970
                    - failedAt.millisecondsSince1970))
    }

    /// **commitment-price-increase-with-start-date** [inferred]: a rise of the monthly plan's price with a start date
    /// reaches a subscriber in a commitment at the first commitment renewal strictly after the start date (as an
    /// annual subscriber's first renewal after it, rule price-increase-first-renewal; Appendix E O2 "the same rules as
    /// standard annual subscriptions"); the monthly charges before it keep the commitment's price, and who is reached
    /// is as for a rise without a start date (rule price-increase-reaches-its-plan). The subscriber is told
    /// ``PriceIncreaseRules/noticeLead`` before that commitment renewal, not before the next monthly charge; consent
    /// follows the annual threshold on the commitment's price, 12 × the monthly price
    /// (``PriceIncreaseSchedule/consentNeeded(_:_:_:effective:)``). Returns the renewal and the notice.
    public static func firstCommitmentRenewal(after effective: Instant, commitment: CommitmentState)
        -> (renewal: Instant, notice: Instant)
    {
        var renewal = commitment.expiresDate
        while renewal <= effective { renewal = renewal.adding(CommitmentPlan.length) }
        return (renewal, renewal.adding(PriceIncreaseRules.noticeLeadBack))
    }

    /// The retry window of a billing failure of `state` (rules commitment-billing-retry-90-days and the standard
    /// billing retry window, ``BillingRules/billingRetryWindow``).
    public static func retryWindow(of state: SubscriptionState) -> CalendarDuration {
        state.commitment == nil ? BillingRules.billingRetryWindow : billingRetryWindow
    }
}

extension SubscriptionLifecycle {
    /// **commitment-monthly-renewal**: inside a commitment each renewal is a new transaction for one month
    /// (`DID_RENEW`, `transactionReason` `RENEWAL`) whose `billingPeriodNumber` is one more (E.1.2 P2, P4, P5, P13; A1,
    /// A2). A downgrade or crossgrade waits for the commitment's end (**commitment-downgrade-at-end**, E.1.7 G2; A1),
    /// and so does a price increase (**commitment-price-increase-as-annual**, E.1.8 O2: "the same rules as standard
    /// annual subscriptions", so the new price applies from the next commitment [inferred]).
    static func nextCommitmentPeriod(_ state: SubscriptionState, _ commitment: CommitmentState, at now: Instant)
        -> TransitionResult
    {
        var withoutChange = state
        withoutChange.pendingChange = nil
        let (cycle, offer) = followingPeriod(withoutChange)
        var next = state
        next.cycle = cycle
        next.currentOffer = offer
        next.currentPeriodStart = now
        if startsPendingOffer(withoutChange) { next.pendingOffer = nil }
        next.commitment?.billingPeriodNumber = commitment.billingPeriodNumber + 1
        return .changed(
            next,
            [
                .charge(purchaseDate: now, expiresDate: cycle.currentPeriodEnd, offer: offer?.offer, reason: .renewal),
                .schedule(.renewal, at: cycle.currentPeriodEnd),
                .notify(.didRenew, nil),
            ])
    }

    /// **commitment-renews**: after the 12th period, with the commitment's auto-renew on and no other product chosen,
    /// "period 1 of the new commitment begins": `DID_RENEW`, `billingPeriodNumber` 1, `commitmentExpiresDate` one year
    /// on (E.1.3 E1, E4; A1 Overview, A2). No notification of its own marks it.
    static func renewCommitment(_ state: SubscriptionState, at now: Instant) -> TransitionResult {
        var next = state
        next.cycle = BillingCycle(anchor: now, unit: CommitmentPlan.billingPeriod.duration, periodsElapsed: 1)
        next.currentOffer = nil
        next.currentPeriodStart = now
        next.commitment = .starting(at: now)
        next.priceIncrease = nil
        return .changed(
            next,
            [
                .charge(purchaseDate: now, expiresDate: next.expiresDate, offer: nil, reason: .renewal),
                .schedule(.renewal, at: next.expiresDate),
                .notify(.didRenew, nil),
            ])
    }

    /// **commitment-cancel-ends-after-period-12**: a commitment whose renewal the customer cancelled ends after its
    /// 12th period: `EXPIRED` / `VOLUNTARY` (subtype [inferred], E.1.4 C3; A2), status 2, `expirationIntent` 1,
    /// `autoRenewStatus` 0 from then on [assumed].
    static func commitmentEnds(_ state: SubscriptionState) -> TransitionResult {
        var next = state
        next.phase = .expired
        next.autoRenew = false
        next.endReason = .customerCancelled
        next.commitment = nil
        next.pendingChange = nil
        return .changed(next, [.notify(.expired, .voluntary)])
    }

    /// **commitment-cancel-stops-only-its-renewal**: cancelling inside a commitment turns off
    /// `commitmentAutoRenewStatus` only; `autoRenewStatus` stays 1 because the remaining monthly periods are still
    /// billed; `DID_CHANGE_RENEWAL_STATUS` / `AUTO_RENEW_DISABLED` (E.1.4 C1, C2; A2 "Manage subscription
    /// cancellation"). Turning it back on is symmetric, `AUTO_RENEW_ENABLED` (C5, [assumed]). The same holds during a
    /// billing failure: the retry goes on, the payments are still owed [assumed].
    static func setCommitmentAutoRenew(_ state: SubscriptionState, _ commitment: CommitmentState, on: Bool)
        -> TransitionResult
    {
        if commitment.autoRenew == on { return .rejected(on ? .autoRenewAlreadyOn : .autoRenewAlreadyOff) }
        var next = state
        next.commitment?.autoRenew = on
        return .changed(next, [.notify(.didChangeRenewalStatus, on ? .autoRenewEnabled : .autoRenewDisabled)])
    }

    /// **commitment-recovery**: `DID_RENEW` / `BILLING_RECOVERY`; the recovered period keeps the failed period's
    /// number (the period after the last paid one, [inferred] E.1.5 B3), a new billing date is set at the recovery
    /// instant (no grace to keep the cycle in) and the commitment's end moves (rule commitment-recovery-shift).
    /// A failure at the end of the 12th period recovers into period 1 of a new commitment, or into the product the
    /// customer chose for after the commitment.
    static func recoverCommitment(_ state: SubscriptionState, _ commitment: CommitmentState, at now: Instant)
        -> TransitionResult
    {
        var next = state
        if commitment.isLastPeriod {
            if state.pendingChange != nil {
                next.commitment = nil
                next.cycle = BillingCycle(
                    anchor: now, unit: state.pendingChange!.billingPeriod.duration, periodsElapsed: 1)
                takePendingChange(&next, at: now)
            } else {
                next.commitment = .starting(at: now)
                next.cycle = BillingCycle(anchor: now, unit: CommitmentPlan.billingPeriod.duration, periodsElapsed: 1)
            }
            next.priceIncrease = nil
        } else {
            next.commitment?.billingPeriodNumber = commitment.billingPeriodNumber + 1
            next.commitment?.expiresDate = CommitmentRules.shiftedCommitmentEnd(
                commitment.expiresDate, failedAt: state.failure?.failedAt ?? now, recoveredAt: now)
            next.cycle = BillingCycle(anchor: now, unit: CommitmentPlan.billingPeriod.duration, periodsElapsed: 1)
        }
        next.currentOffer = nil
        next.phase = .active
        next.currentPeriodStart = now
        next.failure = nil
        next.endReason = nil
        next.isInBillingRetryPeriod = nil
        next.gracePeriodExpiresDate = nil
        return .changed(
            next,
            [
                .cancelAllTimers,
                .charge(purchaseDate: now, expiresDate: next.expiresDate, offer: nil, reason: .renewal),
                .schedule(.renewal, at: next.expiresDate),
                .notify(.didRenew, .billingRecovery),
            ])
    }
}
