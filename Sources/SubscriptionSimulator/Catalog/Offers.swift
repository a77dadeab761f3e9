/// The terms of any subscription offer (introductory, promotional, offer code, win-back): its mode, period, count
/// and price, with its `offerType` and `offerIdentifier`. One type for all four, because every transaction and
/// renewal info carries them in the same four fields (reference §2.5, §2.6).
public typealias SubscriptionOffer = IntroductoryOffer

/// `offerType` (reference §2.7, §5.11; S-OT; library `OfferType`): 1 introductory, 2 promotional, 3 offer code,
/// 4 win-back. Wire codes live in `Wire/WireEnums.swift`.
public enum OfferType: String, Hashable, Sendable, CaseIterable {
    /// 1: applied by the App Store to an eligible first purchase in the group; never redeemed.
    case introductory
    /// 2: promotional offer, signed by the developer, for existing or former subscribers (App Store Connect
    /// `SubscriptionPromotionalOffer`: "available to eligible existing or former subscribers").
    case promotional
    /// 3: offer code, for new, existing or expired subscribers; also, with the `ONE_TIME` mode, for one-time
    /// products (reference §2.7).
    case offerCode
    /// 4: win-back offer, for lapsed subscribers only (reference §1.1: win-back redemption follows expiry).
    case winBack
}

extension IntroductoryOffer {
    /// A redeemable offer (promotional, offer code or win-back) with its identifier.
    public init(
        id: String, type: OfferType, mode: IntroductoryOfferMode, period: CalendarDuration, periods: Int = 1,
        price: Price = .free
    ) {
        self.init(mode: mode, period: period, periods: periods, price: price)
        self.type = type
        self.identifier = id
    }
}

extension Product {
    /// The redeemable offer with this identifier, if the product has one.
    public func offer(withId id: String) -> SubscriptionOffer? {
        offers.first { $0.identifier == id }
    }

    /// The identifiers of the product's win-back offers, in declaration order.
    public var winBackOfferIds: [String] {
        offers.compactMap { $0.type == .winBack ? $0.identifier : nil }
    }
}

/// Rules about which offer fits which product, checked when the catalogue is built.
public enum OfferRules {
    /// **offer-for-its-plan**: offers (introductory, promotional, offer codes, win-back) are configured per billing
    /// plan (reference Appendix E O1; A1 "Provide subscription offers", A3 2:25: a free trial only for the commitment
    /// plan). An offer with a `plan` applies only to purchases and redemptions on that plan; one without applies to
    /// both (as before plans had offers). A purchase on the other plan goes without the introductory offer; a
    /// redemption on the other plan is refused.
    public static func applies(_ offer: SubscriptionOffer, to plan: BillingPlan) -> Bool {
        offer.plan == nil || offer.plan == plan
    }

    /// **intro-offer-per-plan**: a product has at most one introductory offer per billing plan: one for both plans
    /// (no `plan`), or one for the up-front plan and one for the monthly plan. Offers are configured per billing plan
    /// (reference Appendix E O1; A1 "Provide subscription offers"), and Xcode's `.storekit` 5.0 files hold one item
    /// of `introductoryOffers` per `billingPlanType` (reference `storekit-config-format.md` §6.0, §6.1). Which one a
    /// purchase gets: ``Product/introOffer(for:)``; eligibility stays one introductory offer per subscription group
    /// per customer, whatever the plan (S-INTRO). `nil` when the offers fit.
    public static func introOfferProblem(_ product: Product) -> String? {
        for plan in BillingPlan.allCases where product.introOffers.filter({ applies($0, to: plan) }).count > 1 {
            let name = plan == .upfront ? "up-front" : "monthly"
            return "two introductory offers for the \(name) plan; give at most one per plan: one without `plan` (both "
                + "plans), or one with `plan: upfront` and one with `plan: monthly` (rule intro-offer-per-plan)"
        }
        return nil
    }

    /// **offer-fits-product**: a redeemable offer has an identifier, unique within the product, and is not
    /// introductory (those are `introOffer`). An auto-renewable subscription's offer is a free trial, pay-as-you-go
    /// or pay-up-front offer; a one-time product (consumable, non-consumable) takes only an offer code with mode
    /// `ONE_TIME` (Apple's `offerDiscountType` `ONE_TIME`, "IAP offer codes", reference §2.7); non-renewing
    /// subscriptions take no offers [assumed: Apple lists offer codes for one-time purchases and subscriptions only].
    static func problem(with offer: SubscriptionOffer, of product: Product) -> String? {
        guard let id = offer.identifier, !id.isEmpty else { return "an offer needs an `id`" }
        if offer.type == .introductory {
            return "offer '\(id)': an introductory offer is the product's `introOffer`, not one of its `offers`"
        }
        if product.offers.filter({ $0.identifier == id }).count > 1 {
            return "offer '\(id)' is listed twice; give each offer of a product its own id"
        }
        switch product.type {
        case .autoRenewable:
            if offer.mode == .oneTime {
                return "offer '\(id)': mode oneTime is for one-time products; a subscription offer is freeTrial, "
                    + "payAsYouGo or payUpFront"
            }
        case .consumable, .nonConsumable:
            if offer.type != .offerCode || offer.mode != .oneTime {
                return
                    "offer '\(id)': a one-time product takes only offer codes with mode oneTime (rule offer-fits-product)"
            }
        case .nonRenewing:
            return "offer '\(id)': non-renewing subscriptions take no offers (rule offer-fits-product)"
        }
        return nil
    }
}

// MARK: - win-back eligibility

/// A win-back offer's `priority` (App Store Connect API `WinBackOffer.priority`): `HIGH` or `NORMAL`.
public enum WinBackPriority: String, Hashable, Sendable, CaseIterable {
    case high = "HIGH"
    case normal = "NORMAL"
}

/// The eligibility conditions App Store Connect stores with a win-back offer (App Store Connect API `WinBackOffer`
/// attributes). Every condition is optional here; an absent one always holds.
public struct WinBackConditions: Hashable, Sendable {
    /// `customerEligibilityPaidSubscriptionDurationInMonths`: the least paid service, in months, of the customer's
    /// last run of the subscription.
    public var paidMonths: Int?
    /// `customerEligibilityTimeSinceLastSubscribedInMonths.minimum`: the least months since the subscription lapsed.
    public var minimumMonthsSinceLastSubscribed: Int?
    /// `customerEligibilityTimeSinceLastSubscribedInMonths.maximum`: the most months since the subscription lapsed.
    public var maximumMonthsSinceLastSubscribed: Int?
    /// `customerEligibilityWaitBetweenOffersInMonths`: the least months since the customer last redeemed a win-back
    /// offer in the group.
    public var waitBetweenOffersMonths: Int?
    /// `startDate`: the offer is available from this instant on.
    public var startDate: Instant?
    /// `endDate`: the offer is available until this instant (inclusive).
    public var endDate: Instant?
    /// `priority`: HIGH offers come first in `eligibleWinBackOfferIds`; NORMAL when absent [assumed].
    public var priority: WinBackPriority

    public init(
        paidMonths: Int? = nil, minimumMonthsSinceLastSubscribed: Int? = nil,
        maximumMonthsSinceLastSubscribed: Int? = nil, waitBetweenOffersMonths: Int? = nil,
        startDate: Instant? = nil, endDate: Instant? = nil, priority: WinBackPriority = .normal
    ) {
        self.paidMonths = paidMonths
        self.minimumMonthsSinceLastSubscribed = minimumMonthsSinceLastSubscribed
        self.maximumMonthsSinceLastSubscribed = maximumMonthsSinceLastSubscribed
        self.waitBetweenOffersMonths = waitBetweenOffersMonths
        self.startDate = startDate
        self.endDate = endDate
        self.priority = priority
    }
}

/// What the store knows about a lapsed subscriber when it checks a win-back offer's conditions.
public struct WinBackHistory: Hashable, Sendable {
    /// The instant of the check.
    public var now: Instant
    /// When the subscription lapsed: the `expiresDate` of its last transaction.
    public var lapsedAt: Instant
    /// Start of the customer's last run of the subscription (`recentSubscriptionStartDate`).
    public var runStart: Instant
    /// Paid service of that run, in milliseconds (the sum behind rule paid-days-of-service).
    public var paidMilliseconds: Int64
    /// When the customer last redeemed a win-back offer in the group, if ever.
    public var lastWinBackRedemption: Instant?

    public init(
        now: Instant, lapsedAt: Instant, runStart: Instant, paidMilliseconds: Int64,
        lastWinBackRedemption: Instant? = nil
    ) {
        self.now = now
        self.lapsedAt = lapsedAt
        self.runStart = runStart
        self.paidMilliseconds = paidMilliseconds
        self.lastWinBackRedemption = lastWinBackRedemption
    }
}

/// Rule **win-back-conditions** (App Store Connect API `WinBackOffer`: `customerEligibilityPaidSubscriptionDurationInMonths`,
/// `customerEligibilityTimeSinceLastSubscribedInMonths`, `customerEligibilityWaitBetweenOffersInMonths`, `startDate`,
/// `endDate`, `priority`): which of a product's win-back offers a lapsed subscriber may redeem, best first. Used for
/// `eligibleWinBackOfferIds` and for refusing `redeemOffer` of an ineligible win-back offer. Apple does not document
/// how months are counted; here [assumed] they are calendar months (`CalendarMath`):
/// - paid duration: the run's paid service reaches `runStart + paidMonths` months when laid end to end from
///   `runStart`;
/// - time since last subscribed: `lapsedAt + minimum` months ≤ now ≤ `lapsedAt + maximum` months;
/// - wait between offers: no earlier win-back redemption in the group, or `last + wait` months ≤ now;
/// - availability: `startDate` ≤ now ≤ `endDate`.
/// Order: HIGH before NORMAL, then declaration order [assumed].
public enum WinBackEligibility {
    /// The first condition of `conditions` that `history` does not meet, described for an error; nil when all hold.
    public static func unmetCondition(_ conditions: WinBackConditions?, _ history: WinBackHistory) -> String? {
        guard let c = conditions else { return nil }
        let now = history.now
        if let start = c.startDate, now < start {
            return "the offer starts at \(CalendarMath.iso8601(start)) (startDate)"
        }
        if let end = c.endDate, now > end {
            return "the offer ended at \(CalendarMath.iso8601(end)) (endDate)"
        }
        if let months = c.paidMonths {
            if history.runStart.adding(milliseconds: history.paidMilliseconds) < later(months, history.runStart) {
                return "it needs \(months) month(s) of paid subscription; the customer paid for "
                    + "\(history.paidMilliseconds / CalendarMath.millisecondsPerDay) day(s) (paidMonths)"
            }
        }
        if let months = c.minimumMonthsSinceLastSubscribed,
            now < later(months, history.lapsedAt)
        {
            return "it needs at least \(months) month(s) since the subscription lapsed at "
                + "\(CalendarMath.iso8601(history.lapsedAt)) (monthsSinceLastSubscribed.minimum)"
        }
        if let months = c.maximumMonthsSinceLastSubscribed,
            now > later(months, history.lapsedAt)
        {
            return "it allows at most \(months) month(s) since the subscription lapsed at "
                + "\(CalendarMath.iso8601(history.lapsedAt)) (monthsSinceLastSubscribed.maximum)"
        }
        if let months = c.waitBetweenOffersMonths, let last = history.lastWinBackRedemption,
            now < later(months, last)
        {
            return "it needs \(months) month(s) since the customer's last win-back offer at "
                + "\(CalendarMath.iso8601(last)) (waitBetweenOffersMonths)"
        }
        return nil
    }

    /// `instant` plus `months` calendar months; past the supported range, never reached.
    static func later(_ months: Int, _ instant: Instant) -> Instant {
        CalendarMath.checkedAdd(.months(months), to: instant) ?? Instant(millisecondsSince1970: .max)
    }

    /// The identifiers of `product`'s win-back offers whose conditions hold, HIGH priority first, then in declaration
    /// order.
    public static func eligibleOfferIds(_ product: Product, _ history: WinBackHistory) -> [String] {
        let offers = product.offers.filter {
            $0.type == .winBack && unmetCondition($0.winBackConditions, history) == nil
        }
        let high = offers.filter { $0.winBackConditions?.priority == .high }
        let normal = offers.filter { $0.winBackConditions?.priority != .high }
        return (high + normal).compactMap(\.identifier)
    }
}
