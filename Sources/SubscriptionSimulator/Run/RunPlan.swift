/// The formats `simctl run` prints (``RunPlan/format``).
public enum OutputFormat: String, CaseIterable, Sendable {
    /// A readable table of the run (default).
    case timeline
    /// One App Store POST body per line, nothing else.
    case jsonl
    /// One JSON object per line: recipient, instant, decoded payload.
    case decoded
    /// The run as one SVG picture (``PictureSink``, docs/scenario-format.md "The picture").
    case svg
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
    /// Asked before each attempt: once it answers true (the command line was told to stop), no attempt starts any
    /// more and the delivery ends cut short, with what is still scheduled pending. nil: never.
    public var stopping: (@Sendable () -> Bool)? = nil

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
/// - notifications are delivered while the run goes, on its virtual clock, in memory bounded by the attempts in flight
///   (docs/delivery.md, "Streaming"); when the run stops or its expectations fail, the attempts still pending then
///   are not made.
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
    /// Receives the run's progress as it goes (``RunProgress``), on the run's thread; nil: none is counted.
    public var progress: ((RunProgress) -> Void)? = nil
    /// Where a run in parts (``jobs``) writes its jsonl or decoded lines when given (the command line gives
    /// `writev(2)` to standard output): straight from the parts' buffers, with no copy into a chunk first. The bytes
    /// and their order are those `write` would get; nothing else of such a run goes to `write`.
    public var writeVector: VectorWrite? = nil
    /// Parts simulated at once on threads of their own (`simctl run --jobs N`; rule partition-order,
    /// ``ScenarioPartition``): each part's thread simulates its families and encodes their jsonl or decoded lines,
    /// and the calling thread merges them into the one-job order and writes them (same bytes for every count). Above
    /// 1 only for jsonl, decoded and timeline (with or without a fixture folder) without delivery, for a scenario that
    /// is partitioned (``ScenarioPartition/oneJobReason``), and with at least two families; otherwise one job.
    public var jobs = 1
    /// At most this many threads busy at once in a run of one job (`simctl run --jobs N` sets N; rule
    /// busy-threads-within-jobs, docs/streaming.md): the run's own thread, then, as the limit allows, the thread that
    /// formats or encodes the output beside it (``BackgroundSink``), a second jsonl encoding thread
    /// (``JSONLEncoding``) and the thread that writes standard output (``BackgroundWriter``); 1: everything on the
    /// calling thread. nil (the default): all of them.
    public var threadLimit: Int? = nil
    /// What the picture shows (`--customers`, `--from`, `--to`, `--axis`; the svg format and the picture beside the
    /// fixture folder).
    package var pictureView = PictureView()

    /// How many threads a run of one job may use beside its own (rule busy-threads-within-jobs): up to three, fewer
    /// when ``threadLimit`` says so.
    var spareThreads: Int { min(3, max(0, (threadLimit ?? 4) - 1)) }

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

    /// How many parts ``run(_:write:)`` runs `scenario` in (``jobs``, where the run and the scenario allow it).
    package func partCount(for scenario: Scenario, partition: ScenarioPartition) -> Int {
        guard jobs > 1, delivery == nil, format != .svg, partition.isPartitioned else { return 1 }
        return min(jobs, partition.familyCount)
    }

    /// Runs `scenario`, writing the chosen format to `write` as it goes, then the fixture folder and the delivery as
    /// the policy says. Changes nothing on disk when the run stops or fails, except the delivery log.
    public func run(_ scenario: Scenario, write: @escaping ([UInt8]) -> Void) -> RunVerdict {
        var sink = PlanSink()
        let partition = ScenarioPartition(scenario)
        let parts = partCount(for: scenario, partition: partition)
        let spare = parts == 1 ? spareThreads : 0
        let threads = spare >= 1
        // Standard output is written on a thread of its own, behind a bounded queue of chunks (docs/streaming.md):
        // a slow destination holds up neither the run nor the encoding until that queue is full. In parts, or
        // without a third spare thread, the thread that formats the output (or the calling thread) writes it.
        let output = spare >= 3 ? BackgroundWriter(write) : nil
        let queued: ([UInt8]) -> Void = output.map { output in { output.write($0) } } ?? write
        switch format {
        case .timeline:
            var timeline = TimelineSink(scenario: scenario, write: queued)
            // Its end formats half of the table on a second thread once the run is over, only where that is a
            // thread the limit allows (the run's own threads are done by then, but for parts 2 and on freeing their
            // stores, which may overlap its start).
            timeline.usesSecondThread = parts > 1 || spare >= 1
            sink.timeline = timeline
        case .jsonl:
            // Encoded on two threads (same bytes): the encoding is most of a jsonl run's work (docs/streaming.md).
            if parts == 1 {
                sink.jsonl = JSONLSink(app: scenario.app, signer: signer, parallel: spare >= 2, write: queued)
            }
        case .decoded: if parts == 1 { sink.decoded = DecodedSink(app: scenario.app, write: queued) }
        case .svg: sink.picture = PictureSink(scenario: scenario, view: pictureView, write: queued)
        }
        if let fixtures {
            sink.fixtures = FixtureSink(scenario: scenario, app: scenario.app, signer: signer, staging: fixtures)
            // The picture beside the fixtures (`DIR/timeline.svg`).
            sink.fixturePicture = PictureSink(scenario: scenario, view: pictureView, write: { _ in })
        }
        var meter = progress.map {
            RunProgressMeter(customers: scenario.customers.count, start: scenario.start, report: $0)
        }
        let run: ScenarioRun
        var streamed: StreamedDelivery?
        if parts > 1 {
            // The parts encode the lines as the one-job sinks do; timeline rows are rendered by the parts and the table
            // is laid out here, from them (not from the records).
            let lines = PartitionedRun.Lines(format, app: scenario.app, signer: signer, start: scenario.start)
            // Lines are written from the parts' batches; timeline rows go to the table instead.
            let vector = format == .jsonl || format == .decoded ? writeVector : nil
            var table = sink.timeline
            sink.timeline = nil
            run = PartitionedRun.run(
                scenario, partition: partition, count: parts, lines: lines, write: write, writeVector: vector,
                sink: &sink, table: &table, keepValues: fixtures != nil || !scenario.expectations.isEmpty,
                progress: meter == nil ? nil : { sent, reached in meter?.step(sent: sent, reached: reached) })
            sink.timeline = table
        } else if threads {
            // The output is written on a second thread while the run goes on (same bytes; docs/streaming.md).
            var background = BackgroundSink(sink)
            // Delivery follows the run on the run's own thread, so the store need not keep what it sent.
            streamed = delivery.map { StreamedDelivery($0, scenario: scenario, signer: signer) }
            run = ScenarioRunner.stream(scenario, retention: .liveState, into: &background) {
                notifications, settled in
                streamed?.follow(notifications, settledBefore: settled)
                meter?.step(
                    sent: notifications.count, reached: settled,
                    delivery: streamed.map { ($0.delivery.counts.attempts, $0.delivery.counts.delivered) })
            }
            sink = background.finish()
        } else {
            streamed = delivery.map { StreamedDelivery($0, scenario: scenario, signer: signer) }
            run = ScenarioRunner.stream(scenario, retention: .liveState, into: &sink) { notifications, settled in
                streamed?.follow(notifications, settledBefore: settled)
                meter?.step(
                    sent: notifications.count, reached: settled,
                    delivery: streamed.map { ($0.delivery.counts.attempts, $0.delivery.counts.delivered) })
            }
        }
        sink.finishStandardOutput()
        output?.finish()
        meter?.finish()
        var verdict = RunVerdict(run: run)
        // Retries due after the run are made only for a run that passed.
        verdict.delivery = streamed?.finish(passed: run.passed)
        if let stop = run.stoppedBy {
            // What happened up to the refused action helps to see why it was refused. jsonl and decoded lines were
            // written as the run went: a stopped run's stream ends early.
            fixtures?.abandon()
            if fixtures != nil { verdict.fixtures = .notWritten }
            if format == .timeline {
                write(
                    Array(TimelineSink.stoppedLine(stop.place).utf8))
            }
            return verdict
        }
        if format == .timeline {
            let count = scenario.expectations.count
            write(Array(TimelineSink.expectationsLine(count, failed: run.failures.count).utf8))
        }
        if let staging = fixtures, var fixtureSink = sink.fixtures {
            if run.passed {
                fixtureSink.finish()
                var failure = fixtureSink.error
                if failure == nil, let picture = sink.fixturePicture {
                    do throws(FixtureWriter.WriteError) {
                        try staging.write(PictureSink.pictureFileName, picture.document())
                    } catch { failure = error }
                }
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
        return verdict
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
        case delivered(DeliverySummary)
        /// Cut short: the run stopped, its expectations failed, or simctl was told to stop (``DeliveryPlan/stopping``). The attempts due while it ran were made (as they
        /// are in a run that passes); `pendingAttempts` attempts still scheduled then (first attempts, retries and
        /// chaos duplicates) were not.
        case cutShort(DeliverySummary, pendingAttempts: Int)
        /// Stopped: the delivery log could not be written (no attempt is made after that).
        case logFailed(DeliveryLogError)
    }

    public var run: ScenarioRun
    /// nil without a fixture folder.
    public var fixtures: Fixtures?
    /// nil without delivery.
    public var delivery: Delivery?
}

/// What a ``RunPlan`` streams to: the chosen format on standard output, and the fixture folder.
struct PlanSink: RunSink {
    var timeline: TimelineSink?
    var jsonl: JSONLSink?
    var decoded: DecodedSink?
    var fixtures: FixtureSink?
    var picture: PictureSink?
    /// The picture written into the fixture folder.
    var fixturePicture: PictureSink?

    mutating func receive(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>) {
        timeline?.receive(notifications, changes)
        jsonl?.receive(notifications, changes)
        decoded?.receive(notifications, changes)
        fixtures?.receive(notifications, changes)
        picture?.receive(notifications, changes)
        fixturePicture?.receive(notifications, changes)
    }

    /// Writes what standard output still holds (the whole table, for the timeline).
    mutating func finishStandardOutput() {
        timeline?.finish()
        jsonl?.finish()
        decoded?.finish()
        picture?.finish()
    }
}

/// A run's delivery as the run goes (``RunPlan``): notifications are given to the one pump as the store sends them,
/// and every attempt due before the instant the run has settled is made before the run computes anything later.
/// Only what is in flight is kept (``DeliveryHistory/inFlight``); the log is written line by line.
struct StreamedDelivery {
    let plan: DeliveryPlan
    /// Encodes the run's notifications; nil when the items come encoded (``DeliveryPlan/deliver(_:seed:)``).
    let encoder: NotificationEncoder?
    var delivery: NotificationDelivery
    /// The log could not be opened or written: nothing more is attempted.
    var failure: DeliveryLogError?

    /// Opens the log (a failure is kept for ``finish(passed:)``, and nothing is delivered).
    init(_ plan: DeliveryPlan, scenario: Scenario, signer: (any PayloadSigner)?) {
        self.init(
            plan, seed: scenario.seed, faults: scenario.deliveryFaults,
            encoder: NotificationEncoder(app: scenario.app, signer: signer))
    }

    init(_ plan: DeliveryPlan, seed: UInt64, faults: [DeliveryFault], encoder: NotificationEncoder?) {
        precondition(plan.chaos.problem == nil, plan.chaos.problem ?? "")
        self.plan = plan
        self.encoder = encoder
        // The clock starts at the earliest instant, so no notification's first attempt is moved (the store's
        // notifications are all at or after the scenario's start).
        delivery = NotificationDelivery(
            unchecked: Instant(millisecondsSince1970: 0), schedule: plan.mode.schedule, chaos: plan.chaos,
            seed: seed, history: .inFlight)
        // The scenario's `delivery:` block (``DeliveryFault``), on top of what chaos draws.
        delivery.faults = faults
        do throws(DeliveryLogError) { try plan.log?.open() } catch { failure = error }
    }

    /// Takes the notifications the run sent since the last call, and makes the attempts due before `settled` (the
    /// run's next stop, ``TimelineDriver/nextStop(_:deliveryDue:through:)``: it sends nothing earlier than that any
    /// more). With one connection, every attempt before `settled`; with
    /// more, only batches that lie wholly before it (a batch spans up to the shortest retry delay, so batches, and
    /// with them the log's order, are the same as when the whole run is delivered after it).
    mutating func follow(_ notifications: ArraySlice<SentNotification>, settledBefore settled: Instant) {
        guard failure == nil, !stopped else { return }
        if !notifications.isEmpty, let encoder {
            delivery.append(notifications.map { DeliveryItem($0, encoder: encoder) })
        }
        let connections = plan.transport.connections
        let notAfter = settled.adding(milliseconds: connections > 1 ? -delivery.batchWindow : -1)
        guard let next = delivery.nextAttemptInstant, next <= notAfter else { return }
        pump(notAfter: notAfter, wholeBatches: connections > 1)
    }

    /// Makes the attempts due up to `notAfter` (all there will be, when nil), writing each log line.
    mutating func pump(notAfter: Instant?, wholeBatches: Bool) {
        let log = plan.log
        let transport = plan.transport
        let stopping = plan.stopping
        let attempt: ([DeliveryRequest]) throws(DeliveryLogError) -> [DeliveryOutcome] = {
            (requests) throws(DeliveryLogError) in
            transport.attempt(requests)
        }
        let recorded: (DeliveryLogEntry) throws(DeliveryLogError) -> Void = { (entry) throws(DeliveryLogError) in
            try log?.write(entry)
        }
        do throws(DeliveryLogError) {
            try delivery.pump(
                notAfter: notAfter, limit: transport.connections, wholeBatches: wholeBatches, attempt: attempt,
                recorded: recorded, stopping: { stopping?() ?? false })
        } catch { failure = error }
    }

    /// The command line was told to stop (``DeliveryPlan/stopping``).
    var stopped: Bool { plan.stopping?() ?? false }

    /// After the run: a run that passed makes every attempt left (retries run past `until`); otherwise the attempts
    /// still pending are not made. Closes the log.
    mutating func finish(passed: Bool) -> RunVerdict.Delivery {
        if passed && failure == nil && !stopped { pump(notAfter: nil, wholeBatches: false) }
        plan.log?.close()
        if let failure { return .logFailed(failure) }
        if passed && !stopped { return .delivered(delivery.summary) }
        return .cutShort(delivery.summary, pendingAttempts: delivery.pendingAttempts)
    }
}

extension DeliveryPlan {
    /// Delivers `items` (in their order; each first attempted at its `instant`, which must not decrease) through the
    /// one pump, with the plan's retry schedule, chaos (drawn from `seed`) and log: what `simctl run --deliver`
    /// does with a run's notifications, for notifications already encoded (`simctl trigger`, `simctl replay`).
    public func deliver(_ items: [DeliveryItem], seed: UInt64) -> RunVerdict.Delivery {
        var streamed = StreamedDelivery(self, seed: seed, faults: [], encoder: nil)
        streamed.delivery.append(items)
        return streamed.finish(passed: true)
    }
}
