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
