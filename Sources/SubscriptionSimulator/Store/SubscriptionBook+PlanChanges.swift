/// The plan-change rules the subscription book owns (issue 44, item 1): whose subscription a plan change moves and
/// which billing plan it chooses. The rules of the change itself are rows of the transition table
/// (`Lifecycle/PlanChanges.swift`).
extension SubscriptionBook {
    /// The subscription a plan change of `customer` in `group` moves: their own (purchased) chain in the group. A
    /// family member has no subscription of their own to change (the share is the purchaser's): `nil`, refused by the
    /// caller as no subscription.
    func purchasedChain(of customer: String, inGroup group: String) -> ChainID? {
        guard let key = chain(of: customer, inGroup: group), chains[key.index].ownership == .purchased else {
            return nil
        }
        return key
    }

    /// The subscription `customer`'s plan change to `product` moves (``purchasedChain(of:inGroup:)``); refused as no
    /// subscription when `product` is not an auto-renewable subscription of a group or the customer has none of their
    /// own in its group.
    func chainToChange(of customer: String, to product: Product) throws(StoreError) -> ChainID {
        guard product.type == .autoRenewable, let group = product.group,
            let key = purchasedChain(of: customer, inGroup: group)
        else { throw .noSubscription(customer: customer, productId: product.id) }
        return key
    }

    /// The billing plan a plan change of chain `key` to `productId` is on (Appendix E G3, G4): the plan chosen, or,
    /// when none is (`nil`), the current plan for the current product and the up-front plan of another product. The
    /// current product on its other plan switches at the next renewal, inside a commitment at its end, with
    /// `DID_CHANGE_RENEWAL_PREF` without subtype, and the current plan again undoes it (rules
    /// billing-plan-switch-at-renewal, billing-plan-switch-no-subtype, `Lifecycle/PlanChanges.swift`; a crossgrade
    /// between plans: ``PlanChangeKind/crossgradeTakesEffectAtOnce(from:plan:to:plan:)``).
    func planOfChange(_ key: ChainID, to productId: String, chosen: BillingPlan?) -> BillingPlan {
        let state = chains[key.index].state
        return chosen ?? (productId == state.productId ? state.billingPlan : .upfront)
    }

    /// How a plan change of chain `key` to `product` on the plan `chosen` takes effect (``PlanChangeKind``, rules
    /// plan-change-upgrade, plan-change-downgrade, crossgrade-between-plans), and the plan it is on
    /// (``planOfChange(_:to:chosen:)``); `catalog`: where the chain's current product is looked up.
    func planChange(_ key: ChainID, to product: Product, chosen: BillingPlan?, in catalog: Catalog)
        -> (kind: PlanChangeKind, plan: BillingPlan)
    {
        let state = chains[key.index].state
        let plan = planOfChange(key, to: product.id, chosen: chosen)
        let kind = PlanChangeKind.of(
            from: catalog[state.productId]!, currentPlan: state.billingPlan, to: product, targetPlan: plan)
        return (kind, plan)
    }

    /// How a plan change of chain `key` to `product` with an offer takes effect (``PlanChangeKind``, the new product
    /// on its up-front plan; rules offer-for-another-product-upgrade and -downgrade).
    func planChangeKind(_ key: ChainID, to product: Product, in catalog: Catalog) -> PlanChangeKind {
        let state = chains[key.index].state
        return PlanChangeKind.of(from: catalog[state.productId]!, currentPlan: state.billingPlan, to: product)
    }
}
