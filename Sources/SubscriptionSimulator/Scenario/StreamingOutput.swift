#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``RunOutput``'s formats written while the run goes (``ScenarioRunner/stream(_:retention:into:)``), byte for byte
/// what ``RunOutput`` prints for the finished run. Each sink hands its bytes to `write` in chunks of about 64 KB and
/// keeps nothing that grows with the run, except what the format itself needs at its end, kept on disk (a
/// ``Spool``): the timeline's rows (its column widths and notification count come first), a fixture folder's
/// manifest entries.
public struct JSONLSink: RunSink {
    let encoder: NotificationEncoder
    let signing: JWSSigning
    var buffers = NotificationEncoder.Buffers()
    var out: ChunkedWriter

    /// Signed by `signer`, or by the environment's default signer when it is `nil` (as ``RunOutput/jsonl(_:signer:)``).
    public init(app: AppConfiguration, signer: (any PayloadSigner)? = nil, write: @escaping ([UInt8]) -> Void) {
        encoder = NotificationEncoder(app: app, signer: signer)
        signing = JWSSigning(encoder.signer)
        out = ChunkedWriter(write)
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        for n in notifications {
            encoder.appendPostBody(of: n, signing: signing, to: &out.buffer, buffers: &buffers)
            out.buffer.append(UInt8(ascii: "\n"))
            out.flushIfFull()
        }
    }

    /// Writes what is left.
    public mutating func finish() { out.flush() }
}

/// ``RunOutput/decoded(_:)`` as a stream.
public struct DecodedSink: RunSink {
    let app: AppConfiguration
    var out: ChunkedWriter

    public init(app: AppConfiguration, write: @escaping ([UInt8]) -> Void) {
        self.app = app
        out = ChunkedWriter(write)
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        for n in notifications {
            // Written straight to bytes, members in canonical order (the decoded view needs no signature).
            var line = CanonicalJSONBytes()
            swap(&line.bytes, &out.buffer)
            line.object { o in
                o.member("at", n.instant.description)
                o.member("instant", n.instant.millisecondsSince1970)
                o.member("payload") { NotificationEncoder.describeDecoded(of: n, app: app, into: &$0) }
                o.member("recipient", n.recipient)  // absent for a notification about the app
            }
            swap(&line.bytes, &out.buffer)
            out.buffer.append(UInt8(ascii: "\n"))
            out.flushIfFull()
        }
    }

    public mutating func finish() { out.flush() }
}

/// ``RunOutput/timeline(_:)`` as a stream. The table's column widths and the notification count in its title are
/// known only at the end, so rows go to a ``Spool`` as they come and the table is written by ``finish()``. At one
/// instant, notification rows come before access rows (as in the sorted table), so one instant's rows wait in
/// memory until the clock moves on. Rows are written as bytes, cell by cell (``TimelineRows``), never as strings.
public struct TimelineSink: RunSink {
    let scenario: Scenario
    var out: ChunkedWriter
    var spool = Spool()
    var widths = RunOutput.timelineHeader.map(\.count)
    var notificationCount = 0
    var previous = LastEntitlements()
    var pendingInstant: Instant?
    var pendingNotifications = TimelineRows()
    var pendingAccess = TimelineRows()

    public init(scenario: Scenario, write: @escaping ([UInt8]) -> Void) {
        self.scenario = scenario
        out = ChunkedWriter(write)
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        var n = notifications.startIndex
        var c = changes.startIndex
        while n < notifications.endIndex || c < changes.endIndex {
            let takeNotification =
                c == changes.endIndex
                || (n < notifications.endIndex && notifications[n].instant <= changes[c].instant)
            let instant = takeNotification ? notifications[n].instant : changes[c].instant
            if instant != pendingInstant { spoolPending(nextInstant: instant) }
            if takeNotification {
                RunOutput.appendTimelineRow(notifications[n], start: scenario.start, to: &pendingNotifications)
                notificationCount += 1
                n += 1
            } else {
                RunOutput.appendTimelineRow(
                    changes[c], start: scenario.start, previous: &previous, to: &pendingAccess)
                c += 1
            }
        }
    }

    mutating func spoolPending(nextInstant: Instant?) {
        spool(pendingNotifications)
        spool(pendingAccess)
        pendingNotifications.removeAll()
        pendingAccess.removeAll()
        pendingInstant = nextInstant
    }

    mutating func spool(_ rows: TimelineRows) {
        // The spool's buffer is taken out for the rows (one access to the class's storage, not one per cell).
        var out: [UInt8] = []
        swap(&out, &spool.buffer)
        rows.bytes.withUnsafeBufferPointer { bytes in
            var cellStart = 0
            var column = 0
            for end in rows.cellEnds {
                let cell = UnsafeBufferPointer(rebasing: bytes[cellStart..<end])
                widths[column] = max(widths[column], Self.characterCount(cell))
                Spool.appendItem(cell, to: &out)
                cellStart = end
                column = column == widths.count - 1 ? 0 : column + 1
            }
        }
        swap(&out, &spool.buffer)
        if spool.buffer.count >= Spool.limit { spool.spill() }
    }

    /// Writes the whole table. Call once, after the run.
    public mutating func finish() {
        spoolPending(nextInstant: nil)
        out.append(RunOutput.timelineTitle(scenario, notifications: notificationCount))
        var row = TimelineRows()
        for cell in RunOutput.timelineHeader {
            row.append(cell)
            row.endCell()
        }
        Self.appendLine(row, widths: widths, to: &out.buffer)
        // Each cell goes from the spool's buffer straight to the output, padded to its column (no row in between).
        var reader = spool.reader()
        let last = widths.count - 1
        var column = 0
        var lineStart = out.buffer.count
        while let cell = reader.next() {
            out.buffer.append(contentsOf: cell)
            if column < last {
                Self.appendSpaces(widths[column] - Self.characterCount(cell) + 2, to: &out.buffer)
                column += 1
            } else {
                while out.buffer.count > lineStart, out.buffer.last == UInt8(ascii: " ") { out.buffer.removeLast() }
                out.buffer.append(UInt8(ascii: "\n"))
                column = 0
                out.flushIfFull()
                lineStart = out.buffer.count
            }
        }
        out.flush()
    }

    static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 256)

    static func appendSpaces(_ count: Int, to out: inout [UInt8]) {
        var left = count
        while left > 0 {
            let n = min(left, spaces.count)
            out.append(contentsOf: spaces[..<n])
            left -= n
        }
    }

    /// The cell's length in characters (the table pads by characters), without the grapheme breaking when the text
    /// is ASCII.
    static func characterCount(_ cell: some Collection<UInt8>) -> Int {
        var any: UInt8 = 0
        for byte in cell { any |= byte }
        return any < 0x80 ? cell.count : String(decoding: cell, as: UTF8.self).count
    }

    /// One table line: every cell but the last padded to its column's width and two spaces, no trailing spaces.
    static func appendLine(_ row: TimelineRows, widths: [Int], to out: inout [UInt8]) {
        let lineStart = out.count
        var cellStart = 0
        for (i, end) in row.cellEnds.enumerated() {
            let cell = row.bytes[cellStart..<end]
            out.append(contentsOf: cell)
            if i < row.cellEnds.count - 1 { appendSpaces(widths[i] - characterCount(cell) + 2, to: &out) }
            cellStart = end
        }
        while out.count > lineStart, out.last == UInt8(ascii: " ") { out.removeLast() }
        out.append(UInt8(ascii: "\n"))
    }
}

/// Timeline rows as they are written: the cells' UTF-8 bytes one after another, and where each cell ends (six
/// cells a row, ``RunOutput/timelineHeader``).
struct TimelineRows {
    var bytes: [UInt8] = []
    var cellEnds: [Int] = []

    var isEmpty: Bool { cellEnds.isEmpty }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func endCell() { cellEnds.append(bytes.count) }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        cellEnds.removeAll(keepingCapacity: true)
    }
}

/// Bytes collected and handed on in chunks.
struct ChunkedWriter {
    var buffer: [UInt8] = []
    let write: ([UInt8]) -> Void
    static let chunk = 1 << 16

    init(_ write: @escaping ([UInt8]) -> Void) {
        self.write = write
        buffer.reserveCapacity(Self.chunk + 8192)
    }

    mutating func append(_ text: String) { buffer.append(contentsOf: text.utf8) }

    mutating func flushIfFull() { if buffer.count >= Self.chunk { flush() } }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Strings written once and read back once in order, kept in an anonymous temporary file (`tmpfile(3)`, removed
/// when closed) past the first megabyte, so what a long run must keep until its end does not stay in memory.
final class Spool {
    var buffer: [UInt8] = []
    var file: UnsafeMutablePointer<FILE>?
    static let limit = 1 << 20

    deinit { if let file { fclose(file) } }

    func append(_ bytes: some Collection<UInt8>) {
        Self.appendItem(bytes, to: &buffer)
        if buffer.count >= Self.limit { spill() }
    }

    /// One item as the spool stores it: its length (4 bytes, little-endian), then its bytes.
    static func appendItem(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: bytes)
    }

    func append(_ text: String) { append(ArraySlice(text.utf8)) }

    func spill() {
        if file == nil { file = tmpfile() }
        guard let file else { return }  // no temporary file: keep it in memory
        let written = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        if written == buffer.count { buffer.removeAll(keepingCapacity: true) }
    }

    /// Reads everything back, from the start; call once, after the last ``append(_:)``.
    func reader() -> Reader {
        if let file {
            spill()
            fflush(file)
            rewind(file)
        }
        return Reader(spool: self)
    }

    struct Reader {
        let spool: Spool
        var chunk: [UInt8] = []
        var position = 0
        var fileDone: Bool
        var memoryDone = false

        init(spool: Spool) {
            self.spool = spool
            fileDone = spool.file == nil
        }

        /// Makes at least `count` bytes available after `position`; false at the end.
        mutating func fill(_ count: Int) -> Bool {
            while chunk.count - position < count {
                if position > 0 {
                    chunk.removeFirst(position)
                    position = 0
                }
                if !fileDone, let file = spool.file {
                    var more = [UInt8](repeating: 0, count: Spool.limit)
                    let read = more.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
                    if read == 0 { fileDone = true } else { chunk.append(contentsOf: more[..<read]) }
                } else if !memoryDone {
                    memoryDone = true
                    chunk.append(contentsOf: spool.buffer)
                } else {
                    return false
                }
            }
            return true
        }

        /// The next item's bytes, or nil at the end.
        mutating func next() -> ArraySlice<UInt8>? {
            guard fill(4) else { return nil }
            var length = 0
            for i in 0..<4 { length |= Int(chunk[position + i]) << (8 * i) }
            position += 4
            guard fill(length) else { return nil }
            defer { position += length }
            return chunk[position..<position + length]
        }

        mutating func nextString() -> String? { next().map { String(decoding: $0, as: UTF8.self) } }
    }
}

/// ``RunOutput/fixtureFiles(_:signer:)`` as a stream into a ``FixtureWriter/Staging`` folder: each `NNNN.json` is
/// written when its notification is sent; `manifest.json` by ``finish()``. The numbers are at least four digits
/// wide and as wide as the last one: when the count passes 9999 (99999, ...) the files so far are renamed to the
/// new width. The first write error stops the writing and is kept in ``error``.
public struct FixtureSink: RunSink {
    let scenario: Scenario
    let encoder: NotificationEncoder
    let signing: JWSSigning
    var buffers = NotificationEncoder.Buffers()
    let staging: FixtureWriter.Staging
    var count = 0
    var width = 4
    var manifest = Spool()
    var body: [UInt8] = []
    public private(set) var error: FixtureWriter.WriteError?

    public init(
        scenario: Scenario, app: AppConfiguration, signer: (any PayloadSigner)? = nil, staging: FixtureWriter.Staging
    ) {
        self.scenario = scenario
        encoder = NotificationEncoder(app: app, signer: signer)
        signing = JWSSigning(encoder.signer)
        self.staging = staging
    }

    static func name(_ number: Int, width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits + ".json"
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        for n in notifications {
            guard error == nil else { return }
            count += 1
            do throws(FixtureWriter.WriteError) {
                if String(count).count > width {
                    for number in 1..<count {
                        try staging.rename(Self.name(number, width: width), Self.name(number, width: width + 1))
                    }
                    width += 1
                }
                body.removeAll(keepingCapacity: true)
                encoder.appendPostBody(of: n, signing: signing, to: &body, buffers: &buffers)
                body.append(UInt8(ascii: "\n"))
                try staging.write(Self.name(count, width: width), body)
            } catch {
                self.error = error
                return
            }
            // "\u{0}" marks a notification about the app (no recipient): no customer name is that.
            manifest.append(n.recipient ?? "\u{0}")
            manifest.append(String(n.instant.millisecondsSince1970))
            manifest.append(n.type.rawValue)
            manifest.append(n.subtype?.rawValue ?? "")
            manifest.append(n.notificationUUID)
        }
    }

    /// Writes `manifest.json` (as ``RunOutput/fixtureFiles(_:signer:)`` does); the caller then commits the staging
    /// folder, or abandons it.
    public mutating func finish() {
        guard error == nil else { return }
        var out: [UInt8] = []
        out.append(contentsOf: "{\n  \"notifications\": ".utf8)
        if count == 0 { out.append(contentsOf: "[]".utf8) } else { out.append(UInt8(ascii: "[")) }
        var reader = manifest.reader()
        var number = 0
        while let recipient = reader.nextString(), let ms = reader.nextString(), let type = reader.nextString(),
            let subtype = reader.nextString(), let uuid = reader.nextString()
        {
            number += 1
            let instant = Instant(millisecondsSince1970: Int64(ms)!)
            var entry = JSONObjectBuilder()
            entry.set("file", Self.name(number, width: width))
            entry.set("recipient", recipient == "\u{0}" ? nil : recipient)
            entry.set("instant", instant)
            entry.set("at", instant.description)
            entry.set("notificationType", type)
            entry.set("subtype", subtype.isEmpty ? nil : subtype)
            entry.set("notificationUUID", uuid)
            if number > 1 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\n    ".utf8)
            CanonicalJSON.write(entry.value, into: &out, indent: 2, depth: 2)
        }
        if count > 0 { out.append(contentsOf: "\n  ]".utf8) }
        // The header's other members, after "notifications" in key order.
        let rest: JSONValue = .object([
            "scenario": .string(scenario.name),
            "seed": .integer(Int64(bitPattern: scenario.seed)),
            "start": .string(scenario.start.description),
            "until": .string(scenario.until.description),
        ])
        var restText: [UInt8] = []
        CanonicalJSON.write(rest, into: &restText, indent: 2, depth: 0)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: restText.dropFirst())  // without its "{"
        out.append(UInt8(ascii: "\n"))
        do throws(FixtureWriter.WriteError) { try staging.write("manifest.json", out) } catch { self.error = error }
    }
}
