/// Who the schedule's increases still have to tell, and when a due notice moves (issue 44, item 1): the store facade
/// schedules the notice events and runs the transition the notice makes.
extension PriceIncreaseSchedule {
    /// Whether chain `index` (in `state`) still waits for a notice of increase `increase`: it has not been told, and
    /// its subscription has not ended (an expired or revoked subscription is told nothing; rule
    /// price-increase-first-renewal). Whether the increase reaches the chain at all is ``PriceTarget``'s
    /// (``PriceTarget/reachesPlan(of:)``, ``PriceTarget/covers(_:)``).
    func awaitsNotice(chainAt index: Int, in state: SubscriptionState, of increase: Int) -> Bool {
        guard !parts.told[increase].contains(index) else { return false }
        switch state.phase {
        case .expired, .revoked: return false
        case .active, .gracePeriod, .billingRetry: return true
        }
    }

    /// Whether a notice of `increase` due at `now` moves instead of being sent: the active subscription's renewal
    /// dates moved since it was scheduled (an extension, a plan change), so its notice instant (rule
    /// price-increase-first-renewal, ``noticeInstant(of:for:)``) is still ahead; the notice moves with them.
    static func noticeMoved(of increase: ScheduledPriceIncrease, for state: SubscriptionState, at now: Instant) -> Bool
    {
        state.phase == .active && noticeInstant(of: increase, for: state) > now
    }

    /// The target of increase `increase` as it was made (``PriceTarget/init(of:product:)``); `catalog`: the store's,
    /// where the increase's product is looked up.
    func target(of increase: Int, in catalog: Catalog) -> PriceTarget {
        let scheduled = parts.increases[increase]
        return PriceTarget(of: scheduled, product: catalog[scheduled.productId])
    }

    /// Rule **price-increase-first-renewal**: the chains of `subscriptions` that increase `increase` reaches
    /// (``PriceTarget/reaches(_:in:)``, its purchaser shopping in `storefront(customer)`) and that still wait for its
    /// notice (``awaitsNotice(chainAt:in:of:)``), in chain order. The caller tells each (``tell(_:of:)``) and
    /// schedules its notice.
    func awaitingNotice(
        of increase: Int, target: PriceTarget, in subscriptions: SubscriptionBook,
        storefront: (String) -> Storefront
    ) -> [ChainID] {
        var keys: [ChainID] = []
        for index in subscriptions.chains.indices
        where awaitsNotice(chainAt: index, in: subscriptions.chains[index].state, of: increase)
            && target.reaches(subscriptions.chains[index], in: storefront(subscriptions.chains[index].customer))
        {
            keys.append(ChainID(index: index))
        }
        return keys
    }

    /// ``awaitingNotice(of:target:in:storefront:)`` for the increase's own target (``target(of:in:)``, its product
    /// looked up in `catalog`).
    func awaitingNotice(
        of increase: Int, in subscriptions: SubscriptionBook, catalog: Catalog, storefront: (String) -> Storefront
    ) -> [ChainID] {
        awaitingNotice(
            of: increase, target: target(of: increase, in: catalog), in: subscriptions, storefront: storefront)
    }

    /// ``noticeInstant(of:for:)`` of increase number `increase`.
    func noticeInstant(of increase: Int, for state: SubscriptionState) -> Instant {
        Self.noticeInstant(of: parts.increases[increase], for: state)
    }
}
