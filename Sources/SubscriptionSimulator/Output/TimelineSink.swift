/// The `timeline` format: a table for people: virtual time, offset from the start, customer, notification
/// type/subtype, status and key fields, with a line wherever a customer's access changes. The one writer of the
/// format, for streamed runs and for ``RunOutput/timeline(_:)``. The table's column widths and the notification count
/// in its title are known only at the end, so rows go to a ``Spool`` as they come and the table is written by
/// ``finish()``. At one instant, notification rows come before access rows (as in the sorted table): notification
/// rows go to the spool in groups of about 64 KB as they come, and one instant's access rows wait until the clock
/// moves on, in memory up to a megabyte and past that in a spool of their own (`accessOverflow`), so an instant with
/// a hundred thousand renewals holds no more memory than any other. Rows are written as bytes, cell by cell
/// (``TimelineRows``), never as strings.
public struct TimelineSink: RunSink {
    /// What the lines above the table name (``title(_:notifications:)``).
    let title: Title
    /// The run's start: offsets are counted from it.
    let start: Instant
    var out: ChunkedWriter
    var spool: Spool
    var notificationCount = 0
    var previous = LastEntitlements()
    var pendingInstant: Instant?
    var pendingNotifications = TimelineRows()
    var pendingAccess = TimelineRows()
    /// The current instant's access rows past the first megabyte, in the order they came (nil while there are none).
    var accessOverflow: Spool?
    /// How many bytes of notification rows, and of access rows, wait in memory before they move on (tests make them
    /// small; the bytes written do not depend on them).
    var notificationGroup = 1 << 16
    var accessGroup = 1 << 20
    /// Whether ``finish()`` may format half of the spooled chunks on a second thread (same bytes either way).
    var usesSecondThread = true

    public init(scenario: Scenario, write: @escaping ([UInt8]) -> Void) {
        self.init(scenario: scenario, spoolLimit: Spool.defaultLimit, write: write)
    }

    /// `spoolLimit`: how many bytes of rows the spool keeps in memory before it writes them to its file as a chunk.
    init(scenario: Scenario, spoolLimit: Int, write: @escaping ([UInt8]) -> Void) {
        self.init(title: Title(scenario), start: scenario.start, spoolLimit: spoolLimit, write: write)
    }

    /// A table of rows rendered elsewhere (``receiveRow(_:instant:access:)``: the rows of timeline parts, merged by
    /// `simctl merge`), or of notifications and changes.
    init(title: Title, start: Instant, spoolLimit: Int = Spool.defaultLimit, write: @escaping ([UInt8]) -> Void) {
        self.title = title
        self.start = start
        out = ChunkedWriter(write)
        spool = Spool(limit: spoolLimit)
    }

    /// The scenario's name, start, seed and end as the lines above the table show them.
    struct Title: Sendable {
        var name: String
        var start: String
        var seed: String
        var until: String

        init(_ scenario: Scenario) {
            self.init(
                name: scenario.name, start: scenario.start.description, seed: String(scenario.seed),
                until: scenario.until.description)
        }

        init(name: String, start: String, seed: String, until: String) {
            self.name = name
            self.start = start
            self.seed = seed
            self.until = until
        }
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
                Self.appendRow(notifications[n], start: start, to: &pendingNotifications)
                n += 1
                notificationRowAdded()
            } else {
                Self.appendRow(changes[c], start: start, previous: &previous, to: &pendingAccess)
                c += 1
                accessRowAdded()
            }
        }
    }

    /// Takes a row rendered elsewhere: `cells`, one row's cells in ``TimelineRows``' format (checked by
    /// ``TimelineRows/isRow(_:)``), a notification's row or (`access`) an access row at `instant`. Rows come in the
    /// order of the one-job run's records, as ``receive(_:_:)``'s do.
    mutating func receiveRow(_ cells: UnsafeRawBufferPointer, instant: Instant, access: Bool) {
        if instant != pendingInstant { spoolPending(nextInstant: instant) }
        if access {
            pendingAccess.appendRow(cells)
            accessRowAdded()
        } else {
            pendingNotifications.appendRow(cells)
            notificationRowAdded()
        }
    }

    mutating func notificationRowAdded() {
        notificationCount += 1
        // Every access row of this instant comes after its notification rows: these may go on now.
        if pendingNotifications.openCell >= notificationGroup { spoolNotifications() }
    }

    mutating func accessRowAdded() {
        if pendingAccess.openCell >= accessGroup {
            let overflow = accessOverflow ?? Spool()
            overflow.append(items: pendingAccess.spooledBytes, count: pendingAccess.cells)
            pendingAccess.removeAll()
            accessOverflow = overflow
        }
    }

    mutating func spoolNotifications() {
        spool.append(items: pendingNotifications.spooledBytes, count: pendingNotifications.cells)
        pendingNotifications.removeAll()
    }

    mutating func spoolPending(nextInstant: Instant?) {
        if !pendingNotifications.isEmpty { spoolNotifications() }
        if let overflow = accessOverflow {
            let chunks = overflow.chunks()
            var input: [UInt8] = []
            for index in 0..<chunks.count {
                chunks.read(index, into: &input)
                spool.append(items: input[...], count: chunks.items[index])
            }
            accessOverflow = nil
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
        var widths = Self.header.map(\.count)
        for column in widths.indices {
            widths[column] = max(
                widths[column], pendingNotifications.widths[column], pendingAccess.widths[column])
        }
        let table = TimelineTable(widths: widths)
        out.append(Self.title(title, notifications: notificationCount))
        var header = TimelineRows()
        for cell in Self.header {
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
                if index % 2 == 1 {
                    while let piece = helper.formatted.take(), !piece.isEmpty { out.pass(piece) }
                } else {
                    table.lines(of: chunks, index, input: &input) { out.pass($0) }
                }
            }
        } else {
            var input: [UInt8] = []
            for index in 0..<chunks.count { table.lines(of: chunks, index, input: &input) { out.pass($0) } }
        }
    }

}

/// Timeline rows as they are written, in the spool's format (``Spool``): for each cell, its byte count (4 bytes,
/// little-endian; the top bit set when the cell is not all ASCII) and its UTF-8 bytes, six cells a row
/// (``TimelineSink/header``). The cells of a row are appended to ``bytes``, each closed by ``endCell()``.
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
    var widths = [Int](repeating: 0, count: TimelineSink.header.count)

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

    /// The number of cells in a row.
    static var cellsPerRow: Int { TimelineSink.header.count }

    /// Whether `cells` is exactly one row in this format: ``cellsPerRow`` cells, each a header and as many bytes as
    /// it says, nothing after the last (a timeline part's record, read from a file: ``PartFile``).
    static func isRow(_ cells: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        for _ in 0..<cellsPerRow {
            guard cells.count - offset >= 4 else { return false }
            let length = cellLength(in: cells, at: offset)
            guard length <= cells.count - offset - 4 else { return false }
            offset += 4 + length
        }
        return offset == cells.count
    }

    /// The byte count of the cell whose header is at `offset` of `cells` (4 bytes there).
    @inline(__always)
    static func cellLength(in cells: UnsafeRawBufferPointer, at offset: Int) -> Int {
        Int(UInt32(littleEndian: cells.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) & ~notASCII)
    }

    /// Appends a whole row given in this format (``isRow(_:)`` holds): each cell's bytes, closed by ``endCell()``,
    /// which sets its header and the column's width again from the bytes themselves.
    mutating func appendRow(_ cells: UnsafeRawBufferPointer) {
        var offset = 0
        for _ in 0..<Self.cellsPerRow {
            let length = Self.cellLength(in: cells, at: offset)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: cells[offset + 4..<offset + 4 + length]))
            endCell()
            offset += 4 + length
        }
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

    /// The lines of chunk `index` of `chunks`, read into `input` (reused from chunk to chunk), handed to `body` in
    /// pieces, each as it is made (``pieces(_:pieceBytes:_:)``).
    func lines(of chunks: Spool.Chunks, _ index: Int, input: inout [UInt8], _ body: ([UInt8]) -> Void) {
        chunks.read(index, into: &input)
        input.withUnsafeBytes { pieces($0, body) }
    }

    /// The lines of the whole rows in `spooled`, handed to `body` in pieces of at most about `pieceBytes` each (a
    /// single row may take more; never empty): every row is padded to the columns' widths, so one long cell among
    /// many short rows would otherwise ask for the rows times its width at once.
    func pieces(_ spooled: UnsafeRawBufferPointer, pieceBytes: Int = 1 << 22, _ body: ([UInt8]) -> Void) {
        let rowPadding = widths.dropLast().reduce(0) { $0 + $1 + 2 } + 1
        func format(_ range: Range<Int>, bound: Int) {
            let rows = UnsafeRawBufferPointer(rebasing: spooled[range])
            body(
                [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
                    count = widths.withUnsafeBufferPointer { Self.write(rows, widths: $0, into: buffer.baseAddress!) }
                })
        }
        var start = 0
        var offset = 0
        var bound = 0
        while offset < spooled.count {
            var rowEnd = offset
            for _ in widths.indices where rowEnd < spooled.count {
                rowEnd += 4 + TimelineRows.cellLength(in: spooled, at: rowEnd)
            }
            let rowBound = rowEnd - offset + rowPadding
            if bound > 0 && bound + rowBound > pieceBytes {
                format(start..<offset, bound: bound)
                start = offset
                bound = 0
            }
            bound += rowBound
            offset = rowEnd
        }
        if bound > 0 { format(start..<offset, bound: bound) }
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
            let length = Int(header & ~TimelineRows.notASCII)  // TimelineRows.cellLength, in the tight loop
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
/// take one by one (``formatted``): each chunk's pieces, then an empty array; at most two wait to be taken.
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
            table.lines(of: chunks, index, input: &input) { formatted.put($0) }
            formatted.put([])
        }
        formatted.close()
    }
}

extension TimelineSink {
    /// The table's column titles.
    static let header = ["TIME", "OFFSET", "CUSTOMER", "NOTIFICATION", "STATUS", "DETAILS"]

    /// The lines above the table.
    static func title(_ title: Title, notifications: Int) -> String {
        "\(title.name)\n"
            + "start \(title.start) · seed \(title.seed) · until \(title.until) · \(notifications) notifications\n\n"
    }

    /// The lines below the table of a run that stopped at `location` (`FILE:LINE:COLUMN`) at an action the rules
    /// refuse.
    static func stoppedLine(_ location: String) -> String {
        "\nstopped at \(location) (see standard error); expectations not checked\n"
    }

    /// The lines below the table of a run that went to its end: `count` expectations judged, `failed` of them
    /// failed (nil: not judged, in a merge of parts).
    static func expectationsLine(_ count: Int, failed: Int?) -> String {
        guard let failed else {
            return "\nexpectations: \(count) not checked (merged parts; run the scenario as one job to check them)\n"
        }
        return failed == 0
            ? "\nexpectations: \(count) checked, all hold\n"
            : "\nexpectations: \(count) checked, \(failed) failed (see standard error)\n"
    }

    /// A notification's row: time, offset, recipient (`(app)` for a notification about the app), type and subtype,
    /// status code (`-` without one), and the details: the transaction, family sharing, expiry, grace period,
    /// revocation, auto-renew off.
    static func appendRow(_ n: SentNotification, start: Instant, to rows: inout TimelineRows) {
        CalendarMath.appendISO8601(n.instant, to: &rows.bytes)
        rows.endCell()
        appendOffset(from: start, to: n.instant, to: &rows.bytes)
        rows.endCell()
        rows.append(n.recipient ?? "(app)")
        rows.endCell()
        rows.append(n.type.rawValue)
        if let subtype = n.subtype {
            rows.append(" ")
            rows.append(subtype.rawValue)
        }
        rows.endCell()
        if let status = n.status { appendInteger(Int64(status.statusCode), to: &rows.bytes) } else { rows.append("-") }
        rows.endCell()
        var first = true
        func detail(_ text: String) {
            if !first { rows.append(", ") }
            first = false
            rows.append(text)
        }
        // Fields are read through `?.`: binding the transaction or renewal info would copy the whole record.
        if let transactionId = n.transaction?.transactionId {
            detail("tx ")
            rows.append(transactionId)
            if n.transaction?.ownership == .familyShared { detail("family shared") }
            if let expires = n.transaction?.expiresDate {
                detail("expires ")
                CalendarMath.appendISO8601(expires, to: &rows.bytes)
            }
        }
        if let grace = n.renewal?.gracePeriodExpiresDate, n.status == .gracePeriod {
            detail("grace until ")
            CalendarMath.appendISO8601(grace, to: &rows.bytes)
        }
        if let revocation = n.transaction?.revocation {
            detail("revoked (reason ")
            appendInteger(Int64(revocation.reason), to: &rows.bytes)
            rows.append(")")
        }
        if n.renewal?.autoRenewOn == false, n.type != .refund, n.type != .revoke {
            detail("auto-renew off")
        }
        rows.endCell()
    }

    /// An access row: what the customer gained (`+product`) and lost (`-product`) since their previous change,
    /// each sorted (`previous` is updated).
    static func appendRow(
        _ change: EntitlementChange, start: Instant, previous: inout LastEntitlements, to rows: inout TimelineRows
    ) {
        let before = previous.update(change.customer, to: change.products)
        let after = change.products
        let gained: [String]
        let lost: [String]
        if before.count <= 1 && after.count <= 1 {
            // The usual case, without sets: at most one product before and after.
            let same = before.first == after.first
            gained = same ? [] : after
            lost = same ? [] : before
        } else {
            let beforeSet = Set(before)
            let afterSet = Set(after)
            gained = afterSet.subtracting(beforeSet).sorted()
            lost = beforeSet.subtracting(afterSet).sorted()
        }
        CalendarMath.appendISO8601(change.instant, to: &rows.bytes)
        rows.endCell()
        appendOffset(from: start, to: change.instant, to: &rows.bytes)
        rows.endCell()
        rows.append(change.customer)
        rows.endCell()
        rows.append("access")
        rows.endCell()
        rows.endCell()
        var first = true
        for (sign, products) in [("+", gained), ("-", lost)] {
            for product in products {
                if !first { rows.append(" ") }
                first = false
                rows.append(sign)
                rows.append(product)
            }
        }
        rows.endCell()
    }

    /// ``RunOutput/offset(from:to:)`` appended as bytes.
    static func appendOffset(from start: Instant, to instant: Instant, to out: inout [UInt8]) {
        let difference = start.milliseconds(to: instant)
        if difference == 0 { return out.append(UInt8(ascii: "0")) }
        out.append(difference < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        var ms = difference.magnitude
        var first = true
        func unit(_ size: UInt64, _ letter: UInt8, _ second: UInt8? = nil) {
            guard ms >= size else { return }
            if !first { out.append(UInt8(ascii: " ")) }
            first = false
            CalendarMath.appendDigits(Int(ms / size), width: 1, to: &out)
            out.append(letter)
            if let second { out.append(second) }
            ms %= size
        }
        unit(86_400_000, UInt8(ascii: "d"))
        unit(3_600_000, UInt8(ascii: "h"))
        unit(60_000, UInt8(ascii: "m"))
        unit(1000, UInt8(ascii: "s"))
        unit(1, UInt8(ascii: "m"), UInt8(ascii: "s"))
    }

    /// A signed decimal integer appended as bytes.
    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        CalendarMath.appendDigits(Int(truncatingIfNeeded: value), width: 1, to: &out)
    }
}

/// Renders timeline rows as cells (``TimelineRows``' format) where the table is not laid out: on the threads of a run
/// in parts, and into timeline parts (``PartFile``). The rows are ``TimelineSink``'s own (``TimelineSink/appendRow(_:start:to:)``);
/// access rows need what each customer was entitled to before, which one renderer knows for the customers it sees (a
/// customer's changes are all in one part).
struct TimelineRowRenderer {
    let start: Instant
    var rows = TimelineRows()
    var previous = LastEntitlements()

    init(start: Instant) { self.start = start }

    /// Appends the cells of `notification`'s row to `bytes`.
    mutating func append(_ notification: SentNotification, to bytes: inout [UInt8]) {
        rows.removeAll()
        TimelineSink.appendRow(notification, start: start, to: &rows)
        bytes.append(contentsOf: rows.spooledBytes)
    }

    /// Appends the cells of `change`'s access row to `bytes`.
    mutating func append(_ change: EntitlementChange, to bytes: inout [UInt8]) {
        rows.removeAll()
        TimelineSink.appendRow(change, start: start, previous: &previous, to: &rows)
        bytes.append(contentsOf: rows.spooledBytes)
    }
}

/// What each customer was last entitled to, for the timeline's access rows. Each distinct list of products is kept
/// once and a customer maps to its number: a run's customers share a handful of lists, so this costs a few bytes per
/// customer rather than an array each.
struct LastEntitlements {
    var lists: [[String]] = [[]]
    var numbers: [[String]: Int32] = [[]: 0]
    var byCustomer: [String: Int32] = [:]

    /// Records `products` as the customer's and returns what they were before (nothing, the first time).
    mutating func update(_ customer: String, to products: [String]) -> [String] {
        let number: Int32
        if let known = numbers[products] {
            number = known
        } else {
            number = Int32(lists.count)
            lists.append(products)
            numbers[products] = number
        }
        return lists[Int(byCustomer.updateValue(number, forKey: customer) ?? 0)]
    }
}
