/// The store's subscriptions: every subscription chain (a purchaser's, or a family member's share of one), the index
/// from (customer, group) to the purchaser's chain, who has used the introductory offer of a group, and when each
/// chain's renewal date was extended.
///
/// Invariants (``isConsistent``): chains are never removed, so a ``ChainID`` stays valid; `chainByCustomerGroup`
/// names, for each (customer, group), a chain of that customer in that group; every chain in the book knows its
/// customer's position (`customerPosition >= 0`); `extensionDates` names only chains in the book.
struct SubscriptionBook: Hashable, Sendable {
    /// Every subscription chain, in creation order (which is also `originalTransactionId` order).
    private(set) var chains: [SubscriptionChain] = []
    /// The purchaser's chain in each group, by ``customerGroupKey(_:_:)``.
    private(set) var chainByCustomerGroup: [String: ChainID] = [:]
    /// The ``customerGroupKey(_:_:)`` of every (customer, group) whose introductory offer is used (once per group,
    /// reference §5.11).
    private(set) var introOfferUsed: Set<String> = []
    /// Instants of each chain's renewal-date extensions (by chain index), for rule two-extensions-per-365-days.
    private(set) var extensionDates: [Int: [Instant]] = [:]
    /// Chains whose next mass extension fails (``SimulatedStore/failNextRenewalExtension(_:for:)``, [assumed]).
    private(set) var failingExtensions: Set<ChainID> = []

    /// The key of a (customer, group) pair in ``chainByCustomerGroup`` and ``introOfferUsed``.
    static func customerGroupKey(_ customer: String, _ group: String) -> String { customer + "\u{0}" + group }

    /// The customer's own chain in `group`, if any.
    func chain(of customer: String, inGroup group: String) -> ChainID? {
        chainByCustomerGroup[Self.customerGroupKey(customer, group)]
    }

    /// The id the next chain appended gets.
    var nextID: ChainID { ChainID(index: chains.count) }

    /// The customer's own chain in `product`'s group while `product` is its current product, if any.
    func chain(of customer: String, current product: Product) -> ChainID? {
        guard let group = product.group, let key = chain(of: customer, inGroup: group),
            chains[key.index].state.productId == product.id
        else { return nil }
        return key
    }

    /// Appends a chain whose customer is at `position` in the ``CustomerDirectory``; returns its id.
    mutating func append(_ chain: consuming SubscriptionChain, customerAt position: Int) -> ChainID {
        let key = nextID
        chain.customerPosition = position
        chains.append(chain)
        return key
    }

    /// Makes `key` the purchaser's chain of `customer` in `group`.
    mutating func index(_ key: ChainID, customer: String, group: String) {
        chainByCustomerGroup[Self.customerGroupKey(customer, group)] = key
    }

    /// Room for `count` chains.
    mutating func reserveCapacity(_ count: Int) { chains.reserveCapacity(count) }

    // MARK: - Taking and restoring chains

    /// Moves a chain out of `chains` for a transition, leaving ``SubscriptionChain/placeholder`` in its slot until
    /// ``restore(_:_:)`` (Engine's ``Swift/Array/takeElement(at:leaving:)``: one move, no copy).
    @inline(__always)
    mutating func take(_ key: ChainID) -> SubscriptionChain {
        chains.takeElement(at: key.index, leaving: .placeholder)
    }

    /// Moves a chain taken by ``take(_:)`` back into its slot; `chain` holds the placeholder afterwards.
    @inline(__always)
    mutating func restore(_ chain: inout SubscriptionChain, _ key: ChainID) {
        chains.restoreElement(&chain, at: key.index)
    }

    // MARK: - Changes to one chain

    /// The purchaser's per-subscription "Share with Family" switch (reference §4.3).
    mutating func setSharing(_ on: Bool, of key: ChainID) { chains[key.index].sharingOn = on }

    /// A family member's chain takes the state its purchaser's notification reports (it mirrors the purchaser).
    mutating func mirror(_ state: SubscriptionState, on key: ChainID) { chains[key.index].state = state }

    /// A transaction appended at `index` in the ``TransactionLedger`` is the chain's current one (and its first, when
    /// the chain had none).
    mutating func noteTransaction(at index: Int, of key: ChainID) {
        if chains[key.index].currentTransactionIndex < 0 { chains[key.index].firstTransactionIndex = index }
        chains[key.index].currentTransactionIndex = index
    }

    /// A member's share is revoked at `now` (REVOKE, §4.6): rule renewal-info-agrees-with-status ends grace or retry
    /// for the member, who stays revoked with auto-renew off.
    mutating func revokeMember(_ key: ChainID, at now: Instant) {
        chains[key.index].state = SubscriptionLifecycle.renewalInfoAtEnd(of: chains[key.index].state, at: now)
        chains[key.index].state.phase = .revoked
        chains[key.index].state.autoRenew = false
    }

    /// A member's renewal info forgets a pending plan change they do not get [assumed].
    mutating func dropPendingChange(of key: ChainID) { chains[key.index].state.pendingChange = nil }

    /// The purchaser redeemed a win-back offer at `now` (rule win-back-conditions).
    mutating func noteWinBackRedemption(of key: ChainID, at now: Instant) {
        chains[key.index].lastWinBackRedemption = now
    }

    /// The current run of purchases restarts at `instant` (reference §5.15).
    mutating func restartRecentSubscription(of key: ChainID, at instant: Instant) {
        chains[key.index].recentSubscriptionStartDate = instant
    }

    /// The (customer, group) pair `groupKey` (``customerGroupKey(_:_:)``) has used its introductory offer.
    mutating func markIntroOfferUsed(_ groupKey: String) { introOfferUsed.insert(groupKey) }

    /// The chain's renewal date was extended at `now` (rule two-extensions-per-365-days).
    mutating func noteExtension(of key: ChainID, at now: Instant) {
        extensionDates[key.index, default: []].append(now)
    }

    /// The chain's renewal-date extensions within ``BillingRules/extensionLimitWindow`` before `now` (rule
    /// two-extensions-per-365-days, which the lifecycle table applies).
    func extensionsInPastYear(of key: ChainID, at now: Instant) -> Int {
        extensionDates[key.index, default: []].filter { now < $0.adding(BillingRules.extensionLimitWindow) }.count
    }

    /// The chain's next mass extension fails ([assumed]).
    mutating func failNextExtension(of key: ChainID) { failingExtensions.insert(key) }

    /// Whether the chain's next mass extension was to fail; the mark is used up.
    mutating func takeFailingExtension(of key: ChainID) -> Bool { failingExtensions.remove(key) != nil }

    /// Whether the invariants in the type's documentation hold.
    var isConsistent: Bool {
        chainByCustomerGroup.allSatisfy { key, id in
            chains.indices.contains(id.index)
                && Self.customerGroupKey(chains[id.index].customer, chains[id.index].group) == key
        }
            && chains.allSatisfy { $0.customerPosition >= 0 }
            && extensionDates.keys.allSatisfy { chains.indices.contains($0) }
    }
}

/// A subscription chain's place in ``SubscriptionBook/chains`` (chains are never removed): a number, so the lookups
/// on every event need no hashing of the 16-digit `originalTransactionId`.
struct ChainID: Hashable, Sendable {
    var index: Int
}

/// One customer's subscription in one group, identified by its `originalTransactionId`: the purchaser's own, or a
/// family member's share of another customer's subscription (with its own ids, reference §4.5).
struct SubscriptionChain: Hashable, Sendable {
    var originalTransactionId: String
    var customer: String
    var group: String
    /// Apple's numeric `subscriptionGroupIdentifier` of `group`, computed once.
    var groupIdentifier: String
    var ownership: Ownership
    /// For a family member's chain: the purchaser's chain it mirrors.
    var sharedFrom: ChainID?
    /// For a family member's chain: the purchaser's position in the ``CustomerDirectory`` (whose storefront prices
    /// the member's renewal info, A-15); -1 for a purchaser's chain.
    var purchaserPosition = -1
    /// For a purchaser's chain: the per-subscription "Share with Family" switch (reference §4.3).
    var sharingOn: Bool
    var state: SubscriptionState
    var originalPurchaseDate: Instant
    /// §5.15: earliest start of the current run of purchases, ignoring gaps of at most 60 days.
    var recentSubscriptionStartDate: Instant
    var currentTransactionIndex: Int
    /// The chain's first transaction (`transactionId` = `originalTransactionId`); -1 until it exists.
    var firstTransactionIndex = -1
    var timers = PendingTimers()
    /// When the purchaser last redeemed a win-back offer in this group (rule win-back-conditions).
    var lastWinBackRedemption: Instant?
    /// The customer's position in ``CustomerDirectory/names`` (set when the chain is registered; -1 before), so the
    /// lookups on every event need no hashing of the customer's name (``SimulatedStore/position(of:)``).
    var customerPosition = -1
    /// The shared fields of the chain's latest purchased transaction (``TransactionRecord/Box``), which its next
    /// renewal reuses when they still apply.
    var transactionFields: TransactionRecord.Box?

    /// What ``SimulatedStore/apply(_:to:)`` leaves in ``SubscriptionBook/chains`` while it holds a chain (empty
    /// strings: nothing to retain).
    static let placeholder = SubscriptionChain(
        originalTransactionId: "", customer: "", group: "", groupIdentifier: "", ownership: .purchased,
        sharedFrom: nil, sharingOn: false,
        state: SubscriptionLifecycle.freshState(
            PurchaseRequest(productId: "", period: .oneMonth), at: Instant(millisecondsSince1970: 0)),
        originalPurchaseDate: Instant(millisecondsSince1970: 0),
        recentSubscriptionStartDate: Instant(millisecondsSince1970: 0), currentTransactionIndex: -1)
}

/// A chain's scheduled lifecycle timers: at most one of each kind (three fields, so no hashing on every event).
struct PendingTimers: Hashable, Sendable {
    var renewal: EventID?
    var gracePeriodEnd: EventID?
    var billingRetryEnd: EventID?

    /// Schedules `timer` of chain `key` at `instant` on the store's clock, replacing the one noted
    /// (``LifecycleEffect/schedule(_:at:)``); `group`: the chain's customer's order group (``OrderKey/group``).
    @inline(__always)
    mutating func schedule(
        _ timer: LifecycleTimer, of key: ChainID, at instant: Instant, group: UInt32,
        on scheduler: inout EventScheduler<StoreEvent>
    ) throws(SchedulingError) {
        self[timer] = try scheduler.schedule(
            .lifecycle(chain: key, timer: timer), at: instant, priority: StoreEventPriority.storeEvent, group: group)
    }

    /// Cancels every timer (``LifecycleEffect/cancelAllTimers``).
    @inline(__always)
    mutating func cancelAll(on scheduler: inout EventScheduler<StoreEvent>) {
        for timer in LifecycleTimer.allCases {
            if let id = self[timer] { scheduler.cancel(id) }
        }
        self = PendingTimers()
    }

    subscript(timer: LifecycleTimer) -> EventID? {
        get {
            switch timer {
            case .renewal: return renewal
            case .gracePeriodEnd: return gracePeriodEnd
            case .billingRetryEnd: return billingRetryEnd
            }
        }
        set {
            switch timer {
            case .renewal: renewal = newValue
            case .gracePeriodEnd: gracePeriodEnd = newValue
            case .billingRetryEnd: billingRetryEnd = newValue
            }
        }
    }
}
