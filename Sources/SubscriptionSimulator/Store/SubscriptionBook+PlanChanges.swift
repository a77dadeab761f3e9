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

    /// The billing plan a plan change of chain `key` to `productId` is on (Appendix E G3, G4): the plan chosen, or,
    /// when none is (`nil`), the current plan for the current product and the up-front plan of another product.
    func planOfChange(_ key: ChainID, to productId: String, chosen: BillingPlan?) -> BillingPlan {
        let state = chains[key.index].state
        return chosen ?? (productId == state.productId ? state.billingPlan : .upfront)
    }
}
