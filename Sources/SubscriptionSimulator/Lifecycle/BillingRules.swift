/// The App Store's billing rules, each written once and named. Every other file asks these.
public enum BillingRules {
    /// **Billing retry window**: Apple retries a failed renewal for up to 60 days from the failed renewal, until
    /// recovery or until the customer cancels (reference §5.3; S-NT, S-CHURN, S-TT-RET). The grace period is carved
    /// out of the first days of this window and never extends it (§5.3, S-TT-RET).
    public static let billingRetryWindow = CalendarDuration.days(60)

    /// **Billing grace period length** for one failed renewal.
    ///
    /// - The setting is 3, 16 or 28 days (App Store Connect `THREE_DAYS`, `SIXTEEN_DAYS`, `TWENTY_EIGHT_DAYS`;
    ///   reference §5.4, S-GP-ASC).
    /// - **Weekly cap**: weekly subscriptions get 3 → 3 days, 16 → 6 days, 28 → 6 days; monthly and longer get the
    ///   chosen length (reference §5.4 and Appendix A-10; S-WWDC23-TEST, S-GP-SUMMARY).
    /// - **Eligibility**: with "paid-to-paid only" (`PAID_TO_PAID_ONLY`), the first charge after a free trial gets no
    ///   grace (reference §5.4, S-TT-RET, S-GP-ASC).
    ///
    /// Returns `nil` when no grace period applies.
    public static func gracePeriod(
        setting: GracePeriodSetting, eligibility: GraceEligibility, period: SubscriptionPeriod,
        renewingFromFreeTrial: Bool
    ) -> CalendarDuration? {
        if setting == .off { return nil }
        if eligibility == .paidToPaidOnly && renewingFromFreeTrial { return nil }
        return .days(period.isWeekly ? min(setting.days, weeklyGraceCapDays) : setting.days)
    }

    /// The longest grace a weekly subscription gets (reference §5.4, Appendix A-10).
    public static let weeklyGraceCapDays = 6
}

extension BillingRules {
    /// **recentSubscriptionStartDate gap**: the earliest start of the current run of purchases, ignoring gaps of
    /// 60 days or less (reference §5.15, S-RSSD). A resubscribe more than this after service ended starts a new run.
    public static let recentStartGapAllowance = CalendarDuration.days(60)
}
