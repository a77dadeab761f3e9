/// The sharing switches and their rules (reference §4.1, §4.3, §4.4): the purchaser's "Share With Family" main switch,
/// the per-purchase switch (a subscription's in the ``SubscriptionBook``, a non-consumable's in the family book), and
/// the developer's per-product Family Sharing setting. The facade (`Store/SimulatedStore+Family.swift`) finds the
/// purchase, calls these, then ends or offers the shares.
extension FamilyBook {
    /// **share-with-family-switch**: the purchaser's "Share With Family" main switch (Apple Support: "Share New
    /// Subscriptions"). On by default; it governs new purchases only and never unshares an existing one (reference
    /// §4.3, Appendix B-14). Refused when it is already `enabled`.
    mutating func setShareWithFamily(_ enabled: Bool, for customer: String) throws(StoreError) {
        guard sharesNewPurchases(customer) != enabled else {
            throw .family(.mainSwitchAlreadySet(customer: customer, enabled: enabled))
        }
        setSharesNewPurchases(enabled, for: customer)
    }

    /// The purchase of `product` a sharing switch of `customer` turns: their subscription `chain` (the caller's
    /// lookup, which refuses a customer without one; nil for another type), or their latest unrefunded
    /// non-consumable `oneTime` (rule **sharing-needs-a-purchase**). Rule **shareable-types** refuses other types.
    static func switchedPurchase(
        _ product: Product, by customer: String, chain: ChainID?, oneTime: Int?
    ) throws(StoreError) -> Share.Source {
        switch product.type {
        case .autoRenewable:
            guard let chain else { throw .noSubscription(customer: customer, productId: product.id) }
            return .subscription(chain: chain)
        case .nonConsumable:
            guard let oneTime else { throw .family(.nothingToShare(customer: customer, productId: product.id)) }
            return .nonConsumable(transactionIndex: oneTime)
        case .consumable, .nonRenewing:
            throw .family(.typeCannotBeShared(productId: product.id, type: product.type))
        }
    }

    /// The purchaser `customer` turns sharing of `source` (a purchase of `product`) off: rule
    /// stop-sharing-needs-sharing-on, in ``SubscriptionBook/stopSharing(_:customer:productId:)`` or
    /// ``stopSharing(nonConsumable:shareable:customer:productId:)``. Returns the shares that end (REVOKE, reason 0;
    /// inside the family delay members never receive it, reference §4.4, Appendix A-6), members in family order.
    mutating func stopSharing(
        _ source: Share.Source, of product: Product, by customer: String, subscriptions: inout SubscriptionBook
    ) throws(StoreError) -> [Int] {
        switch source {
        case .subscription(let key):
            try subscriptions.stopSharing(key, customer: customer, productId: product.id)
            return sharesEnded(bySwitchingOff: source)
        case .nonConsumable(let index):
            return try stopSharing(
                nonConsumable: index, shareable: product.familyShareable, customer: customer, productId: product.id)
        }
    }

    /// Rules **shareable-types**, then **sharing-needs-a-shareable-product**: sharing is switched on only for an
    /// auto-renewable subscription or a non-consumable (``FamilyRules/canBeShared(_:)``) that is family shareable.
    static func checkCanStartSharing(_ product: Product) throws(StoreError) {
        guard FamilyRules.canBeShared(product.type) else {
            throw .family(.typeCannotBeShared(productId: product.id, type: product.type))
        }
        guard product.familyShareable else { throw .family(.notShareable(productId: product.id)) }
    }

    /// The purchaser `customer` turns sharing of `source` (a purchase of `product`) back on: rule
    /// start-sharing-needs-sharing-off, in ``SubscriptionBook/startSharing(_:customer:productId:)`` or
    /// ``startSharing(nonConsumable:customer:productId:)``. Members then get it at once, no delay (reference §4.4;
    /// S-RC-BLOG, S-TT-FS).
    mutating func startSharing(
        _ source: Share.Source, of product: Product, by customer: String, subscriptions: inout SubscriptionBook
    ) throws(StoreError) {
        switch source {
        case .subscription(let key): try subscriptions.startSharing(key, customer: customer, productId: product.id)
        case .nonConsumable(let index):
            try startSharing(nonConsumable: index, customer: customer, productId: product.id)
        }
    }

    /// `product` made family shareable by the developer: rule shareable-types, then **make-shareable-once**
    /// (refused when it is already). It cannot be turned off again (reference §4.1). Existing subscribers share only
    /// after they opt in (`startSharing`); family members get an existing non-consumable only when they restore
    /// purchases (reference §4.3, §4.5; S-TT-FS, S-FSA).
    static func madeShareable(_ product: Product) throws(StoreError) -> Product {
        guard FamilyRules.canBeShared(product.type) else {
            throw .family(.typeCannotBeShared(productId: product.id, type: product.type))
        }
        guard !product.familyShareable else { throw .family(.alreadyShareable(productId: product.id)) }
        var product = product
        product.familyShareable = true
        return product
    }

    /// **family-sharing-cannot-be-turned-off**: Family Sharing cannot be turned off for a product once on (reference
    /// §4.1; S-FSA, S-TT-FS); for a product without it, rule sharing-needs-a-shareable-product. The refusal.
    static func turnOffRefusal(_ product: Product) -> StoreError {
        .family(
            product.familyShareable
                ? .cannotTurnOffFamilySharing(productId: product.id) : .notShareable(productId: product.id))
    }
}
