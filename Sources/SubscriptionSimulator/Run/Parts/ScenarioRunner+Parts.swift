/// Receives what one part of a partitioned run emits (``ScenarioRunner/streamPart(_:part:partition:into:)``), with
/// each record's key (rule partition-order, ``ScenarioPartition``).
package protocol KeyedRunSink {
    /// The records emitted since the previous call, in order, with their keys (`notificationKeys[i]` is the key of
    /// `notifications[i]`); the sink may take the arrays' contents. `frontier`: every record the part emits from now
    /// on has a key at or after it.
    mutating func receive(
        taking notifications: inout [SentNotification], keys notificationKeys: [RecordKey],
        _ changes: inout [EntitlementChange], keys changeKeys: [RecordKey], frontier: RecordKey)

    /// The part is over. `cut`: when the run stopped (an action the rules refuse), the one-job run emits nothing
    /// at or after this key, in any part.
    mutating func finish(cut: RecordKey?)
}

extension ScenarioRunner {
    /// Runs part `part` of `scenario` (``ScenarioPartition``): the whole timeline, applying only the part's
    /// customers' entries, handing `sink` its records with their keys after every step of the driver. The store
    /// keeps only live state (unless the scenario needs its history, ``needsHistory(_:)``). Expectations are not
    /// judged here (a part sees only its own customers): the merged records are (``ExpectationTracker``).
    package static func streamPart<Sink: KeyedRunSink>(
        _ scenario: Scenario, part: RunPart, partition: ScenarioPartition, into sink: inout Sink
    ) -> ScenarioRun {
        let kept: StoreRetention = needsHistory(scenario) ? .everything : .liveState
        var (store, stop) = TimelineDriver.prepared(scenario, retention: kept, partition: partition, part: part)
        var handed = (notifications: 0, changes: 0)  // what the sink has (a store that keeps everything)
        // Pauses between two events once it holds this many, also within one instant (as a streamed run does).
        if store.retention == .liveState { store.handOver(at: 512) }
        var notificationKeys: [RecordKey] = []
        var changeKeys: [RecordKey] = []
        var lastSegment = 0
        // A scenario that runs as one job is all in part 1, in the one-job order, which is not the order of
        // families: a notification about the app (family 0, such as a mass extension's summary) follows the
        // customers' at its instant. Its keys leave the family out, so they stay in order.
        let keysFamilies = partition.isPartitioned
        func handOver(_ store: inout SimulatedStore, segment: Int) {
            lastSegment = segment
            // The family ordinal is the record's order group, which the store stamped on it (``OrderKey``).
            for order in store.notificationOrderKeys(from: handed.notifications) {
                notificationKeys.append(
                    RecordKey(segment: segment, instant: order.instant, family: keysFamilies ? order.group : 0))
            }
            for order in store.changeOrderKeys(from: handed.changes) {
                changeKeys.append(
                    RecordKey(segment: segment, instant: order.instant, family: keysFamilies ? order.group : 0))
            }
            let frontier = RecordKey(segment: segment, instant: store.now.millisecondsSince1970, family: 0)
            if store.retention == .liveState {
                store.handOn { notifications, changes in
                    sink.receive(
                        taking: &notifications, keys: notificationKeys, &changes, keys: changeKeys, frontier: frontier)
                }
                store.discardEmitted()
            } else {
                var newNotifications = Array(store.notifications[handed.notifications...])
                var newChanges = Array(store.entitlementChanges[handed.changes...])
                sink.receive(
                    taking: &newNotifications, keys: notificationKeys, &newChanges, keys: changeKeys,
                    frontier: frontier)
                handed = (store.notifications.count, store.entitlementChanges.count)
            }
            notificationKeys.removeAll(keepingCapacity: true)
            changeKeys.removeAll(keepingCapacity: true)
        }
        if stop == nil {
            var driver = TimelineDriver(scenario, part: part, of: partition)
            stop = driver.run(&store, stepping: .instants) { store, _, segment in
                handOver(&store, segment: segment)
            }
        }
        sink.finish(cut: stop.map { _ in Self.cut(segment: lastSegment, stoppingEvent: store.stoppingEvent) })
        return ScenarioRun(scenario: scenario, store: store, failures: [], stoppedBy: stop)
    }

    /// Where the one-job run's output ends when a part stops in `segment` (rule partition-order): nothing at or after
    /// the returned key. An action the rules refuse (no store event stopped the run) emits nothing, so its whole
    /// segment is cut. A store event that stopped it (a run limit) ran, in one job, after every event of a lower
    /// instant, or of its instant and a lower group, and before every other: the cut is just after its group at its
    /// instant, and what its own family emitted before it (same key, same part) is kept. That order holds because
    /// every store event of a partitioned scenario has the same priority (only price increases schedule another, and
    /// they make a scenario run as one job, ``ScenarioPartition/oneJobReason``); a scenario run as one job is all in
    /// part 1, with family 0 in every key, so the cut keeps all of it up to the stop.
    static func cut(segment: Int, stoppingEvent: (instant: Instant, group: UInt32)?) -> RecordKey {
        guard let event = stoppingEvent else { return RecordKey(segment: segment, instant: .min, family: 0) }
        let instant = event.instant.millisecondsSince1970
        if event.group == .max { return RecordKey(segment: segment, instant: instant + 1, family: 0) }
        return RecordKey(segment: segment, instant: instant, family: event.group + 1)
    }

    /// Runs part `part` of `scenario` and returns its records with their keys (for tests and small runs; a large
    /// run streams them, ``streamPart(_:part:partition:into:)``). Merging every part's records by key
    /// (``KeyedRecords/merged(_:)``) gives exactly the records of the one-job run.
    package static func runPart(_ scenario: Scenario, part: RunPart) -> (records: KeyedRecords, run: ScenarioRun) {
        var collector = KeyedCollector()
        let run = streamPart(scenario, part: part, partition: ScenarioPartition(scenario), into: &collector)
        return (collector.records, run)
    }
}

/// Keeps every keyed record (``ScenarioRunner/runPart(_:part:)``).
struct KeyedCollector: KeyedRunSink {
    var records = KeyedRecords()

    mutating func receive(
        taking notifications: inout [SentNotification], keys notificationKeys: [RecordKey],
        _ changes: inout [EntitlementChange], keys changeKeys: [RecordKey], frontier: RecordKey
    ) {
        records.notifications += notifications
        records.notificationKeys += notificationKeys
        records.changes += changes
        records.changeKeys += changeKeys
    }

    mutating func finish(cut: RecordKey?) {}
}
