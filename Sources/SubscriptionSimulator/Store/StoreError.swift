/// Why the store refused an action. Every case names the rule it enforces.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownProduct(String)
    case unknownCustomer(String)
    case lifecycle(LifecycleRuleViolation, customer: String, productId: String)
    case nothingToRefund(customer: String, productId: String)
    case noSubscription(customer: String, productId: String)
    case nonRenewingWithoutDuration(String)
    case nonConsumableAlreadyOwned(customer: String, productId: String)
    case productNotForSale(String)
    case alreadyOnSale(String)
    case alreadyRemovedFromSale(String)
    case scheduling(SchedulingError)
    case family(FamilyRuleViolation)
    case noFamily(organizer: String?)
    case catalog(CatalogError)
    case noPriceInStorefront(productId: String, storefront: String)
    case storefrontFixed(customer: String, storefront: String)
    case invalidAppAccountToken(String, String)
    /// The run reached a limit of ``RunLimits``.
    case runLimit(RunLimitExceeded)

    /// `redeemOffer` names an offer the product does not declare (rule redeem-a-declared-offer).
    case unknownOffer(productId: String, offerId: String, known: [String])
    case priceIncrease(productId: String, String)
    /// A price increase with a start date that cannot be scheduled; `rule` names the rule (price-increase-notice-lead,
    /// price-increase-consent-threshold, one-scheduled-price-change; `Lifecycle/PriceIncreaseRules.swift`).
    case priceIncreaseSchedule(productId: String, rule: String, String)
    /// A win-back offer whose App Store Connect conditions the customer does not meet (rule win-back-conditions).
    case winBackIneligible(customer: String, productId: String, offerId: String, condition: String)
    /// A refund rule refused the request (``RefundRuleViolation``).
    case refunds(RefundRuleViolation)
    /// The monthly plan bought where it cannot be (rules commitment-plan-needs-one-year, commitment-storefronts).
    case commitmentUnavailable(productId: String, String)
    /// An offer configured for one billing plan used on the other (rule offer-for-its-plan, ``OfferRules``).
    case offerForAnotherPlan(productId: String, offerId: String, offerPlan: BillingPlan, plan: BillingPlan)
    /// A `viewCancellation` the retention rules refuse (`Store/SimulatedStore+CancellationViews.swift`).
    case retention(String)

    public var description: String {
        switch self {
        case .unknownProduct(let id): return "no product '\(id)' in the catalogue"
        case .unknownCustomer(let name): return "no customer named '\(name)'"
        case .retention(let reason): return reason
        case .lifecycle(let violation, let customer, let productId):
            return "\(customer), \(productId): \(violation)"
        case .nothingToRefund(let customer, let productId):
            return "\(customer) has no purchase of '\(productId)' to refund (rule refund-needs-a-purchase)"
        case .noSubscription(let customer, let productId):
            return "\(customer) has no subscription to '\(productId)' (rule action-needs-a-subscription)"
        case .nonRenewingWithoutDuration(let id):
            return "'\(id)' is a non-renewing subscription without a duration; give it a `duration` before it can be "
                + "purchased (rule non-renewing-needs-duration)"
        case .nonConsumableAlreadyOwned(let customer, let productId):
            return "\(customer) already owns the non-consumable '\(productId)'; it can be bought only once "
                + "(rule non-consumable-bought-once)"
        case .productNotForSale(let id):
            return "'\(id)' is not for sale; restore it to sale first (rule purchase-needs-product-on-sale)"
        case .alreadyOnSale(let id): return "'\(id)' is already on sale (rule restore-needs-removed-product)"
        case .alreadyRemovedFromSale(let id):
            return "'\(id)' is already removed from sale (rule remove-needs-product-on-sale)"
        case .scheduling(let error): return "\(error)"
        case .family(let violation): return "\(violation)"
        case .noFamily(let organizer):
            if let organizer { return "\(organizer) does not lead a family (rule join-needs-a-family)" }
            return "there is no single family to join; name the organizer (rule join-needs-a-family)"
        case .catalog(let error): return "\(error)"
        case .noPriceInStorefront(let id, let storefront):
            let currency = Storefronts.currency(countryCode: storefront).map { " (\($0))" } ?? ""
            return "'\(id)' has no price in storefront \(storefront)\(currency); give the product a price there "
                + "(`prices: { \(storefront): ... }`) or the customer a storefront of the product's currency "
                + "(rule price-in-storefront-currency)"
        case .storefrontFixed(let customer, let storefront):
            return "\(customer) already has transactions in storefront \(storefront); a customer's storefront is set "
                + "before their first purchase (rule storefront-fixed-per-customer)"
        case .invalidAppAccountToken(let token, let problem):
            return "appAccountToken '\(token)': \(problem) (rule app-account-token-is-a-uuid)"
        case .runLimit(let error): return "\(error)"
        case .unknownOffer(let productId, let offerId, let known):
            let list = known.isEmpty ? "it has none" : "its offers are " + known.joined(separator: ", ")
            return "'\(productId)' has no offer '\(offerId)'; \(list) (rule redeem-a-declared-offer)"
        case .winBackIneligible(let customer, let productId, let offerId, let condition):
            return "'\(customer)' is not eligible for win-back offer '\(offerId)' of '\(productId)': \(condition) "
                + "(rule win-back-conditions)"
        case .priceIncrease(let productId, let problem):
            return "'\(productId)': \(problem) (rule price-increase-raises-price)"
        case .priceIncreaseSchedule(let productId, let rule, let problem):
            return "'\(productId)': \(problem) (rule \(rule))"
        case .refunds(let violation): return "\(violation)"
        case .commitmentUnavailable(let productId, let problem): return "'\(productId)': \(problem)"
        case .offerForAnotherPlan(let productId, let offerId, let offerPlan, let plan):
            return
                "'\(productId)': offer '\(offerId)' is for the \(offerPlan.rawValue) plan, and this redemption is on "
                + "the \(plan.rawValue) plan (rule offer-for-its-plan: offers are configured per billing plan; a "
                + "redemption on a running subscription is on its plan, one for another product of the group on the "
                + "up-front plan)"
        }
    }
}
