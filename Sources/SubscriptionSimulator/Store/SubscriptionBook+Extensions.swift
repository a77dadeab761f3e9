/// The renewal-date extension rules the subscription book owns (issue 44, item 1): whose subscription an extension
/// may name, what the lifecycle table is told about one, which subscriptions a mass extension considers, and which
/// renewals a device's billing-issue message is about. The store facade validates, asks the book and runs the table.
extension SubscriptionBook {
    /// Rule **members-extended-with-their-purchaser** (S-EXT-FS, Apple's error 4030007): among `keys` (the customer's chains), a
    /// family member's share of `productId` when the customer has no subscription of their own to it, which an
    /// extension may not name (members are extended with their purchaser); `nil` otherwise. `ownChain`: the
    /// customer's own chain of the product, if any.
    func memberShareToRefuse(among keys: [ChainID], of productId: String, ownChain: ChainID?) -> ChainID? {
        guard ownChain == nil else { return nil }
        return keys.first {
            chains[$0.index].ownership == .familyShared && chains[$0.index].state.productId == productId
        }
    }

    /// Rule members-extended-with-their-purchaser, refused (Apple's error 4030007): `customer` asked to extend
    /// `productId` and ``memberShareToRefuse(among:of:ownChain:)`` found a member's share of it.
    func refuseMemberShare(among keys: [ChainID], of productId: String, ownChain: ChainID?, customer: String)
        throws(StoreError)
    {
        if let member = memberShareToRefuse(among: keys, of: productId, ownChain: ownChain) {
            throw .lifecycle(
                .familySharedExtension, customer: customer, productId: chains[member.index].state.productId)
        }
    }

    /// The table's view of an extension of chain `key` by `days` at `now`: the days and the chain's extensions within
    /// ``BillingRules/extensionLimitWindow`` (rule two-extensions-per-365-days, which the table applies).
    func extensionRequest(_ key: ChainID, days: Int, at now: Instant) -> RenewalExtensionRequest {
        RenewalExtensionRequest(days: days, extensionsInPastYear: extensionsInPastYear(of: key, at: now))
    }

    /// Whether the table would refuse to extend chain `key` by `days` in `context` because of its state
    /// (S-EXT-INELIG: a free offer period, inactive billing retry, a passed grace period, two extensions in 365 days,
    /// expired), asked without changing anything (rule mass-extension-extends-eligible-only).
    func extensionIneligible(_ key: ChainID, days: Int, in context: LifecycleContext) -> Bool {
        guard
            case .rejected(let violation) = SubscriptionLifecycle.transition(
                chains[key.index].state, .renewalDateExtended(extensionRequest(key, days: days, at: context.now)),
                context)
        else { return false }
        return violation.makesExtensionIneligible
    }

    /// What a mass extension does with chain `key` (a purchaser's subscription it considers) by `days` at `now`, in
    /// order: rule **mass-extension-extends-eligible-only**, "the App Store attempts to extend eligible subscriptions
    /// only" (S-EXT-MASS, Extend Subscription Renewal Dates for All Active Subscribers): a subscription in a state
    /// Apple's page lists as ineligible (S-EXT-INELIG: a free offer period, inactive billing retry, a grace period
    /// whose expiration date has passed, two extensions in the past 365 days, expired) is skipped: no notification,
    /// not counted in `failedCount` or `succeededCount` (``extensionIneligible(_:days:in:)``, asked with the app's
    /// grace period settings, payment succeeding and the product for sale, without changing anything). An eligible
    /// one that ``failNextExtension(of:)`` marked fails (the mark is used and cleared: `RENEWAL_EXTENSION` /
    /// `FAILURE` about it; S-NT documents the subtype, not a cause: the mark is [assumed]); any other is extended.
    mutating func massExtensionStep(_ key: ChainID, days: Int, app: AppConfiguration, at now: Instant)
        -> MassExtension.Step
    {
        let context = LifecycleContext(
            now: now, paymentSucceeds: true, productForSale: true, gracePeriod: app.gracePeriod,
            graceEligibility: app.graceEligibility)
        if extensionIneligible(key, days: days, in: context) { return .skip }
        return takeFailingExtension(of: key) ? .fail : .extend
    }

    /// Whether a mass extension of `productId` considers chain `index`: a purchaser's subscription to the product
    /// that has not ended (active, grace or billing retry). Expired and refunded subscriptions are not considered
    /// [assumed: "active subscribers"]; members are never attempted directly (S-EXT-FS). The storefront filter is the
    /// caller's (the customer directory holds the storefronts).
    func massExtensionConsiders(chainAt index: Int, of productId: String) -> Bool {
        let chain = chains[index]
        return chain.ownership == .purchased && chain.state.productId == productId
            && chain.state.phase != .expired && chain.state.phase != .revoked
    }

    /// The products of `keys` (one customer's chains) whose renewal is failing for a billing issue, in chain order: a
    /// purchaser's own subscription in billing retry or grace because a charge failed (Apple retries and messages the
    /// customer throughout the 60 days, reference §5.3, S-TT-RET). A renewal failing because the product is not for
    /// sale is no billing issue; a family member's share has none (only the purchaser can fix the payment method).
    func billingIssues(among keys: [ChainID]) -> [String] {
        keys.compactMap { key -> String? in
            let chain = chains[key.index]
            guard chain.ownership == .purchased, chain.state.failure?.cause == .billingError,
                chain.state.phase == .billingRetry || chain.state.phase == .gracePeriod
            else { return nil }
            return chain.state.productId
        }
    }
}
