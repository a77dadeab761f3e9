/// Events the store keeps on its clock. Data only: no closures in the queue.
enum StoreEvent: Hashable, Sendable {
    /// A subscription's lifecycle timer (renewal, end of grace, end of retry).
    case lifecycle(chain: ChainID, timer: LifecycleTimer)
    /// A non-renewing subscription's term ends (changes entitlements; sends nothing).
    case nonRenewingTermEnds(customer: String)
    /// The family delay is over: the share reaches the member (see `Family/`).
    case familyGrant(share: Int)
    /// A price increase with a start date starts (`Store/SimulatedStore+PriceIncreases.swift`).
    case priceIncreaseStarts(increase: Int)
    /// A purchaser is told of a price increase with a start date (rule price-increase-first-renewal).
    case priceIncreaseNotice(increase: Int, chain: ChainID)
}

/// Priorities at one instant: store events run before customer actions (issue 2). Customer actions are not
/// queued: they run at `now`, after ``SimulatedStore/advance(to:)`` has run every store event due at that instant.
enum StoreEventPriority {
    static let storeEvent = 0
    /// A price increase's start and notices run after the lifecycle events of their instant: a renewal at the start
    /// instant keeps the old price, and a notice due at a renewal instant comes after that renewal (rule
    /// price-increase-first-renewal).
    static let priceIncrease = 1
}
