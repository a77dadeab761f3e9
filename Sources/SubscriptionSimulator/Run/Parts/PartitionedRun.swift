/// A run in parts on threads of their own (``RunPlan/jobs``, `simctl run --jobs N`; rule partition-order,
/// ``ScenarioPartition``): each part's thread simulates its families and, for jsonl and decoded, encodes their lines;
/// the calling thread merges the parts' records by key into the one-job order and writes them. Same bytes as one job.
///
/// Memory: each part hands its records on in batches (about 256 KB of lines or 512 records, and at least every 64
/// steps of its driver, so the merger learns how far it has got), through a queue of at most four batches: a part
/// that gets ahead of the merge waits (back-pressure).
struct PartitionedRun {
    /// A part hands its lines on once a batch holds this many bytes (or 512 records, or 64 steps).
    static let batchBytes = 1 << 18

    /// What one part hands the merger.
    struct Batch {
        var notifications: [SentNotification] = []
        var notificationKeys: [RecordKey] = []
        /// Where each notification's line ends in `bytes` (``Lines/appendLines(of:to:lineEnds:buffers:)``).
        var lineEnds: [Int] = []
        var bytes: [UInt8] = []
        var changes: [EntitlementChange] = []
        var changeKeys: [RecordKey] = []
        /// With timeline rows (``Lines/timelineRows(_:)``): each change's access row, and where each ends.
        var changeBytes: [UInt8] = []
        var changeEnds: [Int] = []
        /// Every record the part sends after this batch has a key at or after this.
        var frontier = RecordKey(segment: 0, instant: .min, family: 0)
        /// The part's last batch.
        var finished = false
        /// With `finished`: the part stopped, and nothing at or after this key is output (``KeyedRunSink``).
        var cut: RecordKey?

        var recordCount: Int { notificationKeys.count + changeKeys.count }

        /// Empties the batch, keeping its buffers.
        mutating func empty() {
            notifications.removeAll(keepingCapacity: true)
            notificationKeys.removeAll(keepingCapacity: true)
            lineEnds.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
            changes.removeAll(keepingCapacity: true)
            changeKeys.removeAll(keepingCapacity: true)
            changeBytes.removeAll(keepingCapacity: true)
            changeEnds.removeAll(keepingCapacity: true)
            finished = false
            cut = nil
        }
    }

    /// What a part's records are encoded to on its own thread: each format's lines as its one-job sink writes them
    /// (``JSONLSink/appendLine(of:encoder:signing:to:buffers:)``, ``DecodedSink/appendLine(of:app:to:)``).
    enum Lines {
        case none
        case jsonl(NotificationEncoder, JWSSigning)
        case decoded(AppConfiguration)
        /// The timeline's rows, as cells (``TimelineRowRenderer``, offsets from this start): each notification's
        /// row is its line, each change's access row goes to ``Batch/changeBytes``; the merger lays them out
        /// (``TimelineSink/receiveRow(_:instant:access:)``).
        case timelineRows(Instant)

        /// What the parts encode for `format`: the one place a format names its encoding in parts, for a run in
        /// parts (``RunPlan``) and a part file (``PartFile``). `svg` is never run in parts.
        init(_ format: OutputFormat, app: AppConfiguration, signer: (any PayloadSigner)?, start: Instant) {
            switch format {
            case .jsonl:
                let encoder = NotificationEncoder(app: app, signer: signer)
                self = .jsonl(encoder, JWSSigning(encoder.signer))
            case .decoded: self = .decoded(app)
            case .timeline: self = .timelineRows(start)
            case .svg: self = .none
            }
        }

        /// The same encoding with the app's strings and the signer's header in storage of the part's own
        /// (``String/inOwnStorage``): every line writes them, on every part's thread at once.
        func inOwnStorage() -> Lines {
            switch self {
            case .none, .timelineRows:
                return self
            case .jsonl(var encoder, _):
                encoder.app = encoder.app.inOwnStorage()
                return .jsonl(encoder, JWSSigning(encoder.signer))
            case .decoded(let app):
                return .decoded(app.inOwnStorage())
            }
        }

        /// Appends each notification's line (with its newline) to `bytes`, and where it ends in `bytes` to
        /// `lineEnds` (`.none`: no bytes, every line ends where `bytes` does). The case is read once per call, not
        /// per line: binding its values retains the app's and the signer's storage.
        func appendLines(
            of notifications: [SentNotification], to bytes: inout [UInt8], lineEnds: inout [Int],
            buffers: inout NotificationEncoder.Buffers
        ) {
            switch self {
            case .none, .timelineRows:
                // Rows are rendered by the part's sink, which knows its customers' entitlements.
                for _ in notifications.indices { lineEnds.append(bytes.count) }
            case .jsonl(let encoder, let signing):
                // Each notification read in place, not copied out of the array: a copy retains every string it
                // holds.
                notifications.withUnsafeBufferPointer { group in
                    for index in group.indices {
                        JSONLSink.appendLine(
                            of: group[index], encoder: encoder, signing: signing, to: &bytes, buffers: &buffers)
                        lineEnds.append(bytes.count)
                    }
                }
            case .decoded(let app):
                notifications.withUnsafeBufferPointer { group in
                    for index in group.indices {
                        DecodedSink.appendLine(of: group[index], app: app, to: &bytes)
                        lineEnds.append(bytes.count)
                    }
                }
            }
        }
    }

    /// The sink of one part, on its thread: keys and encodes, and hands batches to the merger.
    struct PartSink: KeyedRunSink {
        let lines: Lines
        /// Whether the merger needs the notifications themselves (timeline, fixtures, expectations).
        let keepValues: Bool
        let queue: Handoff<Batch>
        /// Batches the merger is done with, emptied, to be filled again (no new buffer, no new pages).
        let spare: Handoff<Batch>
        var batch = Batch()
        var buffers = NotificationEncoder.Buffers()
        var steps = 0
        /// A little over the longest average line of any group so far: the room a group's lines are expected to
        /// take, reserved before they are encoded.
        var lineBytes = 0
        /// With ``Lines/timelineRows(_:)``: renders the rows.
        var rows: TimelineRowRenderer?

        init(lines: Lines, keepValues: Bool, queue: Handoff<Batch>, spare: Handoff<Batch>) {
            self.lines = lines
            self.keepValues = keepValues
            self.queue = queue
            self.spare = spare
            if case .timelineRows(let start) = lines { rows = TimelineRowRenderer(start: start) }
        }

        mutating func receive(
            taking notifications: inout [SentNotification], keys notificationKeys: [RecordKey],
            _ changes: inout [EntitlementChange], keys changeKeys: [RecordKey], frontier: RecordKey
        ) {
            // A batch's bytes that grew while a group's lines were appended would be copied at every doubling
            // (a group of 512 coincident renewals is about 1.7 MB of jsonl, a batch is cut at 256 KB): the group's
            // room is reserved first, in a batch of its own when the current one cannot take it.
            let room = batch.bytes.count + notifications.count * lineBytes
            if room > batch.bytes.capacity {
                if batch.recordCount > 0 {
                    handOn(reserving: notifications.count * lineBytes)
                } else {
                    batch.bytes.reserveCapacity(room)
                }
            }
            let before = batch.bytes.count
            if rows != nil {
                appendRows(notifications, changes)
            } else {
                lines.appendLines(of: notifications, to: &batch.bytes, lineEnds: &batch.lineEnds, buffers: &buffers)
            }
            if !notifications.isEmpty {
                let average = (batch.bytes.count - before) / notifications.count
                lineBytes = max(lineBytes, average + average / 8)
            }
            if keepValues { batch.notifications += notifications }
            batch.notificationKeys += notificationKeys
            // The merger reads the changes themselves only with `keepValues` (their keys always).
            if keepValues { batch.changes += changes }
            batch.changeKeys += changeKeys
            batch.frontier = frontier
            steps += 1
            if batch.bytes.count + batch.changeBytes.count >= PartitionedRun.batchBytes || batch.recordCount >= 512
                || steps >= 64
            {
                handOn()
            }
        }

        /// Each notification's row as its line, each change's access row into the batch's change bytes.
        mutating func appendRows(_ notifications: [SentNotification], _ changes: [EntitlementChange]) {
            notifications.withUnsafeBufferPointer { group in
                for index in group.indices {
                    rows!.append(group[index], to: &batch.bytes)
                    batch.lineEnds.append(batch.bytes.count)
                }
            }
            changes.withUnsafeBufferPointer { group in
                for index in group.indices {
                    rows!.append(group[index], to: &batch.changeBytes)
                    batch.changeEnds.append(batch.changeBytes.count)
                }
            }
        }

        /// Hands the batch on and starts the next with room for `reserving` bytes of lines, and for a batch's worth.
        mutating func handOn(reserving: Int = 0) {
            steps = 0
            let frontier = batch.frontier
            queue.put(batch)
            batch = spare.takeIfAny() ?? Batch()
            batch.frontier = frontier
            batch.bytes.reserveCapacity(max(PartitionedRun.batchBytes + 8192, reserving))
        }

        mutating func finish(cut: RecordKey?) {
            batch.finished = true
            batch.cut = cut
            batch.frontier = .end
            handOn()
            queue.close()
        }
    }

    /// One part on its thread.
    final class PartJob: BackgroundJob, @unchecked Sendable {
        let scenario: Scenario
        let part: RunPart
        let partition: ScenarioPartition
        let lines: Lines
        let keepValues: Bool
        /// The batches, to the merger.
        let queue = Handoff<Batch>(capacity: 4)
        /// Emptied batches, back from the merger.
        let spare = Handoff<Batch>()
        /// Set by the part's thread before its last batch is put; read by the merger once the queue is closed.
        var run: ScenarioRun?

        init(scenario: Scenario, part: RunPart, partition: ScenarioPartition, lines: Lines, keepValues: Bool) {
            self.scenario = scenario
            self.part = part
            self.partition = partition
            self.lines = lines
            self.keepValues = keepValues
        }

        func work() {
            var finishing = FinishLater(
                inner: PartSink(lines: lines.inOwnStorage(), keepValues: keepValues, queue: queue, spare: spare))
            var finished = ScenarioRunner.streamPart(scenario, part: part, partition: partition, into: &finishing)
            // Only part 1's store is returned (``PartitionedRun/run(_:partition:count:lines:write:writeVector:sink:
            // table:keepValues:progress:)``): every other part frees its own here, on its own thread, after its last
            // batch is handed on, instead of the merging thread freeing them one after another once the merge is
            // over (0.16 s for half of 100,000 coincident customers).
            var store = SimulatedStore(app: scenario.app, catalog: scenario.catalog, start: scenario.start)
            if part.index > 0 { swap(&store, &finished.store) }
            run = finished
            withExtendedLifetime(store) { finishing.inner.finish(cut: finishing.cut) }
        }
    }

    /// Holds the part's finish back until its run is stored (the merger reads it after the last batch).
    struct FinishLater: KeyedRunSink {
        var inner: PartSink
        var cut: RecordKey?

        mutating func receive(
            taking notifications: inout [SentNotification], keys notificationKeys: [RecordKey],
            _ changes: inout [EntitlementChange], keys changeKeys: [RecordKey], frontier: RecordKey
        ) {
            inner.receive(
                taking: &notifications, keys: notificationKeys, &changes, keys: changeKeys, frontier: frontier)
        }

        mutating func finish(cut: RecordKey?) { self.cut = cut }
    }

    /// Where the merger is in one part's current batch.
    struct Cursor {
        var batch = Batch()
        var notification = 0
        var change = 0
        var lineStart = 0
        /// Where the next change's access row starts in ``Batch/changeBytes`` (timeline rows).
        var changeStart = 0
        var done = false

        var hasRecords: Bool {
            notification < batch.notificationKeys.count || change < batch.changeKeys.count
        }

        /// The key of the part's next record (``changeGoesFirst(_:before:)``).
        var nextKey: RecordKey {
            let n = notification < batch.notificationKeys.count ? batch.notificationKeys[notification] : .end
            let c = change < batch.changeKeys.count ? batch.changeKeys[change] : .end
            return PartitionedRun.changeGoesFirst(c, before: n) ? c : n
        }
    }

    /// Of one part's next notification and next entitlement change, the change goes first only when its key is
    /// lower: at one key, the notification first (the merge, and the records of a timeline part, ``PartFile``).
    static func changeGoesFirst(_ change: RecordKey, before notification: RecordKey) -> Bool { change < notification }

    /// The part whose stop is the run's: the one with the lowest cut (`.end`: it did not stop).
    static func firstStop(_ cuts: [RecordKey]) -> Int {
        var first = 0
        for part in cuts.indices.dropFirst() where cuts[part] < cuts[first] { first = part }
        return first
    }

    /// Runs `scenario` in `count` parts and merges their output: the lines of `lines` go to `write` in one-job
    /// order, or its timeline rows to `table`; `sink` (fixtures) and `tracker` (expectations) receive the merged
    /// records when given. Returns the run (part 1's store; failures judged on the merged records; the earliest stop
    /// of any part).
    static func run<Sink: RunSink>(
        _ scenario: Scenario, partition: ScenarioPartition, count: Int, lines: Lines,
        write: @escaping ([UInt8]) -> Void, writeVector: VectorWrite? = nil,
        sink: inout Sink, table: inout TimelineSink?, keepValues: Bool, progress: ((Int, Instant) -> Void)?
    ) -> ScenarioRun {
        let jobs = (0..<count).map { index in
            PartJob(
                scenario: scenario, part: RunPart(index: index, count: count), partition: partition, lines: lines,
                keepValues: keepValues)
        }
        for job in jobs { startThread(job) }
        var tracker = scenario.expectations.isEmpty ? nil : ExpectationTracker(scenario)
        let partCuts = merge(
            count: count, take: { jobs[$0].queue.take() }, giveBack: { jobs[$0].spare.put($1) }, write: write,
            writeVector: writeVector, sink: &sink, table: &table, tracker: &tracker, keepValues: keepValues,
            start: scenario.start, progress: progress)
        let runs = jobs.map { $0.run! }
        // The earliest stop of any part is the one-job run's stop (the lowest cut).
        let first = firstStop(partCuts)
        var run = runs[0]
        if let stop = runs[first].stoppedBy {
            run.stoppedBy = stop
            run.failures = []
        } else {
            run.failures = tracker?.failures() ?? []
        }
        return run
    }

    /// Merges `count` parts' batches by key into the one-job order (rule partition-order): `take(i)` gives part
    /// `i`'s next batch (nil once it has none), in key order, its last one `finished`; `giveBack` receives emptied
    /// batches to fill again. The lines go to `write`, or, with `table`, each line and each change's bytes
    /// (``Batch/changeBytes``) are a timeline row for it (``TimelineSink/receiveRow(_:instant:access:)``); `sink` and
    /// `tracker` receive the merged records (with `keepValues`). Nothing at or after the lowest cut of any part is
    /// output. Returns each part's cut (`.end`: none). Used by `simctl run --jobs N` (parts on threads) and `simctl
    /// merge` (parts from files, ``PartFile``).
    ///
    /// With `writeVector`, the lines are not copied: the merger notes where each lies in its part's batch and writes
    /// them straight from the batches, in order, before any batch they lie in is given back or replaced.
    static func merge<Sink: RunSink>(
        count: Int, take: (Int) -> Batch?, giveBack: (Int, Batch) -> Void, write: @escaping ([UInt8]) -> Void,
        writeVector: VectorWrite? = nil, sink: inout Sink, table: inout TimelineSink?,
        tracker: inout ExpectationTracker?, keepValues: Bool, start: Instant, progress: ((Int, Instant) -> Void)?
    ) -> [RecordKey] {
        var m = Merger(count: count, write: write, writeVector: writeVector, start: start)
        var bounds = (0..<count).map { m.lowerBound($0, take: take, giveBack: giveBack) }
        while true {
            // The part with the lowest next key sends while its keys stay at or below every other part's bound
            // (records of one key are one family's, so no other part can send a key between).
            var lowest = 0
            for part in 1..<count where bounds[part] < bounds[lowest] { lowest = part }
            if bounds[lowest] == .end { break }
            var others = RecordKey.end
            for part in 0..<count where part != lowest && bounds[part] < others { others = bounds[part] }
            while m.cursors[lowest].hasRecords {
                let key = m.cursors[lowest].nextKey
                if key > others || key >= m.cut { break }
                let c = m.cursors[lowest].change
                let n = m.cursors[lowest].notification
                // `key` is the next change's or the next notification's (``Cursor/nextKey``).
                let nextNotification =
                    n < m.cursors[lowest].batch.notificationKeys.count
                    ? m.cursors[lowest].batch.notificationKeys[n] : .end
                if c < m.cursors[lowest].batch.changeKeys.count
                    && Self.changeGoesFirst(m.cursors[lowest].batch.changeKeys[c], before: nextNotification)
                {
                    if keepValues { m.changes.append(m.cursors[lowest].batch.changes[c]) }
                    if table != nil {
                        let end = m.cursors[lowest].batch.changeEnds[c]
                        m.cursors[lowest].batch.changeBytes[m.cursors[lowest].changeStart..<end].withUnsafeBytes {
                            table!.receiveRow($0, instant: Instant(millisecondsSince1970: key.instant), access: true)
                        }
                        m.cursors[lowest].changeStart = end
                    }
                    m.cursors[lowest].change += 1
                } else {
                    let end = m.cursors[lowest].batch.lineEnds[n]
                    if table != nil {
                        m.cursors[lowest].batch.bytes[m.cursors[lowest].lineStart..<end].withUnsafeBytes {
                            table!.receiveRow($0, instant: Instant(millisecondsSince1970: key.instant), access: false)
                        }
                        m.cursors[lowest].lineStart = end
                    } else if end > m.cursors[lowest].lineStart {
                        m.output(lowest, m.cursors[lowest].lineStart..<end)
                        m.cursors[lowest].lineStart = end
                    }
                    if keepValues { m.notifications.append(m.cursors[lowest].batch.notifications[n]) }
                    m.cursors[lowest].notification += 1
                    m.unreported += 1
                    m.reached = Instant(millisecondsSince1970: key.instant)
                }
                if m.notifications.count + m.changes.count >= 512 || m.unreported >= 512 {
                    m.handOn(sink: &sink, tracker: &tracker, progress: progress)
                }
            }
            if m.cursors[lowest].hasRecords && m.cursors[lowest].nextKey >= m.cut {
                // Past the stop: this part sends nothing more.
                m.writePending()
                m.cursors[lowest] = Cursor()
                m.cursors[lowest].done = true
                while take(lowest) != nil {}
            }
            bounds[lowest] = m.lowerBound(lowest, take: take, giveBack: giveBack)
        }
        m.handOn(sink: &sink, tracker: &tracker, progress: progress)
        m.writePending()
        m.out.flush()
        // Drain what stopped parts left, so every thread ends.
        for part in 0..<count { while take(part) != nil {} }
        return m.partCuts
    }

    /// The state of one ``merge(count:take:giveBack:write:writeVector:sink:table:tracker:keepValues:start:progress:)``,
    /// a struct of its own rather than local variables shared by nested functions: captured that way they were boxed
    /// and every access to them checked for exclusivity at run time (about 500 instructions per merged record).
    struct Merger {
        let writeVector: VectorWrite?
        var cursors: [Cursor]
        var out: ChunkedWriter
        /// Lines not written yet (with `writeVector`), in output order: a part and a range of its batch's bytes.
        var pending: [(part: Int, range: Range<Int>)] = []
        var pendingBytes = 0
        /// The pending lines' buffers, for `writeVector` (kept between calls).
        var vectors: [UnsafeRawBufferPointer] = []
        /// The lowest cut of any part so far: nothing at or after it is output.
        var cut = RecordKey.end
        /// Each part's cut (`.end`: none).
        var partCuts: [RecordKey]
        /// Merged records not yet handed to the sink and the tracker (with `keepValues`).
        var notifications: [SentNotification] = []
        var changes: [EntitlementChange] = []
        /// Notifications merged since the last progress report, and the instant reached.
        var unreported = 0
        var reached: Instant

        init(count: Int, write: @escaping ([UInt8]) -> Void, writeVector: VectorWrite?, start: Instant) {
            self.writeVector = writeVector
            cursors = [Cursor](repeating: Cursor(), count: count)
            out = ChunkedWriter(write)
            partCuts = [RecordKey](repeating: .end, count: count)
            reached = start
        }

        /// Writes the pending lines straight from the parts' batches (with `writeVector`).
        mutating func writePending() {
            guard let writeVector, !pending.isEmpty else { return }
            // The lists of lines and of buffers are moved out and back, kept from call to call, and the batches'
            // addresses are on the stack: once the lists have grown to their size, a call allocates nothing here (it is
            // made for every batch the merge takes).
            var pending: [(part: Int, range: Range<Int>)] = []
            var vectors: [UnsafeRawBufferPointer] = []
            swap(&pending, &self.pending)
            swap(&vectors, &self.vectors)
            let cursors = self.cursors
            withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: cursors.count) { bases in
                /// Notes every part's batch's address from `part` on, and calls `body` while all are valid.
                func withBatches(from part: Int, _ body: () -> Void) {
                    guard part < cursors.count else { return body() }
                    cursors[part].batch.bytes.withUnsafeBytes {
                        bases[part] = $0.baseAddress
                        withBatches(from: part + 1, body)
                    }
                }
                withBatches(from: 0) {
                    for (part, range) in pending {
                        let start = bases[part]! + range.lowerBound
                        vectors.append(UnsafeRawBufferPointer(start: start, count: range.count))
                    }
                    writeVector(vectors)
                }
            }
            // Emptied before they go back, so that no address into a batch is kept.
            pending.removeAll(keepingCapacity: true)
            vectors.removeAll(keepingCapacity: true)
            swap(&pending, &self.pending)
            swap(&vectors, &self.vectors)
            pendingBytes = 0
        }

        /// Writes (or, with `writeVector`, notes) the bytes `range` of `part`'s batch.
        mutating func output(_ part: Int, _ range: Range<Int>) {
            guard writeVector != nil else {
                out.buffer.append(contentsOf: cursors[part].batch.bytes[range])
                out.flushIfFull()
                return
            }
            if let last = pending.last, last.part == part, last.range.upperBound == range.lowerBound {
                pending[pending.count - 1].range = last.range.lowerBound..<range.upperBound
            } else {
                pending.append((part, range))
            }
            pendingBytes += range.count
            if pending.count >= ChunkedWriter.vectorBuffers || pendingBytes >= ChunkedWriter.chunk * 4 {
                writePending()
            }
        }

        /// Hands the merged records to `sink` and `tracker`, and reports progress.
        mutating func handOn<Sink: RunSink>(
            sink: inout Sink, tracker: inout ExpectationTracker?, progress: ((Int, Instant) -> Void)?
        ) {
            if !notifications.isEmpty || !changes.isEmpty {
                sink.receive(notifications[...], changes[...])
                tracker?.receive(notifications[...], changes[...])
                notifications.removeAll(keepingCapacity: true)
                changes.removeAll(keepingCapacity: true)
            }
            if unreported > 0 {
                progress?(unreported, reached)
                unreported = 0
            }
        }

        /// The lowest key the part may still send: its next record's, or (with none in hand) after taking its next
        /// batch; `.end` once it is over.
        mutating func lowerBound(
            _ part: Int, take: (Int) -> Batch?, giveBack: (Int, Batch) -> Void
        ) -> RecordKey {
            while !cursors[part].hasRecords && !cursors[part].done {
                guard let batch = take(part) else {
                    cursors[part].done = true
                    break
                }
                // The pending lines may lie in the batch about to be given back.
                writePending()
                if batch.finished, let partCut = batch.cut {
                    partCuts[part] = partCut
                    if partCut < cut { cut = partCut }
                }
                let finished = batch.finished
                var used = Cursor(batch: batch)
                swap(&used, &cursors[part])
                used.batch.empty()
                if used.batch.bytes.capacity > 0 { giveBack(part, used.batch) }
                if finished && !cursors[part].hasRecords { cursors[part].done = true }
            }
            return cursors[part].hasRecords ? cursors[part].nextKey : .end
        }
    }
}
