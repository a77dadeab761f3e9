/// The subscription book's purchase rules: the offer a purchase gets, what buying a subscription the customer already
/// has does, the chain a first purchase opens, and which chains the billing and on-sale actions reach. The facade
/// (`Store/SimulatedStore.swift`, "Purchases" and the customer and developer actions) runs the lifecycle table with
/// what these return. Facts: reference §5.10, §5.11, §5.15.
extension SubscriptionBook {
    /// Rules offer-for-its-plan, intro-offer-per-plan: the offer a purchase of `product` on `plan` by the (customer,
    /// group) pair `groupKey` (``customerGroupKey(_:_:)``) gets: the one `redeemed`, or else the introductory offer
    /// configured for the plan bought while the group's is unused (once per group, reference §5.11, S-INTRO).
    func offer(
        forPurchaseOf product: Product, plan: BillingPlan, groupKey: String, redeemed: SubscriptionOffer?
    ) -> SubscriptionOffer? {
        redeemed ?? (introOfferUsed.contains(groupKey) ? nil : product.introOffer(for: plan))
    }

    /// Buying another product of the group while subscribed is a plan change (reference §5.10).
    func isPlanChange(buying productId: String, on key: ChainID) -> Bool {
        chains[key.index].state.phase == .active && chains[key.index].state.productId != productId
    }

    /// The input of buying `request`'s product again on a chain the customer has: redeeming `redeemed`
    /// (`Store/SimulatedStore+Offers.swift`) or a plain purchase again.
    static func purchaseAgainInput(_ request: PurchaseRequest, redeemed: SubscriptionOffer?) -> LifecycleInput {
        guard let redeemed else { return .purchasedAgain(request) }
        return .offerRedeemed(
            OfferRedemption(productId: request.productId, period: request.period, offer: redeemed, plan: request.plan))
    }

    /// Resubscribe keeps the originalTransactionId; recentSubscriptionStartDate restarts at `now` only after a
    /// gap of more than 60 days (``BillingRules/recentStartGapAllowance``) since the service ended: at the current
    /// transaction's revocation for a revoked subscription, otherwise at its expiry (reference §5.15, S-RSSD).
    mutating func restartRecentSubscriptionAfterGap(of key: ChainID, ledger: TransactionLedger, at now: Instant) {
        let state = chains[key.index].state
        let serviceEnded =
            state.phase == .revoked
            ? (ledger.transactions[chains[key.index].currentTransactionIndex].revocation?.date ?? state.expiresDate)
            : state.expiresDate
        if serviceEnded.adding(BillingRules.recentStartGapAllowance) < now {
            restartRecentSubscription(of: key, at: now)
        }
    }

    /// The chain a customer's first purchase in `group` opens: its own `originalTransactionId`, purchased, sharing
    /// off until the family rules decide (``SimulatedStore/startSharingNewPurchase(chain:product:)``), bought and
    /// started `now`, no transaction yet (the charge effect appends it).
    static func firstPurchaseChain(
        originalTransactionId: String, customer: String, customerAt position: Int, group: String,
        groupIdentifier: String, state: SubscriptionState, at now: Instant
    ) -> SubscriptionChain {
        var chain = SubscriptionChain(
            originalTransactionId: originalTransactionId, customer: customer, group: group,
            groupIdentifier: groupIdentifier, ownership: .purchased, sharedFrom: nil, sharingOn: false, state: state,
            originalPurchaseDate: now, recentSubscriptionStartDate: now, currentTransactionIndex: -1)
        chain.customerPosition = position
        return chain
    }

    /// The customer's own subscriptions among `keys` (their chains), which ``SimulatedStore/fixBilling(for:)``
    /// reaches: a family member's share mirrors its purchaser's billing.
    func purchasedChains(among keys: [ChainID]) -> [ChainID] {
        keys.filter { chains[$0.index].ownership == .purchased }
    }

    /// The purchasers' subscriptions whose current product is `productId`, in creation order: a product put back on
    /// sale reaches these (members follow their purchaser).
    func purchasedChains(ofProduct productId: String) -> [ChainID] {
        chains.indices.filter { chains[$0].state.productId == productId && chains[$0].ownership == .purchased }
            .map { ChainID(index: $0) }
    }
}
