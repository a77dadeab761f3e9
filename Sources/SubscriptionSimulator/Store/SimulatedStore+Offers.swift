/// Offers customers redeem: promotional offers, offer codes and win-back offers (reference §5.11, §1.1).
extension SimulatedStore {
    /// The customer redeems one of the product's offers (`Product.offers`).
    ///
    /// Rule **offer-notification-choice** (reference §1.1, §5.11; S-NT, S-CL 23 Jan 2024):
    /// - no subscription in the group yet: an offer code starts it, `SUBSCRIBED` / `INITIAL_BUY` with the offer as the
    ///   first period(s); promotional and win-back offers are refused (rule promotional-offer-for-subscribers:
    ///   promotional offers are for "existing or former subscribers", App Store Connect `SubscriptionPromotionalOffer`).
    /// - expired or refunded: `SUBSCRIBED` / `RESUBSCRIBE`, a new transaction with the offer, now.
    /// - active: `OFFER_REDEEMED` without subtype; the offer starts at the next renewal (rule
    ///   offer-starts-at-next-renewal in `Lifecycle/OffersAndPriceIncreases.swift`). An offer for another product of
    ///   the group: `OFFER_REDEEMED` / `UPGRADE` or `DOWNGRADE`, a plan change with the offer
    ///   (``redeemOfferForAnotherProduct(_:_:key:)``).
    /// - grace or billing retry: refused (rule no-offer-during-billing-retry) [assumed, as for purchases].
    ///
    /// A one-time product's offer code (mode `ONE_TIME`) is a purchase at the offer's price: `ONE_TIME_CHARGE` with
    /// `offerType` 3, `offerIdentifier` and `offerDiscountType` `ONE_TIME` (reference §2.7).
    ///
    /// An offer never makes the customer use up their introductory offer eligibility: Apple grants the introductory
    /// offer to customers who have not received one in the group (StoreKit, "Implementing introductory offers").
    public mutating func redeemOffer(_ offerId: String, for productId: String, by customer: String)
        throws(StoreError)
    {
        let product = try requireProduct(productId)
        guard let offer = product.offer(withId: offerId) else {
            throw .unknownOffer(productId: productId, offerId: offerId, known: product.offers.compactMap(\.identifier))
        }
        if removedFromSale.contains(productId) { throw .productNotForSale(productId) }
        // Rule offer-for-its-plan.
        try subscriptionBook.checkRedemptionPlan(of: offer, productId: product.id, chain: chainKey(customer, product))
        let storefront = storefront(of: customer)
        guard StorefrontPricing.price(of: product, in: storefront) != nil,
            StorefrontPricing.price(of: product, offer: offer, in: storefront) != nil
        else {
            throw .noPriceInStorefront(productId: productId, storefront: storefront.countryCode)
        }
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

    /// Rule **offer-code-buys-its-plan** [assumed]: a redemption that starts or restarts a subscription (an offer code
    /// with no subscription in the group, any offer after expiry or refund) buys the billing plan the offer is
    /// configured for: an offer configured for the monthly plan starts a commitment (Appendix E O1: offers, offer
    /// codes included, are configured per billing plan, so redeeming one buys that plan; Apple does not describe the
    /// redemption itself). The monthly plan needs a storefront that sells it (rule commitment-storefronts). The
    /// transactions carry the offer fields and, from billing period 1, `commitmentInfo` (a free trial runs first,
    /// rule commitment-starts-after-free-trial).
    mutating func redeemSubscriptionOffer(_ offer: SubscriptionOffer, _ product: Product, by customer: String)
        throws(StoreError)
    {
        let startPlan = offer.plan ?? .upfront
        guard let key = chainKey(customer, product) else {
            try SubscriptionBook.checkStartsSubscription(offer, customer: customer, productId: product.id)
            if startPlan == .monthly { try requireCommitmentPlan(of: product, for: customer) }
            addCustomer(customer)
            return try purchaseSubscription(product, by: customer, redeemed: offer, plan: startPlan)
        }
        let state = subscriptionBook.chains[key.index].state
        switch state.phase {
        case .expired, .revoked:
            // Checked before anything changes (the resubscription path updates the chain before the table runs).
            if offer.type == .winBack {
                try subscriptionBook.checkWinBackRedemption(
                    offer, of: key, productId: product.id,
                    paidMilliseconds: ledger.paidMilliseconds(
                        of: subscriptionBook.chains[key.index].originalTransactionId, at: now), at: now)
            }
            if startPlan == .monthly { try requireCommitmentPlan(of: product, for: customer) }
            try purchaseSubscription(product, by: customer, redeemed: offer, plan: startPlan)
            if offer.type == .winBack { subscriptionBook.noteWinBackRedemption(of: key, at: now) }
        case .active, .gracePeriod, .billingRetry:
            guard state.productId == product.id else {
                return try redeemOfferForAnotherProduct(offer, product, key: key)
            }
            try apply(
                .offerRedeemed(OfferRedemption(productId: product.id, period: product.period!, offer: offer)), to: key)
        }
    }
}

extension SimulatedStore {
    /// An offer for another product of the subscription's group, redeemed by the purchaser while subscribed: the plan
    /// change and the offer in one step (rules offer-for-another-product-upgrade and -downgrade,
    /// `Lifecycle/OffersForAnotherProduct.swift`). The timing follows the products' levels as for ``changePlan(to:by:)``
    /// (``PlanChangeKind``): at once for an upgrade or a crossgrade of the same duration, at the next renewal
    /// otherwise. Family members with the share receive the `OFFER_REDEEMED` with their own transactions, as for a plan
    /// change (reference §1.3: OFFER_REDEEMED goes to members too), and follow the product's shareability (rule
    /// plan-change-leaves-shareable-product); their transactions carry no offer fields. A family member has no
    /// subscription of their own to change (the share is the purchaser's): refused as by ``changePlan(to:by:)``.
    mutating func redeemOfferForAnotherProduct(_ offer: SubscriptionOffer, _ product: Product, key: ChainID)
        throws(StoreError)
    {
        try subscriptionBook.checkOwnSubscription(key, productId: product.id)
        let chain = subscriptionBook.chains[key.index]
        let kind = PlanChangeKind.of(
            from: catalog[chain.state.productId]!, currentPlan: chain.state.billingPlan, to: product)
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
