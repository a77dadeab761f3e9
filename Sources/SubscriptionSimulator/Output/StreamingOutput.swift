import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``RunOutput``'s formats written while the run goes (``ScenarioRunner/stream(_:retention:into:)``), byte for byte
/// what ``RunOutput`` prints for the finished run. Each sink hands its bytes to `write` in chunks of about 64 KB (the
/// timeline's table: one chunk per megabyte of spooled rows) and keeps nothing that grows with the run, except what the format itself needs at its end, kept on disk (a
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
    var spool: Spool
    var notificationCount = 0
    var previous = LastEntitlements()
    var pendingInstant: Instant?
    var pendingNotifications = TimelineRows()
    var pendingAccess = TimelineRows()
    /// Whether ``finish()`` may format half of the spooled chunks on a second thread (same bytes either way).
    var usesSecondThread = true

    public init(scenario: Scenario, write: @escaping ([UInt8]) -> Void) {
        self.init(scenario: scenario, spoolLimit: Spool.defaultLimit, write: write)
    }

    /// `spoolLimit`: how many bytes of rows the spool keeps in memory before it writes them to its file as a chunk.
    init(scenario: Scenario, spoolLimit: Int, write: @escaping ([UInt8]) -> Void) {
        self.scenario = scenario
        out = ChunkedWriter(write)
        spool = Spool(limit: spoolLimit)
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
        if !pendingNotifications.isEmpty {
            spool.append(items: pendingNotifications.spooledBytes, count: pendingNotifications.cells)
            pendingNotifications.removeAll()
        }
        if !pendingAccess.isEmpty {
            spool.append(items: pendingAccess.spooledBytes, count: pendingAccess.cells)
            pendingAccess.removeAll()
        }
        pendingInstant = nextInstant
    }

    /// Writes the whole table. Call once, after the run. The spool's chunks are formatted in order, each into one
    /// write; with more than one chunk, a second thread formats every other one while this thread formats the rest
    /// and writes each chunk's lines in turn.
    public mutating func finish() {
        spoolPending(nextInstant: nil)
        var widths = RunOutput.timelineHeader.map(\.count)
        for column in widths.indices {
            widths[column] = max(
                widths[column], pendingNotifications.widths[column], pendingAccess.widths[column])
        }
        let table = TimelineTable(widths: widths)
        out.append(RunOutput.timelineTitle(scenario, notifications: notificationCount))
        var header = TimelineRows()
        for cell in RunOutput.timelineHeader {
            header.append(cell)
            header.endCell()
        }
        header.spooledBytes.withUnsafeBytes { table.appendLines($0, cells: header.cells, to: &out.buffer) }
        out.flush()
        let chunks = spool.chunks()
        if usesSecondThread && chunks.count > 1 {
            let helper = TimelineHelper(chunks: chunks, table: table)
            startThread(helper)
            var input: [UInt8] = []
            for index in 0..<chunks.count {
                out.pass(index % 2 == 1 ? helper.formatted.take()! : table.lines(of: chunks, index, input: &input))
            }
        } else {
            var input: [UInt8] = []
            for index in 0..<chunks.count { out.pass(table.lines(of: chunks, index, input: &input)) }
        }
    }

}

/// Timeline rows as they are written, in the spool's format (``Spool``): for each cell, its byte count (4 bytes,
/// little-endian; the top bit set when the cell is not all ASCII) and its UTF-8 bytes, six cells a row
/// (``RunOutput/timelineHeader``). The cells of a row are appended to ``bytes``, each closed by ``endCell()``.
/// ``widths`` keeps each column's widest cell in characters, over every row since the start (``removeAll()``
/// keeps it).
struct TimelineRows {
    /// The closed cells, then the open cell: 4 bytes for its header (filled in by ``endCell()``) and its bytes so
    /// far.
    var bytes: [UInt8] = [0, 0, 0, 0]
    /// Where the open cell's header is: the closed cells' bytes end there.
    var openCell = 0
    var cells = 0
    var column = 0
    var widths = [Int](repeating: 0, count: RunOutput.timelineHeader.count)

    /// Set in a cell's header when its text is not all ASCII.
    static let notASCII: UInt32 = 1 << 31

    var isEmpty: Bool { cells == 0 }

    /// The closed cells, as the spool stores them.
    var spooledBytes: ArraySlice<UInt8> { bytes[..<openCell] }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func endCell() {
        let start = openCell + 4
        let end = bytes.count
        var header = UInt32(end - start)
        bytes.withUnsafeMutableBufferPointer { buffer in
            let cell = UnsafeBufferPointer(rebasing: buffer[start..<end])
            var any: UInt8 = 0
            for byte in cell { any |= byte }
            var characters = cell.count
            if any >= 0x80 {
                header |= Self.notASCII
                characters = String(decoding: cell, as: UTF8.self).count
            }
            widths[column] = max(widths[column], characters)
            UnsafeMutableRawPointer(buffer.baseAddress! + openCell).storeBytes(
                of: header.littleEndian, as: UInt32.self)
        }
        column = column == widths.count - 1 ? 0 : column + 1
        cells += 1
        openCell = end
        reserveHeader()
    }

    /// Room for the next cell's header (four single appends: cheaper than appending a sequence).
    mutating func reserveHeader() {
        bytes.append(0)
        bytes.append(0)
        bytes.append(0)
        bytes.append(0)
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        reserveHeader()
        openCell = 0
        cells = 0
        column = 0
    }
}

/// The timeline's lines from spooled cells (``TimelineRows``' format): every cell but a row's last padded with
/// spaces to its column's width (in characters) and two more, the line's trailing spaces removed, a newline.
struct TimelineTable: Sendable {
    let widths: [Int]

    /// The lines of chunk `index` of `chunks`, read into `input` (reused from chunk to chunk).
    func lines(of chunks: Spool.Chunks, _ index: Int, input: inout [UInt8]) -> [UInt8] {
        chunks.read(index, into: &input)
        let cells = chunks.items[index]
        return input.withUnsafeBytes { spooled in
            [UInt8](unsafeUninitializedCapacity: bound(spooled.count, cells: cells)) { buffer, count in
                count = widths.withUnsafeBufferPointer { Self.write(spooled, widths: $0, into: buffer.baseAddress!) }
            }
        }
    }

    /// Appends the lines of `cells` cells (whole rows) read from `spooled`.
    func appendLines(_ spooled: UnsafeRawBufferPointer, cells: Int, to out: inout [UInt8]) {
        let bound = bound(spooled.count, cells: cells)
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: bound))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            widths.withUnsafeBufferPointer { Self.write(spooled, widths: $0, into: buffer.baseAddress! + start) }
        }
        out.removeLast(bound - written)
    }

    /// At most how many bytes the lines of `cells` cells spooled in `count` bytes take: each cell's bytes, and for
    /// each row its padding (a cell's characters are at most its bytes) and its newline.
    func bound(_ count: Int, cells: Int) -> Int {
        let rows = (cells + widths.count - 1) / widths.count
        let padding = widths.dropLast().reduce(0) { $0 + $1 + 2 }
        return count + rows * (padding + 1)
    }

    /// The tight loop: writes the lines to `output` (room for ``bound(_:cells:)`` bytes) and returns how many bytes
    /// it wrote. Cells are copied, padding spaces set in one go; a line's trailing spaces are taken back before its
    /// newline.
    static func write(
        _ spooled: UnsafeRawBufferPointer, widths: UnsafeBufferPointer<Int>, into output: UnsafeMutablePointer<UInt8>
    ) -> Int {
        guard var cell = spooled.baseAddress, !spooled.isEmpty else { return 0 }
        let end = cell + spooled.count
        let last = widths.count - 1
        let space = UInt8(ascii: " ")
        var p = output
        var lineStart = p
        var column = 0
        while cell < end {
            let header = UInt32(littleEndian: cell.loadUnaligned(as: UInt32.self))
            let length = Int(header & ~TimelineRows.notASCII)
            let text = (cell + 4).assumingMemoryBound(to: UInt8.self)
            p.update(from: text, count: length)
            p += length
            cell += 4 + length
            if column < last {
                var characters = length
                if header & TimelineRows.notASCII != 0 {
                    characters = String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self).count
                }
                let spaces = widths[column] - characters + 2
                p.update(repeating: space, count: spaces)
                p += spaces
                column += 1
                if cell < end { continue }
            }
            // The row's last cell (or the last cell there is).
            while p > lineStart && (p - 1).pointee == space { p -= 1 }
            p.pointee = UInt8(ascii: "\n")
            p += 1
            lineStart = p
            column = 0
        }
        return p - output
    }
}

/// Formats the odd-numbered chunks of a spool on a thread of its own, in order, for ``TimelineSink/finish()`` to
/// take one by one (``formatted``); at most two wait to be taken.
final class TimelineHelper: BackgroundJob {
    let chunks: Spool.Chunks
    let table: TimelineTable
    let formatted = Handoff<[UInt8]>(capacity: 2)

    init(chunks: Spool.Chunks, table: TimelineTable) {
        self.chunks = chunks
        self.table = table
    }

    func work() {
        var input: [UInt8] = []
        for index in stride(from: 1, to: chunks.count, by: 2) {
            formatted.put(table.lines(of: chunks, index, input: &input))
        }
        formatted.close()
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

    /// Writes what the buffer holds, then `bytes` in one piece.
    mutating func pass(_ bytes: [UInt8]) {
        flush()
        if !bytes.isEmpty { write(bytes) }
    }
}

/// Items (byte strings) written once and read back once in order, kept in an anonymous temporary file (`tmpfile(3)`,
/// removed when closed) past the first `limit` bytes, so what a long run must keep until its end does not stay in
/// memory. Each item is stored as its length (4 bytes, little-endian) and its bytes. The file holds chunks of whole
/// items, one per ``spill()``; their sizes and item counts are kept, so each chunk can be read on its own
/// (``chunks()``), by any thread. When the file cannot be created or written, the rest stays in memory.
final class Spool {
    var buffer: [UInt8] = []
    var bufferItems = 0
    var file: UnsafeMutablePointer<FILE>?
    var fileFailed = false
    /// Each chunk in the file: its byte count and how many items it holds.
    var fileChunks: [(bytes: Int, items: Int)] = []
    let limit: Int
    static let defaultLimit = 1 << 20

    init(limit: Int = Spool.defaultLimit) { self.limit = limit }

    deinit { if let file { fclose(file) } }

    func append(_ bytes: some Collection<UInt8>) {
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { buffer.append(contentsOf: $0) }
        buffer.append(contentsOf: bytes)
        bufferItems += 1
        if buffer.count >= limit { spill() }
    }

    func append(_ text: String) { append(ArraySlice(text.utf8)) }

    /// `count` items already in the spool's format (``TimelineRows``).
    func append(items bytes: ArraySlice<UInt8>, count: Int) {
        buffer.append(contentsOf: bytes)
        bufferItems += count
        if buffer.count >= limit { spill() }
    }

    /// Writes the buffer to the file as one chunk.
    func spill() {
        guard !buffer.isEmpty, !fileFailed else { return }
        if file == nil { file = tmpfile() }
        guard let file else {
            fileFailed = true
            return
        }
        let descriptor = fileno(file)
        let complete = buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if !(written < 0 && errno == EINTR) {
                    return false
                }
            }
            return true
        }
        // A chunk written in part is never read: reads go by the chunks' sizes.
        guard complete else {
            fileFailed = true
            return
        }
        fileChunks.append((buffer.count, bufferItems))
        buffer.removeAll(keepingCapacity: true)
        bufferItems = 0
    }

    /// The chunks to read back: the file's, then what is left in memory. Call after the last ``append(_:)``.
    func chunks() -> Chunks {
        var offsets: [Int] = []
        var sizes: [Int] = []
        var items: [Int] = []
        var offset = 0
        for chunk in fileChunks {
            offsets.append(offset)
            sizes.append(chunk.bytes)
            items.append(chunk.items)
            offset += chunk.bytes
        }
        items.append(bufferItems)
        return Chunks(
            descriptor: file.map { fileno($0) } ?? -1, offsets: offsets, sizes: sizes, items: items, memory: buffer)
    }

    /// A spool's chunks, to read back in any order from any thread while the spool lives (``read(_:into:)``).
    struct Chunks: Sendable {
        let descriptor: Int32
        let offsets: [Int]
        let sizes: [Int]
        /// How many items each chunk holds.
        let items: [Int]
        let memory: [UInt8]

        var count: Int { items.count }

        /// Puts chunk `index`'s bytes in `bytes` (empty when the file cannot be read).
        func read(_ index: Int, into bytes: inout [UInt8]) {
            guard index < sizes.count else { return bytes = memory }
            let size = sizes[index]
            if bytes.count < size { bytes.append(contentsOf: repeatElement(0, count: size - bytes.count)) }
            let complete = bytes.withUnsafeMutableBytes { buffer in
                var done = 0
                while done < size {
                    let read = pread(descriptor, buffer.baseAddress! + done, size - done, off_t(offsets[index] + done))
                    if read > 0 {
                        done += read
                    } else if !(read < 0 && errno == EINTR) {
                        return false
                    }
                }
                return true
            }
            bytes.removeLast(bytes.count - (complete ? size : 0))
        }
    }

    /// Reads the items back, from the start; call once, after the last ``append(_:)``.
    func reader() -> Reader { Reader(chunks: chunks()) }

    struct Reader {
        let chunks: Chunks
        var nextChunk = 0
        var chunk: [UInt8] = []
        var position = 0

        init(chunks: Chunks) { self.chunks = chunks }

        /// The next item's bytes, or nil at the end.
        mutating func next() -> ArraySlice<UInt8>? {
            while position + 4 > chunk.count {
                guard nextChunk < chunks.count else { return nil }
                chunks.read(nextChunk, into: &chunk)
                nextChunk += 1
                position = 0
            }
            var length = 0
            for i in 0..<4 { length |= Int(chunk[position + i]) << (8 * i) }
            position += 4
            guard position + length <= chunk.count else { return nil }
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
