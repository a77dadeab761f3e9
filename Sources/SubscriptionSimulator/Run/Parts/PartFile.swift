import Foundation

/// The part format of `simctl run FILE --shard I/N` and `simctl merge PART...` (docs/streaming.md, "Spreading a run
/// over machines"): one part of a partitioned run (rule partition-order, ``ScenarioPartition``) with each record's
/// key, so that merging the N parts by key (``PartitionedRun/merge(count:take:giveBack:write:sink:tracker:keepValues:start:progress:)``,
/// the merge of `run --jobs N`) gives the one-job output byte for byte.
///
/// - line 1: `simctl-part 2 ` and the header, one JSON object (``Header``), then a newline;
/// - one record per notification of the part, in key order: `r SEGMENT INSTANT FAMILY LENGTH` and a newline, then
///   LENGTH bytes: the notification's output line (jsonl or decoded) with its newline, or for the timeline format
///   its row's cells (``TimelineRows``); a timeline part also has a record per access change, `a SEGMENT INSTANT
///   FAMILY LENGTH` and the access row's cells;
/// - the trailer: `end RECORDS CUT STOPLENGTH` and a newline, then STOPLENGTH bytes: RECORDS is the number of records
///   (a truncated part is detected), CUT is `-` or the segment where the part's run stopped (an action the rules
///   refuse), STOPLENGTH the length of that stop's message (0 when it did not stop). Nothing follows.
package enum PartFile {
    /// What starts every part (version 2 of the format: version 1's parts split the families round robin, version 2's
    /// in rotated blocks, rule partition-order; so that no simctl merges parts of the two kinds, the version changed).
    package static let magic = "simctl-part 2 "
    /// What started parts of the earlier versions (refused with a message of their own).
    static let earlierMagic = "simctl-part 1 "

    /// What a part was made from: the parts of one merge must agree on everything but ``shard``.
    package struct Header: Codable, Equatable, Sendable {
        /// SHA-256 of the scenario file's bytes, in lower-case hex.
        package var scenarioDigest: String
        /// The run's seed, start, end and environment after the command line's overrides.
        package var seed: String
        package var start: String
        package var until: String
        package var environment: String
        /// How the payloads are signed: `default`, `ca-seed TEXT` or `signing-chain DIGEST` (SHA-256 of the SHA-256s of
        /// leaf.pem, intermediate.pem and root.pem).
        package var signing: String
        /// `jsonl`, `decoded` or `timeline`.
        package var format: String
        /// The scenario's name and how many expectations it has (a merged timeline's title and last line show
        /// them; absent in parts written before they were added).
        package var name: String?
        package var expectations: Int?
        /// The scenario file as the command line named it: a stop's message starts with it (a merged timeline's
        /// last line names the stop's `FILE:LINE:COLUMN`). Not compared: each machine may name the file its way.
        package var file: String?
        /// This part, from 1.
        package var shard: Int
        /// How many parts there are.
        package var shards: Int

        package init(
            scenarioDigest: String, scenario: Scenario, signing: String, format: OutputFormat, part: RunPart
        ) {
            self.scenarioDigest = scenarioDigest
            // As the timeline's title shows them: a merged timeline's title is made from these.
            let title = TimelineSink.Title(scenario)
            seed = title.seed
            start = title.start
            until = title.until
            name = title.name
            environment = scenario.app.environment.rawValue
            self.signing = signing
            self.format = format.rawValue
            file = scenario.file
            expectations = scenario.expectations.count
            shard = part.index + 1
            shards = part.count
        }

        /// The header line's length, with its newline: at most ``Reader/longestHeader`` in a part (`simctl run
        /// --shard` refuses a longer one, which a long scenario name would make).
        package var lineLength: Int { line.count }

        /// The header line (with its newline).
        var line: [UInt8] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let json = (try? encoder.encode(self)).map { Array($0) } ?? []
            return Array(PartFile.magic.utf8) + json + [UInt8(ascii: "\n")]
        }

        /// The fields on which the header differs from `other`, shard excepted (name, this value, the other's).
        package func differences(from other: Header) -> [(field: String, value: String, other: String)] {
            var found: [(String, String, String)] = []
            func compare(_ name: String, _ a: String, _ b: String) { if a != b { found.append((name, a, b)) } }
            compare("scenarioDigest", scenarioDigest, other.scenarioDigest)
            compare("seed", seed, other.seed)
            compare("start", start, other.start)
            compare("until", until, other.until)
            compare("environment", environment, other.environment)
            compare("signing", signing, other.signing)
            compare("format", format, other.format)
            compare("name", name ?? "", other.name ?? "")
            compare("expectations", expectations.map(String.init) ?? "", other.expectations.map(String.init) ?? "")
            compare("shards", String(shards), String(other.shards))
            return found
        }
    }

    /// Runs part `part` of `scenario` (``ScenarioRunner/streamPart(_:part:partition:into:)``) and writes it in the
    /// part format to `write`, in bounded memory. `format`: jsonl, decoded or timeline. A scenario that runs as one
    /// job (``ScenarioPartition/oneJobReason``) has everything in part 1; its other parts hold no record.
    package static func writePart(
        _ scenario: Scenario, part: RunPart, format: OutputFormat, signer: (any PayloadSigner)?, header: Header,
        write: @escaping ([UInt8]) -> Void
    ) -> ScenarioRun {
        precondition(Self.formats.contains(format), "a part holds jsonl or decoded lines or timeline rows")
        let out = ChunkedWriter(write)
        if format == .timeline {
            var sink = TimelineRowWriter(start: scenario.start, out: out)
            return writePart(scenario, part: part, header: header, sink: &sink)
        }
        let lines = PartitionedRun.Lines(format, app: scenario.app, signer: signer, start: scenario.start)
        var sink = Writer(lines: lines, out: out)
        return writePart(scenario, part: part, header: header, sink: &sink)
    }

    /// The formats a part may hold.
    package static let formats: Set<OutputFormat> = [.jsonl, .decoded, .timeline]

    /// Writes the header, runs the part into `sink` and writes the trailer.
    static func writePart<Sink: PartRecordWriter>(
        _ scenario: Scenario, part: RunPart, header: Header, sink: inout Sink
    ) -> ScenarioRun {
        sink.out.buffer += header.line
        let run = ScenarioRunner.streamPart(scenario, part: part, partition: ScenarioPartition(scenario), into: &sink)
        let stop = run.stoppedBy.map { Array("\($0)\n".utf8) } ?? []
        let cut = sink.cut.map(Trailer.cutText) ?? "-"
        sink.out.append("end \(sink.records) \(cut) \(stop.count)\n")
        sink.out.buffer += stop
        sink.out.flush()
        return run
    }

    /// A part's sink: writes its records and keeps their count and the part's cut for the trailer.
    protocol PartRecordWriter: KeyedRunSink {
        var out: ChunkedWriter { get set }
        var records: Int { get }
        var cut: RecordKey? { get }
    }

    /// Writes a timeline part's records: each notification's row (`r`) and each access change's row (`a`), in key
    /// order, their cells in ``TimelineRows``' format, as ``TimelineSink`` renders them (the access rows with what
    /// the part's customers were entitled to before: a customer's changes are all in one part).
    struct TimelineRowWriter: PartRecordWriter {
        var out: ChunkedWriter
        var rows: TimelineRowRenderer
        var row: [UInt8] = []
        var records = 0
        var cut: RecordKey?

        init(start: Instant, out: ChunkedWriter) {
            self.out = out
            rows = TimelineRowRenderer(start: start)
        }

        mutating func receive(
            taking notifications: inout [SentNotification], keys notificationKeys: [RecordKey],
            _ changes: inout [EntitlementChange], keys changeKeys: [RecordKey], frontier: RecordKey
        ) {
            var n = 0
            var c = 0
            while n < notifications.count || c < changes.count {
                // In key order, a notification first at one key (as the merge of parts takes them).
                let access =
                    c < changes.count
                    && PartitionedRun.changeGoesFirst(
                        changeKeys[c], before: n < notifications.count ? notificationKeys[n] : .end)
                row.removeAll(keepingCapacity: true)
                let key: RecordKey
                if access {
                    rows.append(changes[c], to: &row)
                    key = changeKeys[c]
                    c += 1
                } else {
                    rows.append(notifications[n], to: &row)
                    key = notificationKeys[n]
                    n += 1
                }
                out.append("\(access ? "a" : "r") \(key.segment) \(key.instant) \(key.family) \(row.count)\n")
                out.buffer += row
                records += 1
                out.flushIfFull()
            }
        }

        mutating func finish(cut: RecordKey?) { self.cut = cut }
    }

    /// Writes a part's records (``writePart(_:part:format:signer:header:write:)``).
    struct Writer: PartRecordWriter {
        let lines: PartitionedRun.Lines
        var out: ChunkedWriter
        /// The lines of the records in hand, and where each ends.
        var line: [UInt8] = []
        var lineEnds: [Int] = []
        var buffers = NotificationEncoder.Buffers()
        var records = 0
        var cut: RecordKey?

        mutating func receive(
            taking notifications: inout [SentNotification], keys notificationKeys: [RecordKey],
            _ changes: inout [EntitlementChange], keys changeKeys: [RecordKey], frontier: RecordKey
        ) {
            line.removeAll(keepingCapacity: true)
            lineEnds.removeAll(keepingCapacity: true)
            lines.appendLines(of: notifications, to: &line, lineEnds: &lineEnds, buffers: &buffers)
            var start = 0
            for index in notifications.indices {
                let key = notificationKeys[index]
                let end = lineEnds[index]
                out.append("r \(key.segment) \(key.instant) \(key.family) \(end - start)\n")
                out.buffer += line[start..<end]
                start = end
                records += 1
                out.flushIfFull()
            }
        }

        mutating func finish(cut: RecordKey?) { self.cut = cut }
    }

    /// A part file that cannot be merged: `message` names the file and says what was expected and what was found.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        package var message: String
        /// The file cannot be read at all (rather than holding bad data).
        package var unreadable = false
        package var description: String { message }
    }

    /// What a part's trailer says.
    package struct Trailer: Sendable {
        package var records: Int
        /// Where the part's run stopped (nil: it did not).
        package var cut: RecordKey?
        /// The stop's message (empty when it did not stop).
        package var stop: String

        /// The trailer's CUT: `SEGMENT` for a cut at a segment's start (an action the rules refuse), else
        /// `SEGMENT,INSTANT,FAMILY` (a store event stopped the run: ``ScenarioRunner/cut(segment:stoppingEvent:)``).
        static func cutText(_ cut: RecordKey) -> String {
            if cut.instant == .min && cut.family == 0 { return String(cut.segment) }
            return "\(cut.segment),\(cut.instant),\(cut.family)"
        }

        /// A CUT read back (nil: not one of the two spellings).
        static func cut(_ text: Substring) -> RecordKey? {
            let fields = text.split(separator: ",", omittingEmptySubsequences: false)
            if fields.count == 1, let segment = Int(fields[0]), segment >= 0 {
                return RecordKey(segment: segment, instant: .min, family: 0)
            }
            guard fields.count == 3, let segment = Int(fields[0]), segment >= 0, let instant = Int64(fields[1]),
                let family = UInt32(fields[2])
            else { return nil }
            return RecordKey(segment: segment, instant: instant, family: family)
        }
    }

    /// Reads a part file in chunks (memory bounded by the chunk and the longest record).
    package final class Reader {
        package let path: String
        let handle: FileHandle
        var buffer: [UInt8] = []
        var position = 0
        var offset = 0  // of buffer[0] in the file
        var atEnd = false
        package private(set) var header: Header?
        /// The header's format (read with it).
        package private(set) var format: OutputFormat?
        /// Whether the part holds timeline rows.
        var holdsRows: Bool { format == .timeline }
        /// Set by ``validate()``.
        package private(set) var trailer: Trailer?
        /// The first problem met while merging (the file changed after ``validate()``).
        package private(set) var problem: Problem?
        var remaining = 0

        package init(path: String) throws(Problem) {
            self.path = path
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw Problem(message: "\(path): error: cannot read the file", unreadable: true)
            }
            self.handle = handle
        }

        deinit { try? handle.close() }

        func fill() -> Bool {
            if atEnd { return false }
            let data = (try? handle.read(upToCount: 1 << 16)) ?? nil
            guard let data, !data.isEmpty else {
                atEnd = true
                return false
            }
            if position > 0 {
                buffer.removeFirst(position)
                offset += position
                position = 0
            }
            buffer += data
            return true
        }

        /// The next line without its newline (nil at the end of the file; a line longer than `limit` is cut there).
        func line(limit: Int = 4096) -> [UInt8]? {
            var scanned = position
            while true {
                if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(buffer[position..<newline])
                    position = newline + 1
                    return line
                }
                scanned = buffer.count - position  // relative to position, which fill() moves to 0
                if scanned > limit || !fill() {
                    if position >= buffer.count { return nil }
                    let line = Array(buffer[position..<min(buffer.count, position + limit)])
                    position = buffer.count
                    return line
                }
            }
        }

        /// The longest header line read, without its newline (the scenario's name is in it).
        package static let longestHeader = 1 << 20

        /// The longest record or stop message a part may hold (a line is a few kilobytes): a larger length is bad
        /// data, not a reason to read that much.
        static let longest = 1 << 24

        /// Skips the next `count` bytes, reading them in chunks (false when the file ends first).
        func skip(_ count: Int) -> Bool {
            var left = count
            while left > 0 {
                if position >= buffer.count && !fill() { return false }
                let step = min(left, buffer.count - position)
                position += step
                left -= step
            }
            return true
        }

        /// The next `count` bytes (nil when the file ends first).
        func bytes(_ count: Int, into target: inout [UInt8]) -> Bool {
            while buffer.count - position < count {
                if !fill() { return false }
            }
            target += buffer[position..<position + count]
            position += count
            return true
        }

        func fail(_ what: String) -> Problem { Problem(message: "\(path): error: \(what)") }

        /// Reads the header line.
        package func readHeader() throws(Problem) -> Header {
            let expected = "expected a part of 'simctl run --shard I/N' (first line 'simctl-part 2 {...}')"
            guard let line = line(limit: Self.longestHeader + 1) else {
                throw fail("\(expected), found an empty file")
            }
            guard line.count <= Self.longestHeader else {
                throw fail("the header line is longer than \(Self.longestHeader) bytes (the part format's limit)")
            }
            let magic = Array(PartFile.magic.utf8)
            if line.starts(with: Array(PartFile.earlierMagic.utf8)) {
                throw fail(
                    "a part in format version 1, written by an earlier simctl (its families were split round robin); "
                        + "this simctl reads version 2: write every part with the simctl that merges them")
            }
            guard line.starts(with: magic) else {
                let text = SourceText.escapingControlCharacters(String(decoding: line.prefix(40), as: UTF8.self))
                throw fail("\(expected), found '\(text)'")
            }
            guard let header = try? JSONDecoder().decode(Header.self, from: Data(line[magic.count...])),
                header.shards >= 1, (1...header.shards).contains(header.shard)
            else { throw fail("\(expected), found a first line whose header cannot be read") }
            guard let format = OutputFormat(rawValue: header.format), PartFile.formats.contains(format) else {
                let text = SourceText.escapingControlCharacters(String(header.format.prefix(40)))
                throw fail("expected a part of format jsonl, decoded or timeline, found format '\(text)'")
            }
            self.format = format
            self.header = header
            return header
        }

        enum Item {
            /// A record: a notification's (`r`) or, in a timeline part, an access row's (`a`).
            case record(RecordKey, length: Int, access: Bool)
            case end(Trailer)
        }

        /// The next record's line or the trailer (whose stop message is read too).
        func item(number: Int) throws(Problem) -> Item {
            guard let line = line() else {
                throw fail(
                    "truncated: expected record \(number + 1) or the trailer 'end ...', found the end of the file")
            }
            if let (key, length, access) = Self.record(line) {
                guard !access || holdsRows else {
                    throw fail(
                        "at byte \(offset + position - line.count - 1): an access row 'a ...' is only in a timeline part, this part's format is '\(header?.format ?? "")'"
                    )
                }
                return .record(key, length: length, access: access)
            }
            let fields = String(decoding: line, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
            if fields.count == 4, fields[0] == "end", let records = Int(fields[1]), let stopLength = Int(fields[3]),
                (0...Self.longest).contains(stopLength), fields[2] == "-" || Trailer.cut(fields[2]) != nil
            {
                var stop: [UInt8] = []
                guard bytes(stopLength, into: &stop) else {
                    throw fail("truncated: the trailer's stop message ends early")
                }
                let cut = Trailer.cut(fields[2])
                return .end(Trailer(records: records, cut: cut, stop: String(decoding: stop, as: UTF8.self)))
            }
            let text = SourceText.escapingControlCharacters(String(decoding: line.prefix(40), as: UTF8.self))
            let access = holdsRows ? " or 'a SEGMENT INSTANT FAMILY LENGTH'" : ""
            throw fail(
                "at byte \(offset + position - line.count - 1): expected a record 'r SEGMENT INSTANT FAMILY LENGTH'\(access) (LENGTH 1 to \(Self.longest)) or the trailer 'end RECORDS CUT STOPLENGTH', found '\(text)'"
            )
        }

        /// A record line, `r SEGMENT INSTANT FAMILY LENGTH` (or `a ...` for an access row: `access`; decimal digits,
        /// at most 18 each, a minus sign only before a negative instant, single spaces), read from its bytes: every
        /// record's line is read twice (checked, then merged), and splitting it as a string took most of a merge's
        /// instructions. `nil` for any other line (``item(number:)`` then reads the trailer, or refuses the line).
        static func record(_ line: [UInt8]) -> (RecordKey, length: Int, access: Bool)? {
            guard line.count >= 9, line[0] == UInt8(ascii: "r") || line[0] == UInt8(ascii: "a") else { return nil }
            var index = 1
            func number(negative allowed: Bool) -> Int64? {
                guard index < line.count, line[index] == UInt8(ascii: " ") else { return nil }
                index += 1
                let negative = allowed && index < line.count && line[index] == UInt8(ascii: "-")
                if negative { index += 1 }
                let first = index
                var value: Int64 = 0
                while index < line.count, line[index] != UInt8(ascii: " ") {
                    let digit = line[index] &- UInt8(ascii: "0")
                    guard digit < 10, index - first < 18 else { return nil }
                    value = value * 10 + Int64(digit)
                    index += 1
                }
                guard index > first else { return nil }
                return negative ? -value : value
            }
            guard let segment = number(negative: false), let instant = number(negative: true),
                let family = number(negative: false), family <= Int64(UInt32.max),
                let length = number(negative: false), (1...Int64(Self.longest)).contains(length), index == line.count
            else { return nil }
            return (
                RecordKey(segment: Int(segment), instant: instant, family: UInt32(family)), Int(length),
                line[0] == UInt8(ascii: "a")
            )
        }

        /// Reads the whole part once (after ``readHeader()``): every record, the trailer, the end of the file. A
        /// timeline part's records are read too: each must be one row's cells (``TimelineRows/isRow(_:)``).
        package func validate() throws(Problem) -> Trailer {
            var count = 0
            var last = RecordKey(segment: .min, instant: .min, family: 0)
            let rows = holdsRows
            if rows && (header?.name == nil || header?.expectations == nil || header?.file == nil) {
                throw fail(
                    "a timeline part's header needs 'name', 'expectations' and 'file' (the scenario's name, how many expectations it has and its file)"
                )
            }
            var row: [UInt8] = []
            while true {
                switch try item(number: count) {
                case .record(let key, let length, _):
                    let complete: Bool
                    if rows {
                        row.removeAll(keepingCapacity: true)
                        complete = bytes(length, into: &row)
                        if complete && !row.withUnsafeBytes({ TimelineRows.isRow($0) }) {
                            throw fail(
                                "record \(count + 1) is not a timeline row (\(TimelineRows.cellsPerRow) cells, each a 4-byte length and its bytes)"
                            )
                        }
                    } else {
                        complete = skip(length)
                    }
                    guard complete else {
                        throw fail("truncated: record \(count + 1) needs \(length) bytes, the file ends first")
                    }
                    guard !(key < last) else { throw fail("record \(count + 1) is out of key order") }
                    last = key
                    count += 1
                case .end(let trailer):
                    guard trailer.records == count else {
                        throw fail("the trailer says \(trailer.records) records, found \(count)")
                    }
                    if position < buffer.count || fill() {
                        throw fail("expected the end of the file after the trailer, found more bytes")
                    }
                    self.trailer = trailer
                    return trailer
                }
            }
        }

        /// Goes back to the first record (for the merge, after ``validate()``).
        package func rewind() throws(Problem) {
            do { try handle.seek(toOffset: 0) } catch { throw fail("cannot read the file again") }
            buffer.removeAll(keepingCapacity: true)
            position = 0
            offset = 0
            atEnd = false
            remaining = trailer?.records ?? 0
            _ = line(limit: Self.longestHeader)
        }

        /// The next batch of records for the merge (nil once the last was given).
        func nextBatch(reusing batch: PartitionedRun.Batch?) -> PartitionedRun.Batch? {
            guard remaining >= 0, problem == nil else { return nil }
            let rows = holdsRows
            var batch = batch ?? PartitionedRun.Batch()
            batch.empty()
            let number = (trailer?.records ?? 0) - remaining
            do throws(Problem) {
                while remaining > 0 && batch.bytes.count + batch.changeBytes.count < PartitionedRun.batchBytes
                    && batch.recordCount < 512
                {
                    guard case .record(let key, let length, let access) = try item(number: number + batch.recordCount)
                    else {
                        throw fail("changed while it was merged")
                    }
                    let start = access ? batch.changeBytes.count : batch.bytes.count
                    guard access ? bytes(length, into: &batch.changeBytes) : bytes(length, into: &batch.bytes) else {
                        throw fail("changed while it was merged")
                    }
                    if rows {
                        // Checked again: the file may have changed since it was validated, and the table reads
                        // the cells' lengths.
                        let cells = access ? batch.changeBytes[start...] : batch.bytes[start...]
                        guard cells.withUnsafeBytes({ TimelineRows.isRow($0) }) else {
                            throw fail("changed while it was merged")
                        }
                    }
                    if access {
                        batch.changeKeys.append(key)
                        batch.changeEnds.append(batch.changeBytes.count)
                    } else {
                        batch.notificationKeys.append(key)
                        batch.lineEnds.append(batch.bytes.count)
                    }
                    batch.frontier = key
                    remaining -= 1
                }
            } catch {
                problem = error
                remaining = -1
                return nil
            }
            if remaining == 0 {
                batch.finished = true
                batch.cut = trailer?.cut
                batch.frontier = .end
                remaining = -1
            }
            return batch
        }
    }

    /// Merges validated parts (``Reader/validate()``, each part once, in any order) into the one-job output,
    /// written to `write`, or with `writeVector` (`writev(2)`) straight from the batches the parts are read into, as
    /// `simctl run` in parts writes (``RunPlan/writeVector``). Each part's batch is read into again once the merge is
    /// done with it. Returns the part whose stop is the run's (nil: none stopped), or a problem when a file changed
    /// while it was read.
    package static func merge(
        _ readers: [Reader], write: @escaping ([UInt8]) -> Void, writeVector: VectorWrite? = nil
    ) throws(Problem) -> Reader? {
        for reader in readers { try reader.rewind() }
        var table: TimelineSink?
        return try merge(readers, write: write, writeVector: writeVector, table: &table)
    }

    /// ``merge(_:write:writeVector:)``, the rows of timeline parts to `table` when given.
    static func merge(
        _ readers: [Reader], write: @escaping ([UInt8]) -> Void, writeVector: VectorWrite?, table: inout TimelineSink?
    ) throws(Problem) -> Reader? {
        for reader in readers { try reader.rewind() }
        var sink = NoRecords()
        var tracker: ExpectationTracker?
        var spare = [PartitionedRun.Batch?](repeating: nil, count: readers.count)
        let cuts = PartitionedRun.merge(
            count: readers.count,
            take: { part in
                defer { spare[part] = nil }
                return readers[part].nextBatch(reusing: spare[part])
            },
            giveBack: { part, batch in spare[part] = batch }, write: write, writeVector: writeVector,
            sink: &sink, table: &table, tracker: &tracker, keepValues: false,
            start: Instant(millisecondsSince1970: 0), progress: nil)
        if let problem = readers.compactMap(\.problem).first { throw problem }
        let first = PartitionedRun.firstStop(cuts)
        return readers[first].trailer?.cut == nil ? nil : readers[first]
    }

    /// Merges validated timeline parts (``Reader/validate()``, each part once, in any order) into the one-job
    /// table, written to `write`: the merge of the other formats (``PartitionedRun/merge(count:take:giveBack:write:writeVector:sink:table:tracker:keepValues:start:progress:)``)
    /// hands the rows in key order to the table (``TimelineSink/receiveRow(_:instant:access:)``), which groups them
    /// by instant and sizes the columns as the one-job run does; then the line below the table. Returns the part
    /// whose stop is the run's (nil: none stopped), or a problem when a file changed while it was read.
    package static func mergeTimeline(_ readers: [Reader], write: @escaping ([UInt8]) -> Void) throws(Problem)
        -> Reader?
    {
        guard let header = readers.first?.header else { return nil }
        let title = TimelineSink.Title(
            name: header.name ?? "", start: header.start, seed: header.seed, until: header.until)
        // The rows come rendered, offsets included: the table's start is not read.
        var table: TimelineSink? = TimelineSink(title: title, start: Instant(millisecondsSince1970: 0), write: write)
        let stopped = try merge(readers, write: write, writeVector: nil, table: &table)
        table!.finish()
        // The lines below the table: a stopped run's are the one-job run's (the stop's message starts with its
        // FILE:LINE:COLUMN, ``ScenarioError``); expectations are not judged on rows.
        if let stopped, let message = stopped.trailer?.stop {
            let location = Self.location(ofStop: message, file: stopped.header?.file ?? "")
            write(Array(TimelineSink.stoppedLine(location).utf8))
        } else {
            let count = header.expectations ?? 0
            write(Array(TimelineSink.expectationsLine(count, failed: count == 0 ? 0 : nil).utf8))
        }
        return stopped
    }

    /// The `FILE:LINE:COLUMN` a stop's message starts with (``ScenarioError/place``, then `: error: MESSAGE`:
    /// ``ScenarioError/description``), `file` being the stopping part's scenario file (``Header/file``); the whole
    /// message when it does not start that way.
    static func location(ofStop message: String, file: String) -> String {
        guard message.hasPrefix(file + ":") else { return message }
        let fields = message.dropFirst(file.count + 1).split(
            separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        let digits = { (text: Substring) in !text.isEmpty && text.utf8.allSatisfy { (48...57).contains($0) } }
        guard fields.count == 3, digits(fields[0]), digits(fields[1]), fields[2].hasPrefix(" error: ") else {
            return message
        }
        return "\(file):\(fields[0]):\(fields[1])"
    }

    struct NoRecords: RunSink {
        mutating func receive(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>) {
        }
    }
}
