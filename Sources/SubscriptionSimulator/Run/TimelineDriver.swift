/// The one timeline driver: prepares a store from a scenario and moves it along the scenario's timeline, for every
/// front end (`simctl run` and `validate` through ``ScenarioRunner``, `simctl serve`, code that embeds the library).
///
/// The rule (docs/scenario-format.md, "Timeline"): moving the clock to an instant runs the store's events due up to
/// and at that instant first, then the timeline entries at it, in file order. An entry the rules refuse changes
/// nothing: the clock stays where the store's events left it (the entry's instant), and the driver stops there with
/// the error, located at the entry. A front end decides what a stop means: a run ends (exit 65), a server answers 409
/// and goes on with the next entry.
public struct TimelineDriver: Sendable {
    /// How often ``advance(_:to:stepping:step:)`` calls its `step`.
    public enum Stepping: Sendable {
        /// After every timeline entry (applied or refused) and when the target is reached.
        case entries
        /// Also at every stop on the way (``nextStop(_:deliveryDue:through:)``: each instant at which store events
        /// ran, and the instant of the next entry or the target once the clock is there) and once before the clock
        /// moves: a streamed run hands its output on and judges its expectations instant by instant.
        case instants
    }

    /// Why the driver stopped before its target.
    public enum Stop: Error, Sendable {
        /// A timeline entry the rules refuse (not applied; the clock stays at its instant).
        case refused(ScenarioError)
        /// The store's own events failed on the way (a run limit, ``RunLimits``).
        case store(StoreError)
    }

    public let scenario: Scenario
    /// The position of the first timeline entry not applied (or refused) yet.
    public private(set) var nextEntry = 0
    /// The part of the scenario this driver applies (rule partition-order, ``ScenarioPartition``): the entries of
    /// other parts' customers are passed over (the clock still moves to them). nil: every entry.
    package let part: (RunPart, ScenarioPartition)?

    public init(_ scenario: Scenario) {
        self.scenario = scenario
        part = nil
    }

    /// A driver that applies only the entries of `part`'s customers (``ScenarioPartition/part(_:holds:)``).
    package init(_ scenario: Scenario, part: RunPart, of partition: ScenarioPartition) {
        self.scenario = scenario
        self.part = (part, partition)
    }

    /// The next timeline entry, if any is left.
    public var next: TimelineEntry? { nextEntry < scenario.timeline.count ? scenario.timeline[nextEntry] : nil }

    /// Timeline entries not applied yet.
    public var remainingEntries: Int { scenario.timeline.count - nextEntry }

    /// A store at the scenario's start with its customers, storefronts and family: what every run and server starts
    /// from. `retention`: what the store keeps of what it sends (docs/streaming.md). `epoch`: the store's identities
    /// (``SimulatedStore/init(app:catalog:start:seed:epoch:)``; 0 gives the usual ones); nil: the scenario's own
    /// (``Scenario/epoch``, `epoch:` in the file). Throws when the family
    /// cannot be created, located at the scenario's `family:`.
    public static func prepare(_ scenario: Scenario, retention: StoreRetention = .everything, epoch: UInt32? = nil)
        throws(ScenarioError) -> SimulatedStore
    {
        let prepared = Self.prepared(scenario, retention: retention, epoch: epoch)
        if let stop = prepared.stop { throw stop }
        return prepared.store
    }

    /// ``prepare(_:retention:epoch:)`` that hands back the store as far as it got when the family cannot be created (a
    /// stopped run still has a store to show).
    ///
    /// With `part` (of `partition`): the store of that part of a partitioned run holds only the part's customers
    /// (each registered at their position in ``Scenario/customers``, so their ids are the one-job run's), their
    /// storefronts, and the family only when the part holds it (families stay together): memory per part grows with
    /// the part's customers, not the scenario's (issue 27).
    static func prepared(
        _ scenario: Scenario, retention: StoreRetention, epoch: UInt32? = nil,
        partition: ScenarioPartition? = nil, part: RunPart? = nil
    ) -> (
        store: SimulatedStore, stop: ScenarioError?
    ) {
        // A part's store copies the app's and the catalogue's strings (the other parts run at the same time).
        var store = SimulatedStore(
            app: part == nil ? scenario.app : scenario.app.inOwnStorage(),
            catalog: part == nil ? scenario.catalog : scenario.catalog.inOwnStorage(), start: scenario.start,
            seed: scenario.seed,
            epoch: epoch ?? scenario.epoch,
            retention: retention)
        if retention == .liveState { store.limits = .streaming }
        // A part keys its records from the order the store notes as it emits them (`ScenarioRunner.streamPart`).
        if part != nil { store.stampOrderKeys() }
        let partition = partition ?? ScenarioPartition(scenario)
        func holds(_ customer: String) -> Bool { part.map { partition.part($0, holds: customer) } ?? true }
        let purchases = scenario.timeline.reduce(0) { count, entry in
            if case .purchase(let customer, _, _, _) = entry.action, holds(customer) { count + 1 } else { count }
        }
        if let part {
            var positions: [Int] = []
            for position in scenario.customers.indices where partition.part(part, holdsCustomerAt: position) {
                positions.append(position)
            }
            store.reserveCapacity(customers: positions.count, subscriptions: purchases)
            // In the scenario's order, so the part's customers keep their relative order (entitlement refreshes).
            for position in positions {
                store.addCustomer(
                    scenario.customers[position], idPosition: position, reserving: scenario.customers.count)
            }
        } else {
            store.reserveCapacity(customers: scenario.customers.count, subscriptions: purchases)
            for customer in scenario.customers { store.addCustomer(customer) }
        }
        // Rule partition-order: events of one instant run family by family (positions are `customers`' order).
        store.setEventGroups(partition.familyOrdinals)
        for (customer, storefront) in scenario.storefronts where holds(customer) {
            // Before any purchase, so this cannot be refused.
            try? store.setStorefront(storefront, for: customer)
        }
        if let family = scenario.family, holds(family.organizer) {
            do { try store.createFamily(organizer: family.organizer, members: family.members) } catch {
                return (store, ScenarioError(file: scenario.file, location: family.location, message: "\(error)"))
            }
        }
        return (store, nil)
    }

    /// Moves `store` to `target`, applying the timeline entries due on the way by the rule above, and calls `step`
    /// as `stepping` says. Returns why it stopped early, or nil when the store reached `target`.
    public mutating func advance(
        _ store: inout SimulatedStore, to target: Instant, stepping: Stepping = .entries,
        step: (inout SimulatedStore) -> Void = { _ in }
    ) -> Stop? {
        advance(&store, to: target, stepping: stepping) { store, _, _ in step(&store) }
    }

    /// ``advance(_:to:stepping:step:)`` whose `step` is also given the instant of the first timeline entry not
    /// applied yet at that point (nil when none is left): a streamed delivery knows what the run can still send.
    ///
    /// `step` is also given the segment of what the store emitted since the previous step (``RecordKey``): 2k while
    /// the store's events before entry k run, 2k + 1 after entry k.
    mutating func advance(
        _ store: inout SimulatedStore, to target: Instant, stepping: Stepping,
        step: (inout SimulatedStore, Instant?, Int) -> Void
    ) -> Stop? {
        let part = self.part
        func moveClock(_ store: inout SimulatedStore, to instant: Instant, pending: Instant?, segment: Int)
            throws(StoreError)
        {
            guard stepping == .instants else { return try store.advance(to: instant) }
            step(&store, pending, segment)
            // No timeline entry lies before `instant` here: the stops are the store's events, then `instant`.
            while let stop = Self.nextStop(store, pendingEntry: nil, through: instant) {
                try store.advance(to: stop)
                step(&store, pending, segment)
            }
        }
        let timeline = scenario.timeline
        while nextEntry < timeline.count, timeline[nextEntry].at <= target {
            let entry = timeline[nextEntry]
            let segment = 2 * nextEntry
            let holds = part.map { $0.1.part($0.0, holdsEntry: nextEntry) } ?? true
            nextEntry += 1
            // Another part's entry with nothing of this part's held or due at or before it: no step (it would hand
            // on nothing; the events due after it run at this part's next stop, in their own segment).
            if !holds, stepping == .instants, store.retention == .liveState, store.emissions.heldCount == 0,
                store.nextEventInstant.map({ $0 > entry.at }) ?? true
            {
                continue
            }
            // The store's actions check their rule before they change anything, so a stop shows what led up to it.
            // What the store's events emitted before one of them stopped the run is of segment 2k; what the entry's
            // action emitted, of 2k + 1.
            do throws(StoreError) {
                try moveClock(&store, to: entry.at, pending: entry.at, segment: segment)
            } catch {
                step(&store, entry.at, segment)
                return .refused(Self.refusal(of: entry, error, file: scenario.file))
            }
            do throws(StoreError) {
                if holds { try Self.perform(entry.action, on: &store) }
            } catch {
                step(&store, entry.at, segment + 1)
                return .refused(Self.refusal(of: entry, error, file: scenario.file))
            }
            step(&store, next?.at, segment + 1)
        }
        let segment = 2 * nextEntry
        do throws(StoreError) { try moveClock(&store, to: target, pending: next?.at, segment: segment) } catch {
            step(&store, next?.at, segment)
            return .store(error)
        }
        step(&store, next?.at, segment)
        return nil
    }

    /// The next instant to stop at: the one place that decides it, for every front end that moves the clock in steps
    /// (the driver's own ``Stepping/instants``, a streamed run's delivery in ``RunPlan``, `simctl serve`'s delivery
    /// loop, `simctl check`'s ``CaseRunner``). It is the earliest instant at which something is due: the store's
    /// next event, the next timeline entry not applied yet, or `deliveryDue` (the next attempt of the caller's
    /// delivery pump, if it has one), never past `limit`; `limit` itself when nothing is due before it; and nil when
    /// the clock is at `limit` and nothing more is due there. Never before the store's clock. Moving the store there
    /// with ``advance(_:to:stepping:step:)`` passes nothing that is due.
    public func nextStop(_ store: SimulatedStore, deliveryDue: Instant? = nil, through limit: Instant) -> Instant? {
        Self.nextStop(store, pendingEntry: next?.at, deliveryDue: deliveryDue, through: limit)
    }

    /// ``nextStop(_:deliveryDue:through:)`` with the next timeline entry's instant given (`pendingEntry`, nil: none
    /// left): a `step` of ``advance(_:to:stepping:step:)`` is given that instant while the driver is busy.
    static func nextStop(
        _ store: SimulatedStore, pendingEntry: Instant?, deliveryDue: Instant? = nil, through limit: Instant
    ) -> Instant? {
        var stop: Instant? = store.now < limit ? limit : nil
        func consider(_ candidate: Instant?) {
            if let candidate, candidate <= limit, stop.map({ candidate < $0 }) ?? true { stop = candidate }
        }
        consider(pendingEntry)
        consider(store.nextEventInstant)
        consider(deliveryDue)
        return stop.map { max($0, store.now) }
    }

    /// The whole run: every timeline entry, then the clock to `until` (events exactly at `until` run). Returns the
    /// error that stopped it, located at the refused entry or, for a failure of the store's own events, at the end of
    /// the scenario (`until`).
    public mutating func run(
        _ store: inout SimulatedStore, stepping: Stepping = .entries, step: (inout SimulatedStore) -> Void = { _ in }
    ) -> ScenarioError? {
        run(&store, stepping: stepping) { store, _, _ in step(&store) }
    }

    /// ``run(_:stepping:step:)`` whose `step` is also given the instant of the first timeline entry not applied yet
    /// (``advance(_:to:stepping:step:)``).
    mutating func run(
        _ store: inout SimulatedStore, stepping: Stepping, step: (inout SimulatedStore, Instant?, Int) -> Void
    ) -> ScenarioError? {
        switch advance(&store, to: scenario.until, stepping: stepping, step: step) {
        case nil: return nil
        case .refused(let error): return error
        case .store(let error):
            return ScenarioError(file: scenario.file, location: scenario.endLocation, message: "\(error)")
        }
    }

    /// The error for an action the rules refuse, the same text wherever the action came from (a timeline entry, the
    /// control API of `simctl serve`): `<action> at <instant> cannot happen: <the rule>`.
    public static func refusal(of entry: TimelineEntry, _ error: StoreError, file: String) -> ScenarioError {
        ScenarioError(
            file: file, location: entry.location, message: "\(entry.action.name) at \(entry.at) cannot happen: \(error)"
        )
    }

    /// Performs one action of the scenario vocabulary on the store, now. Throws the rule that forbids it; the store
    /// checks its rules before it changes anything.
    public static func perform(_ action: ScenarioAction, on store: inout SimulatedStore) throws(StoreError) {
        try performAction(action, on: &store)
        store.checkParts()
    }

    /// ``perform(_:on:)`` before the store's internal checks: the action's rule (``ScenarioActionSpec/apply``).
    private static func performAction(_ action: ScenarioAction, on store: inout SimulatedStore) throws(StoreError) {
        try action.spec.apply(action, &store)
    }
}
