/// Runs a scenario on a ``SimulatedStore`` and judges its expectations.
public enum ScenarioRunner {
    /// Runs the timeline, then advances to `until` (events exactly at `until` run). An action the rules forbid stops
    /// the run with an error at that timeline entry.
    public static func run(_ scenario: Scenario) throws(ScenarioError) -> ScenarioRun {
        let run = execute(scenario)
        if let stop = run.stoppedBy { throw stop }
        return run
    }

    /// Runs the scenario as far as the rules allow. When an action the rules forbid stops it, the result holds the
    /// store as it was just before that action (everything sent up to then) and ``ScenarioRun/stoppedBy`` the error
    /// at the timeline entry; expectations are then not judged. `simctl validate` and `simctl run` both call this.
    public static func execute(_ scenario: Scenario) -> ScenarioRun {
        var (store, stop) = TimelineDriver.prepared(scenario, retention: .everything)
        if stop == nil {
            var driver = TimelineDriver(scenario)
            stop = driver.run(&store)
        }
        if let stop { return ScenarioRun(scenario: scenario, store: store, failures: [], stoppedBy: stop) }
        let failures = scenario.expectations.flatMap {
            ExpectationChecker.check($0, against: store, file: scenario.file)
        }
        return ScenarioRun(scenario: scenario, store: store, failures: failures, stoppedBy: nil)
    }

    /// Runs the scenario like ``execute(_:)``, handing `sink` what the store sends as the clock advances: after every
    /// instant at which store events ran and after every timeline entry, the notifications and entitlement changes
    /// since the previous call. With `retention` ``StoreRetention/liveState`` (the default here) the store then
    /// forgets them, so the run's memory is bounded by its live state, not by its length (docs/streaming.md).
    /// Expectations are judged as the run goes (``ExpectationTracker``), with the same verdicts and messages as
    /// ``execute(_:)``. The returned run's store holds only what `retention` keeps.
    ///
    /// With ``StoreRetention/liveState``, a scenario whose actions read the store's history (refunds and refund
    /// requests that name a transaction by number, restores: ``needsHistory(_:)``) runs with
    /// ``StoreRetention/everything`` instead: the output is the same, only the memory bound does not hold.
    public static func stream<Sink: RunSink>(
        _ scenario: Scenario, retention: StoreRetention = .liveState, into sink: inout Sink
    ) -> ScenarioRun {
        stream(scenario, retention: retention, into: &sink, follow: { _, _ in })
    }

    /// ``stream(_:retention:into:)`` that also calls `follow`, on the run's own thread, after every step: with the
    /// notifications sent since its previous call (in order, before the store may drop them), and the instant
    /// before which the run will send nothing more (every notification it sends from then on is at or after that
    /// instant: the store's next event, the next timeline entry, or `until`, whichever comes first). The run waits
    /// for `follow` to return (`simctl run --deliver` delivers there: RunPlan).
    static func stream<Sink: RunSink>(
        _ scenario: Scenario, retention: StoreRetention, into sink: inout Sink,
        follow: (ArraySlice<SentNotification>, Instant) -> Void
    ) -> ScenarioRun {
        let kept = needsHistory(scenario) ? .everything : retention
        var (store, stop) = TimelineDriver.prepared(scenario, retention: kept)
        var tracker = ExpectationTracker(scenario)
        var judged = (notifications: 0, changes: 0)  // what the expectations have seen
        var handedOn = (notifications: 0, changes: 0)  // what the sink has (a store that keeps everything)
        // A live-state store hands its notifications and changes over to the sink in groups of at least this many
        // (the sink may take the arrays instead of copying them, `RunSink/receive(taking:_:)`), then drops them.
        // It pauses between two events once it holds that many, also within one instant (`EmissionLog.handOverAt`):
        // the driver steps again at the same instant, so no instant's output is ever held whole.
        let group = 512
        if store.retention == .liveState { store.handOver(at: group) }
        var followed = 0  // what `follow` has seen
        func handOver(_ store: inout SimulatedStore) {
            store.handOn { notifications, changes in sink.receive(taking: &notifications, &changes) }
            store.discardEmitted()
            judged = (0, 0)
            followed = 0
        }
        /// The instant before which the run sends nothing more: the store sends at its clock, which moves only to the
        /// driver's next stop (its next event, the next timeline entry not applied yet, `pending`, or `until`).
        func settled(_ store: SimulatedStore, pending: Instant?) -> Instant {
            TimelineDriver.nextStop(store, pendingEntry: pending, through: scenario.until) ?? scenario.until
        }
        if stop == nil {
            var driver = TimelineDriver(scenario)
            stop = driver.run(&store, stepping: .instants) { store, pending, _ in
                // Expectations are judged as the clock passes each instant. The slices are arguments only, not
                // variables: they must be gone before `discardEmitted()`, or the store's arrays would be shared then.
                if judged.notifications < store.notifications.count
                    || judged.changes < store.entitlementChanges.count
                {
                    tracker.receive(
                        store.notifications[judged.notifications...], store.entitlementChanges[judged.changes...])
                    judged = (store.notifications.count, store.entitlementChanges.count)
                }
                follow(store.notifications[followed...], settled(store, pending: pending))
                followed = store.notifications.count
                if store.retention == .liveState {
                    if store.notifications.count + store.entitlementChanges.count >= group { handOver(&store) }
                } else if handedOn != judged {
                    sink.receive(
                        store.notifications[handedOn.notifications...], store.entitlementChanges[handedOn.changes...])
                    handedOn = judged
                }
            }
        }
        if store.retention == .liveState { handOver(&store) }  // the rest, also when the run stopped
        if let stop { return ScenarioRun(scenario: scenario, store: store, failures: [], stoppedBy: stop) }
        return ScenarioRun(scenario: scenario, store: store, failures: tracker.failures(), stoppedBy: nil)
    }

    /// Whether one of the scenario's actions reads the store's history, which ``StoreRetention/liveState`` does
    /// not keep (each action's table entry says whether it does, ``ScenarioActionSpec/readsHistory``: a refund,
    /// refund request or refund decision naming a transaction by number, counted over all the customer's
    /// transactions of the product; restoring purchases, which re-delivers past purchases; rescinding consent); and a
    /// win-back offer with a `paidMonths` condition (rule win-back-conditions adds up the paid transactions of the last
    /// run of the subscription).
    public static func needsHistory(_ scenario: Scenario) -> Bool {
        let countsPaidMonths = scenario.catalog.products.contains { product in
            product.offers.contains { $0.winBackConditions?.paidMonths != nil }
        }
        if countsPaidMonths { return true }
        return scenario.timeline.contains { entry in readsHistory(entry.action) }
    }

    /// Whether `action` reads what ``StoreRetention/liveState`` forgets (``needsHistory(_:)``).
    static func readsHistory(_ action: ScenarioAction) -> Bool { action.spec.readsHistory }
}

/// The result of running a scenario.
public struct ScenarioRun: Sendable {
    public var scenario: Scenario
    /// The store at `until`.
    public var store: SimulatedStore
    /// Expectations that did not hold, in file order. Empty means the run passed.
    public var failures: [ExpectationFailure]
    /// The rule that stopped the run before `until` (see ``ScenarioRunner/execute(_:)``); nil when it ran to the end.
    public var stoppedBy: ScenarioError?

    public init(
        scenario: Scenario, store: SimulatedStore, failures: [ExpectationFailure], stoppedBy: ScenarioError? = nil
    ) {
        self.scenario = scenario
        self.store = store
        self.failures = failures
        self.stoppedBy = stoppedBy
    }

    /// Ran to the end and every expectation holds.
    public var passed: Bool { failures.isEmpty && stoppedBy == nil }
}

/// One expectation that did not hold: where it is, what was expected, what happened.
public struct ExpectationFailure: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation
    public var message: String

    public var description: String { "\(file):\(location.line):\(location.column): expectation failed: \(message)" }
}
