/// The billing plan of an auto-renewable subscription purchase (Apple's `billingPlanType`; wire values
/// `BILLED_UPFRONT` and `MONTHLY` live in `Wire/`). Reference Appendix E, rule R2 (A1 "Understand the billing plan
/// type").
public enum BillingPlan: String, Hashable, Sendable, CaseIterable {
    /// The whole period is paid at its start: every auto-renewable subscription's default plan.
    case upfront
    /// Billed monthly with a 12-month commitment (``CommitmentPlan``).
    case monthly
}

/// A one-year subscription's second billing plan: billed monthly, with a 12-month commitment (April 2026; reference
/// Appendix E.1.1, rules R1-R5; A1 "Supporting monthly subscriptions with a 12-month commitment").
///
/// Not a product of its own: the same product id and group, a second plan with its own monthly price (R1).
public struct CommitmentPlan: Hashable, Sendable {
    /// The monthly price in the product's `currency`.
    public var monthlyPrice: Price
    /// Monthly prices in other storefronts, by ISO 3166-1 alpha-3 code, in that storefront's currency (as the
    /// product's `prices`, rule price-in-storefront-currency).
    public var prices: [String: Price]

    public init(monthlyPrice: Price, prices: [String: Price] = [:]) {
        self.monthlyPrice = monthlyPrice
        self.prices = prices
    }

    /// **commitment-twelve-periods**: a commitment is 12 monthly billing periods (`totalBillingPeriods`; reference
    /// E.1.2 P6; A1 "Display commitment progress").
    public static let totalBillingPeriods = 12

    /// **commitment-twelve-periods**: `commitmentPrice` is the price of the whole commitment, 12 × the monthly price
    /// (E.1.2 P8; A1, A3 sample 131880 = 12 × 10990). Used for the record as built (the product's currency) and for
    /// the purchaser's storefront price.
    public static func commitmentPrice(monthly: Price) -> Price {
        Price(milliunits: monthly.milliunits * Int64(totalBillingPeriods))
    }

    /// **commitment-billing-period-is-a-month**: each billing period grants one calendar month (E.1.2 R3, P4; A1
    /// "Distinguish between period and commitment expiration").
    public static let billingPeriod = SubscriptionPeriod.oneMonth

    /// **commitment-length**: the commitment runs one year from its first period's purchase (`commitmentExpiresDate`
    /// = purchase of period 1 + P1Y; E.1.2 P7, A3 sample).
    public static let length = CalendarDuration.years(1)

    /// **commitment-storefronts**: the plan is offered worldwide except the United States and Singapore (E.1.1 R4;
    /// A1, R1). A purchase of the plan in these storefronts is refused.
    public static let unavailableStorefronts: Set<String> = ["USA", "SGP"]

    /// **commitment-plan-needs-one-year**, **commitment-price-range**: the plan is only for a one-year auto-renewable
    /// subscription (E.1.1 R1; A1 "Configure the subscription"), and 12 × the monthly price lies between the up-front
    /// price and 1.5 × it (R5; App Store Connect rule reported by RevenueCat, R1), in the product's currency and in
    /// every storefront `monthlyCommitment.prices` names, against the product's up-front price there; the plan is
    /// offered only where the up-front plan is (R5), so such a storefront needs the product's own price there.
    /// `nil` when the plan fits.
    public static func problem(with plan: CommitmentPlan, of product: Product) -> String? {
        guard product.type == .autoRenewable, product.period == .oneYear else {
            let found =
                product.type == .autoRenewable
                ? "period \(product.period?.rawValue ?? "none")" : "type \(product.type.rawValue)"
            return "a monthlyCommitment plan is only for a one-year auto-renewable subscription (period P1Y), found "
                + "\(found) (rule commitment-plan-needs-one-year)"
        }
        if let problem = rangeProblem(monthly: plan.monthlyPrice, upfront: product.price, in: nil) { return problem }
        for (code, monthly) in plan.prices.sorted(by: { $0.key < $1.key }) {
            guard let currency = Storefronts.currency(countryCode: code) else {
                return "unknown storefront '\(code)' in `monthlyCommitment.prices`; expected an ISO 3166-1 alpha-3 "
                    + "code such as FRA"
            }
            if unavailableStorefronts.contains(code) {
                return "`monthlyCommitment.prices` gives \(code), where the plan is not sold (rule "
                    + "commitment-storefronts)"
            }
            if currency == product.currency {
                return "`monthlyCommitment.prices` gives \(code), whose currency \(currency) is the product's own: "
                    + "its `monthlyCommitment.price` applies there"
            }
            guard let upfront = product.prices[code] else {
                return "`monthlyCommitment.prices` gives \(code), where the product has no up-front price: the monthly "
                    + "plan is offered only where the up-front plan is (rule commitment-price-range); give the product "
                    + "a price there (`prices: { \(code): ... }`)"
            }
            if let problem = rangeProblem(monthly: monthly, upfront: upfront, in: code) { return problem }
        }
        return nil
    }

    /// **commitment-price-range** for one pair of prices: the product's currency (`storefront` `nil`) or one
    /// storefront's.
    static func rangeProblem(monthly: Price, upfront: Price, in storefront: String?) -> String? {
        let total = monthly.milliunits * Int64(totalBillingPeriods)
        guard total < upfront.milliunits || total * 2 > upfront.milliunits * 3 else { return nil }
        return "12 × the monthly price (\(Price(milliunits: total))) must be at least the up-front price "
            + "(\(upfront)) and at most 1.5 × it (\(Price(milliunits: upfront.milliunits * 3 / 2)))"
            + (storefront.map { " in \($0)" } ?? "") + " (rule commitment-price-range)"
    }

    /// The monthly price and currency in `storefront` (rule price-in-storefront-currency); `nil` where the plan has
    /// no price or is not sold (rule commitment-storefronts).
    public func price(currency productCurrency: String, in storefront: Storefront) -> (price: Price, currency: String)?
    {
        if Self.unavailableStorefronts.contains(storefront.countryCode) { return nil }
        return StorefrontPricing.price(
            base: monthlyPrice, currency: productCurrency, prices: prices, offer: nil, in: storefront)
    }
}
