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
    func requireHistory(_ feature: @autoclosure () -> String) {
        precondition(
            emissions.keepsHistory,
            "\(feature()) reads the store's history, which a store with retention .liveState does not keep; "
                + "create the store with retention .everything (the default)")
    }

    /// With ``StoreRetention/liveState``: forgets the notifications and entitlement changes sent so far (the caller
    /// has handed them on) and the transactions nothing refers to any more. With ``StoreRetention/everything``:
    /// nothing.
    public mutating func discardEmitted() {
        guard emissions.retention == .liveState else { return }
        emissions.discard()
        // A transaction is live while a chain names it as its current one, it is a one-time purchase (those grow
        // with the scenario's actions, not with time), or a refund request names it (a chain's first transaction
        // is needed only as an index). The rest are superseded renewals: dropped once they are half as many as the
        // live ones (the window's storage, kept between compactions, is then half the live transactions' size), so on
        // average each new transaction moves two live ones.
        guard ledger.transactions.windowCount > max(4096, ledger.transactions.pinnedCount / 2) else { return }
        var live: [Int] = []
        live.reserveCapacity(subscriptionBook.chains.count + ledger.refundRequests.count)
        // By index: a chain is large, and copying each out would retain every string in it.
        for index in subscriptionBook.chains.indices where subscriptionBook.chains[index].currentTransactionIndex >= 0 {
            live.append(subscriptionBook.chains[index].currentTransactionIndex)
        }
        for request in ledger.refundRequests { live.append(request.transactionIndex) }
        ledger.keepOnly(live)
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

    /// Whether the store stamps order keys (``stampOrderKeys()``).
    package var stampsOrderKeys: Bool { emissions.notesOrder }

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
