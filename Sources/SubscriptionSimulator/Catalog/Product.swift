/// The kind of an in-app product. Wire names (`Auto-Renewable Subscription`, ...) live in `Wire/`.
public enum ProductType: String, Hashable, Sendable, CaseIterable {
    case autoRenewable
    case nonConsumable
    case consumable
    case nonRenewing
}

/// The renewal periods the App Store offers for auto-renewable subscriptions.
/// Raw values are the ISO 8601 form Apple uses in `offerPeriod` and in `.storekit` files.
public enum SubscriptionPeriod: String, Hashable, Sendable, CaseIterable {
    case oneWeek = "P1W"
    case oneMonth = "P1M"
    case twoMonths = "P2M"
    case threeMonths = "P3M"
    case sixMonths = "P6M"
    case oneYear = "P1Y"

    public var duration: CalendarDuration {
        switch self {
        case .oneWeek: return .weeks(1)
        case .oneMonth: return .months(1)
        case .twoMonths: return .months(2)
        case .threeMonths: return .months(3)
        case .sixMonths: return .months(6)
        case .oneYear: return .years(1)
        }
    }

    /// True for the weekly period, whose billing grace period is capped (see `Lifecycle/BillingRules.swift`).
    public var isWeekly: Bool { self == .oneWeek }

    /// Ordering used to pick "the longest product" (scenario default `until`).
    public var approximateDays: Int {
        switch self {
        case .oneWeek: return 7
        case .oneMonth: return 30
        case .twoMonths: return 61
        case .threeMonths: return 91
        case .sixMonths: return 182
        case .oneYear: return 365
        }
    }
}

/// A price as Apple sends it: an integer number of milliunits of the currency (9.99 USD is `9990`).
public struct Price: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var milliunits: Int64

    public init(milliunits: Int64) { self.milliunits = milliunits }

    public static let free = Price(milliunits: 0)

    /// Parses a non-negative decimal such as `9.99`, `10`, `0.5` or `1234.567` (at most 3 decimals).
    public init?(decimal text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 12,
            whole.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard (parts.count == 1 || !fraction.isEmpty), fraction.count <= 3,
            fraction.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        while fraction.count < 3 { fraction += "0" }
        milliunits = Int64(whole)! * 1000 + Int64(fraction)!
    }

    public static func < (lhs: Price, rhs: Price) -> Bool { lhs.milliunits < rhs.milliunits }

    /// Decimal text with two to three decimals, e.g. `9.99`, `0.00`, `1.005`.
    public var description: String {
        let whole = milliunits / 1000
        let fraction = milliunits % 1000
        if fraction % 10 == 0 {
            let cents = fraction / 10
            return "\(whole).\(cents < 10 ? "0" : "")\(cents)"
        }
        return "\(whole).\(CalendarMath.pad(Int(fraction), 3))"
    }
}

/// How an offer is paid. Wire values (`FREE_TRIAL`, ...) live in `Wire/`.
public enum IntroductoryOfferMode: String, Hashable, Sendable, CaseIterable {
    case freeTrial
    case payAsYouGo
    case payUpFront
    /// `ONE_TIME`: an offer code's discounted price for a one-time product (consumable or non-consumable; reference
    /// §2.7, §5.11). Never an auto-renewable subscription's offer.
    case oneTime
}

/// An introductory offer, which the App Store applies automatically to a customer's first purchase in a
/// subscription group (eligibility: once per group per customer; reference §5.11, S-INTRO).
public struct IntroductoryOffer: Hashable, Sendable {
    /// The offer's fields (equality and hashing are theirs).
    struct Fields: Hashable, Sendable {
        var mode: IntroductoryOfferMode
        var period: CalendarDuration
        var periods: Int
        var price: Price
        var type: OfferType = .introductory
        var identifier: String? = nil
        var winBackConditions: WinBackConditions? = nil
        var plan: BillingPlan? = nil
    }

    /// ``Fields`` held out of line and never changed in place (a setter stores a new box): an offer is carried by
    /// every subscription state, pending plan change, transaction and renewal snapshot, most of which have none,
    /// and inline it made each of them about 200 bytes larger.
    typealias Box = SharedFields<Fields>

    var box: Box

    var fields: Fields {
        get { box.fields }
        set { box = Box(newValue) }
    }

    public var mode: IntroductoryOfferMode {
        get { fields.mode }
        set { fields.mode = newValue }
    }
    /// The offer's period unit: for a free trial or pay-up-front, the whole offer; for pay-as-you-go, one billing
    /// period at the offer price (repeated `periods` times).
    public var period: CalendarDuration {
        get { fields.period }
        set { fields.period = newValue }
    }
    /// Number of `period`s the offer lasts (pay-as-you-go); 1 otherwise.
    public var periods: Int {
        get { fields.periods }
        set { fields.periods = newValue }
    }
    /// The offer price per `period`; zero for a free trial.
    public var price: Price {
        get { fields.price }
        set { fields.price = newValue }
    }
    /// `offerType`: introductory (1) unless the offer is one the customer redeems (`Catalog/Offers.swift`).
    public var type: OfferType {
        get { fields.type }
        set { fields.type = newValue }
    }
    /// `offerIdentifier`: the offer's id; `nil` for an introductory offer (reference §5.11, S-OT).
    public var identifier: String? {
        get { fields.identifier }
        set { fields.identifier = newValue }
    }
    /// A win-back offer's eligibility conditions (`Catalog/Offers.swift`); `nil` for other offers and for a win-back
    /// offer without conditions.
    public var winBackConditions: WinBackConditions? {
        get { fields.winBackConditions }
        set { fields.winBackConditions = newValue }
    }

    /// The billing plan the offer is configured for (`plan` in a scenario; reference Appendix E O1: offers are per
    /// billing plan); `nil`: both plans (rule offer-for-its-plan, ``OfferRules/applies(_:to:)``).
    public var plan: BillingPlan? {
        get { fields.plan }
        set { fields.plan = newValue }
    }

    public init(mode: IntroductoryOfferMode, period: CalendarDuration, periods: Int = 1, price: Price = .free) {
        box = Box(Fields(mode: mode, period: period, periods: periods, price: mode == .freeTrial ? .free : price))
    }

    /// The whole length of the offer (all its periods).
    public var totalDuration: CalendarDuration { period.times(periods) }
}

/// A product in the catalogue.
public struct Product: Hashable, Sendable {
    public var id: String
    public var type: ProductType
    /// Reference name shown in listings (optional; from `.storekit` files).
    public var referenceName: String?
    /// The subscription group's name (auto-renewable subscriptions only).
    public var group: String?
    /// Rank within the group: 1 is the highest level of service.
    public var level: Int
    /// Renewal period (auto-renewable subscriptions only).
    public var period: SubscriptionPeriod?
    /// Length of a non-renewing subscription; `nil` means it cannot be purchased until one is given.
    public var duration: CalendarDuration?
    public var price: Price
    /// ISO 4217 currency code, e.g. `USD`.
    public var currency: String
    /// Whether the product can be shared with the family (subscriptions and non-consumables only).
    public var familyShareable: Bool
    /// The introductory offers: at most one per billing plan, either one for both plans (no `plan`) or one for each
    /// (rule intro-offer-per-plan, ``OfferRules/introOfferProblem(_:)``). Most products have none or one.
    public var introOffers: [IntroductoryOffer] = []
    /// Prices in other storefronts, by ISO 3166-1 alpha-3 code, each in that storefront's currency
    /// (`Catalog/Prices.swift`). `price` and `currency` apply in every storefront whose currency is `currency`.
    public var prices: [String: Price]
    /// Offers customers redeem: promotional offers, offer codes and win-back offers (`Catalog/Offers.swift`), in the
    /// order declared.
    public var offers: [SubscriptionOffer] = []
    /// The monthly billing plan with a 12-month commitment, when the product offers it (one-year subscriptions only;
    /// `Catalog/CommitmentPlan.swift`).
    public var monthlyCommitment: CommitmentPlan? = nil

    public init(
        id: String, type: ProductType, referenceName: String? = nil, group: String? = nil, level: Int = 1,
        period: SubscriptionPeriod? = nil, duration: CalendarDuration? = nil, price: Price, currency: String = "USD",
        familyShareable: Bool = false, introOffer: IntroductoryOffer? = nil, prices: [String: Price] = [:],
        offers: [SubscriptionOffer] = []
    ) {
        self.id = id
        self.type = type
        self.referenceName = referenceName
        self.group = group
        self.level = level
        self.period = period
        self.duration = duration
        self.price = price
        self.currency = currency
        self.familyShareable = familyShareable
        self.introOffers = introOffer.map { [$0] } ?? []
        self.prices = prices
        self.offers = offers
    }

    public var isSubscription: Bool { type == .autoRenewable }

    /// The same product with its strings and its price table in storage of its own, and its offer arrays copied
    /// (the offers' own fields, read only at purchases and redemptions, still share theirs; ``Catalog/inOwnStorage()``).
    func inOwnStorage() -> Product {
        var copy = self
        copy.id = id.inOwnStorage
        copy.referenceName = referenceName?.inOwnStorage
        copy.group = group?.inOwnStorage
        copy.currency = currency.inOwnStorage
        copy.prices = Dictionary(uniqueKeysWithValues: prices.map { ($0.key.inOwnStorage, $0.value) })
        copy.introOffers = introOffers.map { $0 }
        copy.offers = offers.map { $0 }
        return copy
    }

    /// The product's one introductory offer, as before offers were configured per billing plan: the first of
    /// ``introOffers``. Setting it replaces them all (`nil`: none).
    public var introOffer: IntroductoryOffer? {
        get { introOffers.first }
        set { introOffers = newValue.map { [$0] } ?? [] }
    }

    /// The introductory offer a purchase on `plan` gets (rule offer-for-its-plan): the one configured for that plan
    /// or for both; `nil` when there is none.
    public func introOffer(for plan: BillingPlan) -> IntroductoryOffer? {
        introOffers.first { OfferRules.applies($0, to: plan) }
    }
}
