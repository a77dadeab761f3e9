/// Offers customers redeem: promotional offers, offer codes and win-back offers (reference §5.11, §1.1).
extension SimulatedStore {
    /// The customer redeems one of the product's offers (`Product.offers`).
    ///
    /// A subscription's offer starts (`SUBSCRIBED` / `INITIAL_BUY`) or restarts (`SUBSCRIBED` / `RESUBSCRIBE`) it, or
    /// is `OFFER_REDEEMED` on an active one (rule offer-notification-choice, ``SubscriptionBook/redemption(chain:)``).
    /// A one-time product's offer code (mode `ONE_TIME`) is a purchase at the offer's price: `ONE_TIME_CHARGE` with
    /// `offerType` 3, `offerIdentifier` and `offerDiscountType` `ONE_TIME` (reference §2.7). An offer never uses up the
    /// introductory offer (``SubscriptionBook/introOfferAvailable(to:inGroup:)``). Refused by rules offer-for-its-plan,
    /// promotional-offer-for-subscribers, win-back-eligibility, no-offer-during-billing-retry and
    /// price-in-storefront-currency.
    public mutating func redeemOffer(_ offerId: String, for productId: String, by customer: String)
        throws(StoreError)
    {
        let product = try requireProduct(productId)
        guard let offer = product.offer(withId: offerId) else {
            throw .unknownOffer(productId: productId, offerId: offerId, known: product.offers.compactMap(\.identifier))
        }
        try saleStatus.checkForSale(productId)
        // Rule offer-for-its-plan.
        try subscriptionBook.checkRedemptionPlan(of: offer, productId: product.id, chain: chainKey(customer, product))
        try PurchaseRequirements.checkOfferPrice(of: product, offer: offer, in: storefront(of: customer))
        switch product.type {
        case .autoRenewable:
            // Names a new customer only once the offer is accepted (a refusal changes nothing).
            try redeemSubscriptionOffer(offer, product, by: customer)
        case .consumable, .nonConsumable:
            addCustomer(customer)
            try purchaseOneTime(product, by: customer, offer: offer)
        case .nonRenewing:
            // The catalogue refuses offers on non-renewing subscriptions (rule offer-fits-product).
            throw .unknownOffer(productId: productId, offerId: offerId, known: [])
        }
        refreshEntitlements()
    }

    /// A redemption that starts or restarts a subscription buys the offer's plan
    /// (``SubscriptionBook/startPlan(of:)``, rule offer-code-buys-its-plan [assumed]).
    mutating func redeemSubscriptionOffer(_ offer: SubscriptionOffer, _ product: Product, by customer: String)
        throws(StoreError)
    {
        let startPlan = SubscriptionBook.startPlan(of: offer)
        switch subscriptionBook.redemption(chain: chainKey(customer, product)) {
        case .starts:
            try SubscriptionBook.checkStartsSubscription(offer, customer: customer, productId: product.id)
            if startPlan == .monthly { try requireCommitmentPlan(of: product, for: customer) }
            addCustomer(customer)
            try purchaseSubscription(product, by: customer, redeemed: offer, plan: startPlan)
        case .restarts(let key):
            // Checked before anything changes (the resubscription path updates the chain before the table runs).
            try subscriptionBook.checkWinBackRedemption(offer, of: key, productId: product.id, ledger: ledger, at: now)
            if startPlan == .monthly { try requireCommitmentPlan(of: product, for: customer) }
            try purchaseSubscription(product, by: customer, redeemed: offer, plan: startPlan)
            if offer.type == .winBack { subscriptionBook.noteWinBackRedemption(of: key, at: now) }
        case .onSubscription(let key) where subscriptionBook.chains[key.index].state.productId != product.id:
            try redeemOfferForAnotherProduct(offer, product, key: key)
        case .onSubscription(let key):
            try apply(
                .offerRedeemed(OfferRedemption(productId: product.id, period: product.period!, offer: offer)), to: key)
        }
    }

    /// An offer for another product of the subscription's group, redeemed by the purchaser while subscribed: the plan
    /// change and the offer in one step, timed by the products' levels as for ``changePlan(to:by:plan:)`` (rules
    /// offer-for-another-product-upgrade and -downgrade, `Lifecycle/OffersForAnotherProduct.swift`). Family members
    /// with the share receive the `OFFER_REDEEMED` with their own transactions (reference §1.3: OFFER_REDEEMED goes to
    /// members too) and no offer fields, and follow the product's shareability (rule
    /// plan-change-leaves-shareable-product). A member's share is refused
    /// (``SubscriptionBook/checkOwnSubscription(_:productId:)``).
    mutating func redeemOfferForAnotherProduct(_ offer: SubscriptionOffer, _ product: Product, key: ChainID)
        throws(StoreError)
    {
        try subscriptionBook.checkOwnSubscription(key, productId: product.id)
        let kind = subscriptionBook.planChangeKind(key, to: product, in: catalog)
        let redemption = OfferRedemption(productId: product.id, period: product.period!, offer: offer)
        guard let input = kind.offerInput(redemption) else { return }
        do throws(StoreError) {
            try apply(input, to: key)
        } catch .lifecycle(let rule, let customer, _) {
            // A refusal names the product the customer asked for, not the one they have.
            throw .lifecycle(rule, customer: customer, productId: product.id)
        }
    }
}
