/// The formats `simctl run` prints (``RunPlan/format``).
public enum OutputFormat: String, CaseIterable, Sendable {
    /// A readable table of the run (default).
    case timeline
    /// One App Store POST body per line, nothing else.
    case jsonl
    /// One JSON object per line: recipient, instant, decoded payload.
    case decoded
}

/// A delivery log that cannot be written (`--delivery-log`): the whole message, path included.
public struct DeliveryLogError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Where a run's delivery log goes as the delivery goes (`--delivery-log FILE`: one JSON line per attempt).
public protocol DeliveryLogWriter: AnyObject {
    /// Called once, when delivery starts.
    func open() throws(DeliveryLogError)
    /// Called with every line of the delivery log, in order, as it is recorded.
    func write(_ entry: DeliveryLogEntry) throws(DeliveryLogError)
    /// Called once, when delivery ends (also after a failed write).
    func close()
}

/// Delivering a run's notifications (`simctl run --deliver`): through `transport`, on `mode`'s retry schedule, with
/// `chaos`, seeded by the scenario's seed.
public struct DeliveryPlan {
    public var transport: any DeliveryTransport
    public var mode: DeliveryMode
    public var chaos: DeliveryChaos
    public var log: (any DeliveryLogWriter)?

    public init(
        transport: any DeliveryTransport, mode: DeliveryMode = .production, chaos: DeliveryChaos = .none,
        log: (any DeliveryLogWriter)? = nil
    ) {
        self.transport = transport
        self.mode = mode
        self.chaos = chaos
        self.log = log
    }
}

/// How `simctl run` runs a scenario, as a library value so that every front end follows the same policy:
/// - the chosen format is written while the run goes (streamed, in bounded memory: docs/streaming.md); a timeline
///   ends with the expectations' verdict, or with where the run stopped;
/// - the fixture folder is written only for a run that reached its end with every expectation holding (a failing
///   run's fixtures are not what the scenario describes), all at once or not at all;
/// - notifications are delivered only for such a run, after it.
public struct RunPlan {
    public var format: OutputFormat
    /// Signs jsonl lines, fixtures and delivered bodies; nil: the environment's default signer.
    public var signer: (any PayloadSigner)?
    /// The fixture folder, staged before the run (so a run is not wasted on a folder that cannot be written).
    public var fixtures: FixtureWriter.Staging?
    public var delivery: DeliveryPlan?
    /// Runs the fixture folder's commit; the command line holds interrupts back around it, so an interrupted run
    /// never leaves a partial folder. By default it just runs it.
    public var guardCommit: (() -> Void) -> Void

    public init(
        format: OutputFormat = .timeline, signer: (any PayloadSigner)? = nil, fixtures: FixtureWriter.Staging? = nil,
        delivery: DeliveryPlan? = nil, guardCommit: @escaping (() -> Void) -> Void = { $0() }
    ) {
        self.format = format
        self.signer = signer
        self.fixtures = fixtures
        self.delivery = delivery
        self.guardCommit = guardCommit
    }

    /// Runs `scenario`, writing the chosen format to `write` as it goes, then the fixture folder and the delivery as
    /// the policy says. Changes nothing on disk when the run stops or fails, except the delivery log.
    public func run(_ scenario: Scenario, write: @escaping ([UInt8]) -> Void) -> RunVerdict {
        var sink = PlanSink()
        switch format {
        case .timeline: sink.timeline = TimelineSink(scenario: scenario, write: write)
        case .jsonl: sink.jsonl = JSONLSink(app: scenario.app, signer: signer, write: write)
        case .decoded: sink.decoded = DecodedSink(app: scenario.app, write: write)
        }
        if let fixtures {
            sink.fixtures = FixtureSink(scenario: scenario, app: scenario.app, signer: signer, staging: fixtures)
        }
        // The output is written on a second thread while the run goes on (same bytes; docs/streaming.md).
        var background = BackgroundSink(sink)
        // Delivery sends the whole run after it, so it needs the store to keep every notification.
        let run = ScenarioRunner.stream(
            scenario, retention: delivery == nil ? .liveState : .everything, into: &background)
        sink = background.finish()
        sink.finishStandardOutput()
        var verdict = RunVerdict(run: run)
        if let stop = run.stoppedBy {
            // What happened up to the refused action helps to see why it was refused. jsonl and decoded lines were
            // written as the run went: a stopped run's stream ends early.
            fixtures?.abandon()
            if fixtures != nil { verdict.fixtures = .notWritten }
            if format == .timeline {
                write(
                    Array(
                        ("\nstopped at \(stop.file):\(stop.location.line):\(stop.location.column) (see standard error); "
                            + "expectations not checked\n").utf8))
            }
            return verdict
        }
        if format == .timeline {
            let count = scenario.expectations.count
            let text =
                run.passed
                ? "\nexpectations: \(count) checked, all hold\n"
                : "\nexpectations: \(count) checked, \(run.failures.count) failed (see standard error)\n"
            write(Array(text.utf8))
        }
        if let staging = fixtures, var fixtureSink = sink.fixtures {
            if run.passed {
                fixtureSink.finish()
                var failure = fixtureSink.error
                if failure == nil {
                    guardCommit {
                        do throws(FixtureWriter.WriteError) { try staging.commit() } catch { failure = error }
                    }
                }
                if let failure {
                    staging.abandon()
                    verdict.fixtures = .failed(failure)
                    return verdict
                }
                verdict.fixtures = .written
            } else {
                staging.abandon()
                verdict.fixtures = .notWritten
            }
        }
        if let delivery {
            verdict.delivery = run.passed ? Self.deliver(run, delivery, signer: signer) : .notDelivered
        }
        return verdict
    }

    /// Delivers the run's notifications through the one pump, writing the log as it goes.
    static func deliver(_ run: ScenarioRun, _ plan: DeliveryPlan, signer: (any PayloadSigner)?) -> RunVerdict.Delivery {
        let items = DeliveryItem.items(of: run.store, signer: signer)
        var delivery = NotificationDelivery(
            items: items, schedule: plan.mode.schedule, chaos: plan.chaos, faults: run.scenario.deliveryFaults,
            seed: run.scenario.seed)
        do throws(DeliveryLogError) {
            try plan.log?.open()
            defer { plan.log?.close() }
            // The log is written as the delivery goes, so a long delivery can be followed with `tail -f`.
            try delivery.pump(over: plan.transport) { (entry) throws(DeliveryLogError) in try plan.log?.write(entry) }
        } catch { return .logFailed(error) }
        return .delivered(delivery.report)
    }
}

/// What a ``RunPlan`` did: the run, and what became of the fixture folder and the delivery.
public struct RunVerdict {
    /// What became of the fixture folder.
    public enum Fixtures: Sendable {
        /// Written completely.
        case written
        /// Not written: the run stopped before its end or its expectations failed (``ScenarioRun/passed``).
        case notWritten
        /// Writing it failed; nothing was left behind.
        case failed(FixtureWriter.WriteError)
    }

    /// What became of the delivery.
    public enum Delivery: Sendable {
        /// Made: every notification delivered or out of attempts.
        case delivered(DeliveryReport)
        /// Not made: the expectations failed.
        case notDelivered
        /// Stopped: the delivery log could not be written.
        case logFailed(DeliveryLogError)
    }

    public var run: ScenarioRun
    /// nil without a fixture folder.
    public var fixtures: Fixtures?
    /// nil without delivery, or when the run stopped or its fixture folder failed (nothing was delivered).
    public var delivery: Delivery?
}

/// What a ``RunPlan`` streams to: the chosen format on standard output, and the fixture folder.
struct PlanSink: RunSink {
    var timeline: TimelineSink?
    var jsonl: JSONLSink?
    var decoded: DecodedSink?
    var fixtures: FixtureSink?

    mutating func receive(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>) {
        timeline?.receive(notifications, changes)
        jsonl?.receive(notifications, changes)
        decoded?.receive(notifications, changes)
        fixtures?.receive(notifications, changes)
    }

    /// Writes what standard output still holds (the whole table, for the timeline).
    mutating func finishStandardOutput() {
        timeline?.finish()
        jsonl?.finish()
        decoded?.finish()
    }
}
