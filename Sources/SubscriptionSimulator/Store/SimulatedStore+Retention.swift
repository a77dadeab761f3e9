extension SimulatedStore {
    /// A store that keeps only what `retention` says (``StoreRetention``).
    public init(
        app: AppConfiguration, catalog: Catalog, start: Instant, seed: UInt64 = 0, epoch: UInt32 = 0,
        retention: StoreRetention
    ) {
        self.init(app: app, catalog: catalog, start: start, seed: seed, epoch: epoch)
        emissions.keep(retention)
    }

    /// Stops with a clear message when `feature` needs history this store does not keep (``StoreRetention``).
    func requireHistory(_ feature: @autoclosure () -> String) { emissions.requireHistory(feature()) }

    /// With ``StoreRetention/liveState``: forgets the notifications and entitlement changes sent so far (the caller
    /// has handed them on) and the transactions nothing refers to any more
    /// (``TransactionLedger/dropSupersededRenewals(book:)``). With ``StoreRetention/everything``: nothing.
    public mutating func discardEmitted() {
        guard emissions.retention == .liveState else { return }
        emissions.discard()
        ledger.dropSupersededRenewals(book: subscriptionBook)
    }

    /// Pauses ``advance(to:)`` once `count` notifications and entitlement changes are held, for the caller to hand
    /// them on (a streamed run's store; by default it never pauses).
    package mutating func handOver(at count: Int) { emissions.handOver(at: count) }

    /// Hands the notifications and entitlement changes held to `receive`, which may take the arrays (the caller then
    /// calls ``discardEmitted()``).
    @inline(__always)
    package mutating func handOn(_ receive: (inout [SentNotification], inout [EntitlementChange]) -> Void) {
        emissions.handOn(receive)
    }

    // MARK: - Order keys (rule order-key, `Engine/OrderKey.swift`)

    /// Stamps an ``OrderKey`` on every notification and entitlement change from now on; called before the store emits
    /// anything.
    package mutating func stampOrderKeys() { emissions.noteOrder() }

    /// The order keys of the notifications held, from the one at `start` on.
    package func notificationOrderKeys(from start: Int) -> ArraySlice<OrderKey> {
        emissions.notificationOrder[start...]
    }

    /// The order keys of the entitlement changes held, from the one at `start` on.
    package func changeOrderKeys(from start: Int) -> ArraySlice<OrderKey> { emissions.changeOrder[start...] }

    /// Room for `customers` customers and `subscriptions` subscriptions (``ScenarioRunner`` passes the scenario's
    /// customers and purchases), so that in a large run the store's arrays are allocated once rather than grown by
    /// doubling, which leaves up to half of them unused. Only memory: more customers or subscriptions than reserved
    /// still work.
    public mutating func reserveCapacity(customers: Int, subscriptions: Int) {
        directory.reserveCapacity(customers)
        subscriptionBook.reserveCapacity(subscriptions)
    }

    /// The instant of the next store event, if any.
    public var nextEventInstant: Instant? { scheduler.nextEventInstant() }
}
