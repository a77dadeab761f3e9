import Testing

@testable import SubscriptionSimulator

/// The timeline's table from spooled cells (``TimelineRows``, ``TimelineTable``, ``Spool``), against lines padded
/// with strings, and ``TimelineSink`` writing the same bytes whether its spool spills or not, on one thread or two.
@Suite struct TimelineTableTests {
    /// Each line as the table is meant to be: every cell but the last padded by characters to its column's width
    /// and two spaces, trailing spaces removed.
    static func expectedLines(_ rows: [[String]]) -> String {
        var widths = TimelineSink.header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var text = ""
        for row in rows {
            var line = ""
            for (i, cell) in row.enumerated() {
                line += cell
                if i < row.count - 1 { line += String(repeating: " ", count: widths[i] - cell.count + 2) }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        return text
    }

    static func spooled(_ rows: [[String]]) -> TimelineRows {
        var spooled = TimelineRows()
        for row in rows {
            for cell in row {
                spooled.append(cell)
                spooled.endCell()
            }
        }
        return spooled
    }

    static func table(_ rows: TimelineRows) -> TimelineTable {
        TimelineTable(widths: zip(TimelineSink.header, rows.widths).map { max($0.0.count, $0.1) })
    }

    static let rows: [[String]] = [
        ["2026-01-01T00:00:00Z", "0", "c1", "SUBSCRIBED INITIAL_BUY", "1", "tx 1"],
        ["2026-01-01T00:00:00Z", "0", "café", "access", "", "+com.example.é"],
        ["2026-01-02T00:00:00Z", "+1d", "e\u{301}e\u{301}", "DID_RENEW", "-", ""],
        ["2026-01-02T00:00:00Z", "+1d", "👨‍👩‍👧 family", "", "", ""],
        ["2026-01-03T00:00:00Z", "+2d", "a customer with a long name", "EXPIRED", "1", "ends in spaces  "],
        ["", "", "", "", "", ""],
        ["2026-01-04T00:00:00Z", "+3d", "名前", "REFUND", "1", "revoked (reason 1)"],
    ]

    @Test func cellsArePaddedByCharactersAndLinesTrimmed() {
        let spooled = Self.spooled(Self.rows)
        #expect(spooled.cells == Self.rows.count * 6)
        var out: [UInt8] = []
        spooled.spooledBytes.withUnsafeBytes {
            Self.table(spooled).appendLines($0, cells: spooled.cells, to: &out)
        }
        #expect(String(decoding: out, as: UTF8.self) == Self.expectedLines(Self.rows))
    }

    @Test func nonASCIICellsAreMarkedAndCountedInCharacters() {
        var spooled = TimelineRows()
        spooled.append("e\u{301}")
        spooled.endCell()
        spooled.append("ab")
        spooled.endCell()
        #expect(spooled.widths[0] == 1)
        #expect(spooled.widths[1] == 2)
        let bytes = Array(spooled.spooledBytes)
        #expect(bytes[0..<4] == [3, 0, 0, 0x80])  // three bytes, not ASCII
        #expect(bytes[7..<11] == [2, 0, 0, 0])
    }

    /// Rows read back from their cells (a timeline part's records, ``TimelineSink/receiveRow(_:instant:access:)``)
    /// make the same cells and widths as rows appended cell by cell; anything but exactly one row is not a row.
    @Test func rowsAppendedWholeAreTheRowsAppendedByCell() {
        let expected = Self.spooled(Self.rows)
        var whole = TimelineRows()
        for row in Self.rows {
            let one = Self.spooled([row])
            one.spooledBytes.withUnsafeBytes { cells in
                #expect(TimelineRows.isRow(cells))
                whole.appendRow(cells)
            }
        }
        #expect(whole.spooledBytes == expected.spooledBytes)
        #expect(whole.widths == expected.widths && whole.cells == expected.cells)
        let row = Array(Self.spooled([Self.rows[1]]).spooledBytes)
        let twoRows = Array(Self.spooled(Array(Self.rows[0...1])).spooledBytes)
        var longer = row
        longer[0] += 1
        var shorter = row
        shorter[0] -= 1
        for other in [[], Array(row.dropLast()), row + [0], Array(row[..<(row.count - 4)]), twoRows, longer, shorter] {
            other.withUnsafeBytes { #expect(!TimelineRows.isRow($0), "\(other.count) bytes") }
        }
        // A length past the bytes there are, in the top bits too (not only the not-ASCII flag's).
        var huge = row
        huge[2] = 0xFF
        huge.withUnsafeBytes { #expect(!TimelineRows.isRow($0)) }
    }

    /// One long cell widens its column for every row: the lines come in pieces of bounded size (a piece of one
    /// row may be larger), never all of a chunk's rows at that width at once, and the pieces joined are the table.
    @Test func aLongCellAmongShortRowsIsFormattedInBoundedPieces() {
        var rows = (0..<2000).map { ["2026-01-01T00:00:00Z", "0", "c\($0)", "DID_RENEW", "1", "tx \($0)"] }
        rows[1000][2] = String(repeating: "x", count: 20_000)
        let spooled = Self.spooled(rows)
        let table = Self.table(spooled)
        var pieces: [[UInt8]] = []
        spooled.spooledBytes.withUnsafeBytes { table.pieces($0, pieceBytes: 1 << 16) { pieces.append($0) } }
        #expect(pieces.count > 100)
        let rowBytes = 20_000 + 100 + 4 * 2
        #expect(pieces.allSatisfy { $0.count <= (1 << 16) + rowBytes }, "\(pieces.map(\.count).max() ?? 0)")
        #expect(String(decoding: Array(pieces.joined()), as: UTF8.self) == Self.expectedLines(rows))
    }

    @Test func aSpoolThatSpillsReadsBackEveryItemInOrder() {
        let spool = Spool(limit: 16)
        let items = (0..<200).map { "item \($0) " + String(repeating: "é", count: $0 % 7) }
        for item in items { spool.append(item) }
        let chunks = spool.chunks()
        #expect(chunks.count > 10)
        #expect(chunks.items.reduce(0, +) == items.count)
        var reader = spool.reader()
        var read: [String] = []
        while let item = reader.nextString() { read.append(item) }
        #expect(read == items)
    }

    @Test func rowsSpooledInManyChunksMakeTheSameLines() {
        let rows = (0..<50).flatMap { _ in Self.rows }
        let spool = Spool(limit: 200)
        var all = TimelineRows()
        for row in rows {
            let one = Self.spooled([row])
            spool.append(items: one.spooledBytes, count: one.cells)
            all.append(items: one)
        }
        let chunks = spool.chunks()
        #expect(chunks.count > 10)
        let table = Self.table(all)
        var out: [UInt8] = []
        var input: [UInt8] = []
        for index in 0..<chunks.count { table.lines(of: chunks, index, input: &input) { out += $0 } }
        #expect(String(decoding: out, as: UTF8.self) == Self.expectedLines(rows))
    }

    /// The sink's table with a spool of `limit` bytes, on one thread or two.
    static func timeline(_ scenario: Scenario, run: ScenarioRun, limit: Int, twoThreads: Bool) -> String {
        let bytes = StreamingRunTests.Bytes()
        var sink = TimelineSink(scenario: scenario, spoolLimit: limit, write: bytes.write)
        sink.usesSecondThread = twoThreads
        sink.receive(run.store.notifications[...], run.store.entitlementChanges[...])
        sink.finish()
        return bytes.text
    }

    @Test(arguments: [(20, 1 << 10), (20, 1 << 20), (200, 1 << 12)])
    func spilledAndTwoThreadTablesAreTheSame(customers: Int, limit: Int) throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: customers)
        let run = try ScenarioRunner.run(scenario)
        let expected = RunOutput.timeline(run)
        #expect(expected.contains("access"))
        for twoThreads in [false, true] {
            #expect(Self.timeline(scenario, run: run, limit: limit, twoThreads: twoThreads) == expected)
        }
    }
}

extension TimelineRows {
    /// Appends another's closed cells (whole rows) and widths.
    mutating func append(items other: TimelineRows) {
        bytes.removeLast(4)
        bytes += other.spooledBytes
        bytes += [0, 0, 0, 0]
        openCell += other.openCell
        cells += other.cells
        for i in widths.indices { widths[i] = max(widths[i], other.widths[i]) }
    }
}
