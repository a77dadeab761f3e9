/// The rules of a price increase scheduled ahead: `raisePrice` with a start date (`effective`) after the instant it is
/// scheduled at (docs/lifecycle.md, "Offers and price increases"; reference §5.12). `raisePrice` without a start date
/// keeps the rules of `Lifecycle/OffersAndPriceIncreases.swift` alone.
public enum PriceIncreaseRules {
    /// **price-increase-notice-lead** [assumed]: a subscriber is told of an increase this long before their first
    /// renewal at the new price. Apple says only that subscribers are notified "in advance" / "before it occurs"
    /// (Apple Support 109501, "About subscription price changes"; Apple developer news of 16 May 2022); the one figure
    /// found, 27 days, is from Apple's page on Apple Podcasts subscriptions, not the App Store, so it is assumed.
    public static let noticeLead = CalendarDuration.days(noticeLeadDays)
    public static let noticeLeadDays = 27

    /// **price-increase-consent-threshold**: an increase needs the subscriber's consent when it is **more than 50 %**
    /// of the current price **and** the difference exceeds about USD 5 per period (non-annual) or USD 50 per year
    /// (annual). Apple, "Handling subscription price changes" (Advanced Commerce API): consent is asked if "the
    /// subscriber is located in a region that requires consent for any price changes" or "the price increase is:
    /// more than 50 percent of the current price; and the difference in price exceeds 5 United States Dollars (USD)
    /// per period for nonannual subscriptions, or 50 USD per year for annual subscriptions"; Apple Support 109501
    /// says the same of App Store subscriptions. Non-USD prices use "current exchange rates", which the simulator
    /// does not have: an increase of at most 50 % needs no consent in any currency (the first condition fails);
    /// above 50 % in another currency the answer is ``ConsentDecision/unknown``, and the scenario must state
    /// `consentRequired`. Regions whose law requires consent for every increase are not known to the simulator
    /// [assumed: none]; state `consentRequired: true` for them.
    public static func consent(from old: Price, to new: Price, currency: String, annual: Bool) -> ConsentDecision {
        let difference = new.milliunits - old.milliunits
        // More than 50 % of the current price: difference > old / 2, in whole milliunits.
        guard difference * 2 > old.milliunits else { return .notNeeded }
        guard currency == "USD" else { return .unknown }
        return difference > (annual ? annualThreshold : periodThreshold) ? .needed : .notNeeded
    }

    /// USD 5, in milliunits: the difference per period above which a non-annual increase of more than 50 % needs
    /// consent (rule price-increase-consent-threshold).
    public static let periodThreshold: Int64 = 5_000
    /// USD 50, in milliunits: the same per year for annual subscriptions.
    public static let annualThreshold: Int64 = 50_000

    /// **price-increase-once-a-year**: an increase without consent is allowed at most once a year; a further one
    /// within a year of the last needs consent. Apple Support 109501: developers may raise the price without
    /// interrupting service "no more than once per year"; an increase that "exceeds the annual limit ... you must opt
    /// in". Counted per product and storefront (or currency, for an increase in every storefront of the product's
    /// currency) [assumed: Apple does not say what the year is counted over], between start dates.
    public static let noConsentInterval = CalendarDuration.years(1)

    /// What rule price-increase-consent-threshold says of one increase.
    public enum ConsentDecision: Hashable, Sendable {
        case needed
        case notNeeded
        /// Above 50 % in a currency other than USD: the threshold is USD 5 (or 50) at an exchange rate the simulator
        /// does not know.
        case unknown
    }

    /// **price-increase-first-renewal**: the subscriber's first renewal at the new price is their first renewal
    /// strictly after the start date `effective` (renewals up to and at it keep the old price [assumed: "at" — Apple
    /// does not say which side the start instant falls on]); they are told ``noticeLead`` before it, but not before
    /// the period that ends at it starts (a weekly subscriber is told at the start of their last week at the old
    /// price [assumed]). A purchaser who subscribes between the scheduling and `effective` (at the old price) is told
    /// at `effective` at the latest [assumed]. Returns that renewal and the notice instant. `cycle` and `periodStart`
    /// are the subscription's billing cycle and the start of its current period.
    public static func firstRenewal(
        after effective: Instant, cycle: BillingCycle, periodStart: Instant
    ) -> (renewal: Instant, notice: Instant) {
        var start = periodStart
        var end = cycle.currentPeriodEnd
        var elapsed = cycle.periodsElapsed
        while end <= effective {
            start = end
            elapsed += 1
            end = BillingCycle.end(cycle.anchor, cycle.unit, elapsed)
        }
        return (end, max(end.adding(noticeLeadBack), start))
    }

    /// ``noticeLead`` backwards.
    static let noticeLeadBack = noticeLead.times(-1)
}
