/// Plan changes within a subscription group (issue 14 item 1; reference §5.10): upgrades and crossgrades of the
/// same duration at once, downgrades and crossgrades of another duration at the next renewal, and cancelling a
/// pending downgrade. The rules themselves are rows of the transition table (`Lifecycle/PlanChanges.swift`).
extension SimulatedStore {
    /// The customer moves their subscription in `productId`'s group to `productId` (in the app or in the App Store's
    /// subscription settings), timed by the products' levels (``PlanChangeKind``; rules plan-change-upgrade,
    /// plan-change-downgrade): a higher level, or the same level and duration, at once (`DID_CHANGE_RENEWAL_PREF` /
    /// `UPGRADE`); a lower level, or the same level and another duration, `DID_CHANGE_RENEWAL_PREF` / `DOWNGRADE` now
    /// and `DID_RENEW` with the new product at the next renewal; the current product while a downgrade is pending,
    /// `DID_CHANGE_RENEWAL_PREF` without subtype.
    ///
    /// `plan`: the billing plan chosen (``SubscriptionBook/planOfChange(_:to:chosen:)``). The current product on its
    /// other plan is a switch at the next renewal (rules billing-plan-switch-at-renewal,
    /// billing-plan-switch-no-subtype, `Lifecycle/PlanChanges.swift`); the monthly plan needs the product's
    /// `monthlyCommitment` and a storefront that sells it (rules commitment-plan-needs-one-year,
    /// commitment-storefronts); a crossgrade's timing between plans is rule crossgrade-between-plans. Refused when
    /// the customer has no subscription of their own in the group (``SubscriptionBook/chainToChange(of:to:)``).
    ///
    /// Family members with the share receive the same notification with their own transactions (reference §1.3) and
    /// follow the product's shareability (rule plan-change-leaves-shareable-product,
    /// ``shareAfterPlanChange(_:key:from:)``).
    public mutating func changePlan(to productId: String, by customer: String, plan: BillingPlan? = nil)
        throws(StoreError)
    {
        // No customer is named here: one with a subscription to change is known already, and a refusal names none.
        let product = try requireProduct(productId)
        try changePlan(subscriptionBook.chainToChange(of: customer, to: product), to: product, plan: plan)
        refreshEntitlements()
    }

    /// Runs the plan change of `key` to `product` on `plan` (as ``changePlan(to:by:plan:)``), a product of the
    /// chain's group, after the purchase checks.
    mutating func changePlan(_ key: ChainID, to product: Product, plan: BillingPlan? = nil) throws(StoreError) {
        let (kind, targetPlan) = subscriptionBook.planChange(key, to: product, chosen: plan, in: catalog)
        if kind != .currentProduct {
            let customer = subscriptionBook.chains[key.index].customer
            try saleStatus.checkForSale(product.id)
            try requirePrice(of: product, for: customer, plan: nil)
            if targetPlan == .monthly { try requireCommitmentPlan(of: product, for: customer) }
        }
        try apply(
            kind.input(PurchaseRequest(productId: product.id, period: product.period!, offer: nil, plan: targetPlan)),
            to: key)
    }

    /// Marks the chain's current transaction, and each member's with the share, `isUpgraded` (reference §5.10,
    /// the transaction is re-signed, so it moves to the end of the history's modification order.
    mutating func markUpgraded(_ chain: SubscriptionChain, key: ChainID, membersToo: Bool) {
        ledger.markUpgraded(chain.currentTransactionIndex, at: now)
        guard membersToo else { return }
        for index in familyBook.fanOutCurrentTransactions(of: key, in: subscriptionBook) {
            ledger.markUpgraded(index, at: now)
        }
    }

    /// **plan-change-leaves-shareable-product**: when a plan change takes effect (at once, or a downgrade at the
    /// renewal), members follow the product:
    /// - to a product that is not family shareable: each member with the share, or waiting for it, loses it; a
    ///   member who had access gets `REVOKE` (revocationReason 0, `FAMILY_REVOKE`) after the purchaser's
    ///   notification, its renewal info naming the product the member had (`autoRenewProductId`) **[assumed]**. Apple documents nothing for this case (reference Appendix B-12, whose plausible answer this
    ///   is: a loss of sharing, not an expiry of the purchaser's subscription) **[assumed]**;
    /// - from a non-shareable product to a shareable one: shared as a new purchase is, under the purchaser's "Share
    ///   New Subscriptions" switch, after the family delay (reference §4.3, §4.4, Appendix A-5: "upgrades into a
    ///   shareable product").
    mutating func shareAfterPlanChange(
        _ chain: inout SubscriptionChain, key: ChainID, from previous: String
    ) throws(StoreError) {
        let shareable = catalog[chain.state.productId]!.familyShareable
        if !shareable {
            chain.sharingOn = false
            for id in familyBook.sharesOf(.subscription(chain: key)) {
                // The member's renewal info keeps the product they had, not the one they do not get [assumed].
                if let member = familyBook.shares[id].memberChain {
                    subscriptionBook.dropPendingChange(of: member)
                }
                try endShare(id, reason: 0)
            }
        } else if catalog[previous]?.familyShareable == false {
            chain.sharingOn = familyBook.sharesNewPurchases(chain.customer)
            if chain.sharingOn { try scheduleShares(of: .subscription(chain: key), purchaser: chain.customer) }
        }
    }

    // MARK: - Paid days of service

    /// The customer's whole days of paid service in `productId`'s group at `now`, the count behind the proceeds rate
    /// rising from 70 % to 85 % (rule paid-days-of-service, ``TransactionLedger/paidDaysOfService(of:at:)``).
    public func paidDaysOfService(for customer: String, inGroupOf productId: String) throws(StoreError) -> Int {
        requireHistory("paidDaysOfService(for:inGroupOf:)")
        let product = try requireProduct(productId)
        return ledger.paidDaysOfService(
            of: chainKey(customer, product).map { subscriptionBook.chains[$0.index] }, at: now)
    }
}
