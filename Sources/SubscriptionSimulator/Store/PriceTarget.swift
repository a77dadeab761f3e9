/// Where a price increase applies: the product, the storefront whose own price changes (`nil`: the base price, every
/// storefront of `currency`), and the price it replaces. Made only by its checks (rules price-increase-raises-price and
/// commitment-price-range), so a target in hand is an increase the catalogue allows.
struct PriceTarget {
    var productId: String
    var storefront: String?
    var currency: String
    var oldPrice: Price
    var annual: Bool
    /// The plan whose price rises: the product's own price, or its monthly plan's.
    var plan: BillingPlan = .upfront
    /// ``PriceIncreaseSchedule/scopeKey(_:_:plan:)`` of the increase.
    var scopeKey: String { PriceIncreaseSchedule.scopeKey(productId, storefront ?? currency, plan: plan) }

    // MARK: - Making a target (the rules that refuse an increase)

    /// Checks an increase of `product`'s own (up-front) price to `newPrice` (rule **price-increase-raises-price**: only
    /// an auto-renewable subscription's price rises, and the new price is above the current one there; rule
    /// **commitment-price-range**: the product's monthly plan stays within range of the new up-front price, checked
    /// when the increase is made, an increase with a start date too) and says where it applies.
    static func upfront(_ product: Product, to newPrice: Price, in storefront: String?) throws(StoreError) -> Self {
        guard product.type == .autoRenewable else {
            throw .priceIncrease(
                productId: product.id,
                "only auto-renewable subscriptions have price increases; a one-time product's new price is a new "
                    + "catalogue entry")
        }
        let target = try Self(
            product, price: product.price, prices: product.prices, annual: product.period == .oneYear, in: storefront)
        guard newPrice > target.oldPrice else {
            throw .priceIncrease(
                productId: product.id,
                "the new price \(newPrice) is not above \(target.oldPrice) "
                    + (target.storefront.map { "in \($0)" } ?? target.currency))
        }
        if let plan = product.monthlyCommitment {
            var raised = product
            if let code = target.storefront { raised.prices[code] = newPrice } else { raised.price = newPrice }
            if let problem = CommitmentPlan.problem(with: plan, of: raised) {
                throw .commitmentUnavailable(productId: product.id, problem)
            }
        }
        return target
    }

    /// Checks an increase of the monthly plan's price of `product` to `newPrice` (rules price-increase-raises-price,
    /// commitment-price-range, commitment-plan-needs-one-year) and says where it applies.
    static func monthly(_ product: Product, to newPrice: Price, in storefront: String?) throws(StoreError) -> Self {
        guard var plan = product.monthlyCommitment else {
            throw .commitmentUnavailable(
                productId: product.id,
                "the product has no monthly plan with a 12-month commitment whose price could rise (rule "
                    + "commitment-plan-needs-one-year)")
        }
        var target = try Self(product, price: plan.monthlyPrice, prices: plan.prices, annual: true, in: storefront)
        target.plan = .monthly
        guard newPrice > target.oldPrice else {
            throw .priceIncrease(
                productId: product.id,
                "the new monthly price \(newPrice) is not above \(target.oldPrice) \(target.storefront ?? target.currency)"
            )
        }
        if let code = target.storefront { plan.prices[code] = newPrice } else { plan.monthlyPrice = newPrice }
        if let problem = CommitmentPlan.problem(with: plan, of: product) {
            throw .commitmentUnavailable(productId: product.id, problem)
        }
        return target
    }

    /// Checks an increase of `plan`'s price of `product` to `newPrice`: ``monthly(_:to:in:)`` for the monthly plan,
    /// ``upfront(_:to:in:)`` otherwise.
    static func of(_ plan: BillingPlan, of product: Product, to newPrice: Price, in storefront: String?)
        throws(StoreError) -> Self
    {
        plan == .monthly
            ? try monthly(product, to: newPrice, in: storefront) : try upfront(product, to: newPrice, in: storefront)
    }

    /// Where an increase of `product`'s price applies and the price it replaces: `price` (the product's own, or its
    /// monthly plan's) in every storefront of the product's currency when `storefront` is `nil` or has that currency;
    /// otherwise the storefront's own price from `prices`, which must exist. Shared by the up-front and the monthly
    /// plan's increases.
    private init(
        _ product: Product, price: Price, prices: [String: Price], annual: Bool, in storefront: String?
    ) throws(StoreError) {
        self.init(productId: product.id, storefront: nil, currency: product.currency, oldPrice: price, annual: annual)
        guard let code = storefront else { return }
        guard let currency = Storefronts.currency(countryCode: code) else {
            throw .priceIncrease(
                productId: product.id, "unknown storefront '\(code)'; expected an ISO 3166-1 alpha-3 code such as FRA")
        }
        guard currency != product.currency else { return }
        guard let old = prices[code] else { throw .noPriceInStorefront(productId: product.id, storefront: code) }
        self.storefront = code
        self.currency = currency
        self.oldPrice = old
    }

    /// The target of a scheduled increase, as ``upfront(_:to:in:)`` or ``monthly(_:to:in:)`` made it; `product`: the
    /// increase's product in the catalogue.
    init(of increase: ScheduledPriceIncrease, product: Product?) {
        self.init(
            productId: increase.productId, storefront: increase.storefront,
            currency: increase.storefront.flatMap { Storefronts.currency(countryCode: $0) } ?? product?.currency ?? "",
            oldPrice: increase.oldPrice, annual: increase.plan == .monthly || product?.period == .oneYear,
            plan: increase.plan)
    }

    private init(
        productId: String, storefront: String?, currency: String, oldPrice: Price, annual: Bool,
        plan: BillingPlan = .upfront
    ) {
        self.productId = productId
        self.storefront = storefront
        self.currency = currency
        self.oldPrice = oldPrice
        self.annual = annual
        self.plan = plan
    }

    // MARK: - Who it reaches

    /// Whether an increase at this target reaches `chain`'s plan: a purchaser whose subscription renews to the product
    /// (`autoRenewProductId`: a pending downgrade counts for the product it renews to) **on the plan whose price
    /// rises** (rule price-increase-reaches-its-plan). Family members' shares are not reached: they get no
    /// `PRICE_INCREASE` (rule member-notifications, reference §1.3) and no `priceIncreaseStatus`, keep the purchaser's
    /// price and follow the purchaser's renewal or expiry. The monthly
    /// plan's price reaches a purchaser in a commitment to the product that is followed by the monthly plan of the same
    /// product, or whose next renewal starts a commitment to it (a commitment followed by the up-front plan or another
    /// product is not reached, rules billing-plan-switch-at-renewal, commitment-downgrade-at-end); the up-front price
    /// reaches exactly the others: a commitment that renews into a commitment pays the monthly price, which the
    /// up-front price does not change (E O2: each plan has its own price). The storefront is ``covers(_:)``'s.
    func reachesPlan(of chain: SubscriptionChain) -> Bool {
        guard chain.ownership == .purchased && chain.state.autoRenewProductId == productId else { return false }
        return Self.renewsOnMonthlyPlan(chain) == (plan == .monthly)
    }

    /// Whether the next renewal of `chain` (renewing to its `autoRenewProductId`) is on the monthly plan: in a
    /// commitment unless a switch to the up-front plan or another product waits for its end, else when a switch to the
    /// monthly plan waits (rule billing-plan-switch-at-renewal).
    static func renewsOnMonthlyPlan(_ chain: SubscriptionChain) -> Bool {
        let state = chain.state
        let next = state.pendingChange
        return state.commitment != nil
            ? (next?.plan ?? .monthly) == .monthly && (next?.productId ?? state.productId) == state.autoRenewProductId
            : next?.plan == .monthly && next?.productId == state.autoRenewProductId
    }

    /// Whether a purchaser who shops in `storefront` is in a storefront of this target.
    func covers(_ storefront: Storefront) -> Bool {
        let customerStorefront = storefront.countryCode
        if let code = self.storefront { return code == customerStorefront }
        let currency = Storefronts.currency(countryCode: customerStorefront)
        return currency == self.currency || currency == nil
    }
}
