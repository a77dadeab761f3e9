#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file's text as lines, the form the YAML reader reads, one byte per column (a column counts Unicode scalars).
///
/// Stored compactly and read without copying: the UTF-8 bytes once in a buffer of its own, where each line starts
/// and ends, and for each line that holds non-ASCII text (where a scalar's column is not its byte offset) its
/// decoded scalars and, after the file's bytes, one stand-in byte per scalar: the scalar itself when it is ASCII,
/// 0x80 otherwise. So every line reads as ``line(_:)``, `count` bytes, one per column, in which every ASCII
/// character the reader looks for is itself and no other scalar looks like one; ``text(_:_:)`` and
/// ``scalar(_:_:)`` give the real text. A 10 MB scenario takes about 14 MB here.
///
/// Lines end at LF; a CR just before an LF (or at the end of the file) is not part of the line.
///
/// A class, so the buffer is freed once, when the last reader lets go of it; the ``Line`` views it hands out point
/// into it and must not outlive it. Nothing in it changes after `init`, so threads may read one at once (a
/// ``DeferredList``'s chunks are read that way, each through a window of its own, ``init(window:rows:)``).
final class SourceLines: @unchecked Sendable {
    /// The file's bytes, then the stand-ins of the lines holding non-ASCII text.
    private let base: UnsafeMutablePointer<UInt8>
    /// How many bytes the file has: a line that starts at or past this offset reads its stand-ins.
    private let fileByteCount: Int
    /// Offset in `base` of each line's first byte.
    private let starts: [Int]
    /// Offset in `base` just past each line's last byte (for a file's line, its CR or LF excluded).
    private let ends: [Int]
    /// The lines holding a byte of 0x80 or more, decoded, by line index.
    private let wide: [Int: [Unicode.Scalar]]
    /// Whether any line holds a CR (one that does not end the line).
    let hasCarriageReturn: Bool
    /// How many lines a reader sees: the file's, or a window's end (``init(window:rows:)``).
    let count: Int
    /// A window's file, which owns the buffer (nil: this is the file's own).
    private let owner: SourceLines?

    init(_ text: String) {
        var text = text
        var starts: [Int] = []
        var ends: [Int] = []
        var wide: [Int: [Unicode.Scalar]] = [:]
        var wideScalarCount = 0
        var hasCarriageReturn = false
        let fileByteCount = text.utf8.count
        // At least one byte, so an empty file still has a buffer of its own.
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, fileByteCount))
        text.withUTF8 { buffer in
            guard let source = buffer.baseAddress else { return }
            base.initialize(from: source, count: buffer.count)
        }
        let count = fileByteCount
        var lineStart = 0
        while true {
            // memchr finds each line feed many bytes at a time.
            var lineEnd = count
            if lineStart < count, let found = memchr(base + lineStart, Int32(UInt8(ascii: "\n")), count - lineStart) {
                lineEnd = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            var last = lineEnd
            if last > lineStart && base[last - 1] == UInt8(ascii: "\r") { last -= 1 }
            if !Self.isASCII(base + lineStart, last - lineStart) {
                let decoded = String(
                    decoding: UnsafeBufferPointer(start: base + lineStart, count: last - lineStart), as: UTF8.self)
                let scalars = Array(decoded.unicodeScalars)
                wide[starts.count] = scalars
                wideScalarCount += scalars.count
            }
            starts.append(lineStart)
            ends.append(last)
            if !hasCarriageReturn && memchr(base + lineStart, Int32(UInt8(ascii: "\r")), last - lineStart) != nil {
                hasCarriageReturn = true
            }
            if lineEnd == count { break }
            lineStart = lineEnd + 1
        }
        var stored = base
        if !wide.isEmpty {
            // Room for the stand-ins after the file's bytes.
            stored = UnsafeMutablePointer<UInt8>.allocate(capacity: fileByteCount + wideScalarCount)
            stored.moveInitialize(from: base, count: fileByteCount)
            base.deallocate()
            var offset = fileByteCount
            for row in wide.keys.sorted() {
                let scalars = wide[row]!
                starts[row] = offset
                for scalar in scalars {
                    stored[offset] = scalar.isASCII ? UInt8(scalar.value) : 0x80
                    offset += 1
                }
                ends[row] = offset
            }
        }
        self.base = stored
        self.fileByteCount = fileByteCount
        self.starts = starts
        self.ends = ends
        self.wide = wide
        self.hasCarriageReturn = hasCarriageReturn
        self.count = starts.count
        self.owner = nil
    }

    /// The same lines, numbered as in the file, of which a reader sees only those before `rows.upperBound` (its
    /// `count`; lines from `rows.lowerBound` on are the window's, those before it are not read): a reader's view of
    /// part of the file that ends where the part ends, sharing the file's buffer (nothing is copied).
    init(window file: SourceLines, rows: Range<Int>) {
        precondition(rows.lowerBound >= 0 && rows.upperBound <= file.count, "a window within the file's lines")
        base = file.base
        fileByteCount = file.fileByteCount
        starts = file.starts
        ends = file.ends
        wide = file.wide
        hasCarriageReturn = file.hasCarriageReturn
        count = rows.upperBound
        owner = file.owner ?? file
    }

    deinit { if owner == nil { base.deallocate() } }

    /// Whether the `count` bytes at `start` are all below 0x80, read eight at a time.
    static func isASCII(_ start: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let raw = UnsafeRawPointer(start)
        var index = 0
        var bits: UInt64 = 0
        while index + 8 <= count {
            bits |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            bits |= UInt64(start[index])
            index += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    /// Line `row`'s columns, one byte each.
    @inline(__always)
    func line(_ row: Int) -> Line {
        let start = starts[row]
        return Line(bytes: base + start, count: ends[row] - start)
    }

    /// The decoded scalars of line `row` if it holds non-ASCII text.
    @inline(__always)
    private func wideScalars(_ row: Int) -> [Unicode.Scalar]? {
        starts[row] >= fileByteCount ? wide[row] : nil
    }

    /// The scalar at column `column` of line `row`.
    func scalar(_ row: Int, _ column: Int) -> Unicode.Scalar {
        if let scalars = wideScalars(row) { return scalars[column] }
        let line = line(row)
        precondition(column >= 0 && column < line.count, "column out of range")
        return Unicode.Scalar(line[column].byte)
    }

    /// The text of columns `range` of line `row`.
    func text(_ row: Int, _ range: Range<Int>) -> String {
        if let scalars = wideScalars(row) { return String(String.UnicodeScalarView(scalars[range])) }
        let line = line(row)
        precondition(range.lowerBound >= 0 && range.upperBound <= line.count, "columns out of range")
        return String(
            decoding: UnsafeBufferPointer(start: line.bytes + range.lowerBound, count: range.count), as: UTF8.self)
    }

    /// The bytes of columns `range` of line `row` when they are its UTF-8 text (the line is ASCII), else nil.
    func asciiBytes(_ row: Int, _ range: Range<Int>) -> UnsafeBufferPointer<UInt8>? {
        if starts[row] >= fileByteCount && wide[row] != nil { return nil }
        let line = line(row)
        precondition(range.lowerBound >= 0 && range.upperBound <= line.count, "columns out of range")
        return UnsafeBufferPointer(start: line.bytes + range.lowerBound, count: range.count)
    }

    /// The text of columns `range` of line `row` without the spaces at either end.
    func trimmedText(_ row: Int, _ range: Range<Int>) -> String {
        let line = line(row)
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && line[lower] == " " { lower += 1 }
        while upper > lower && line[upper - 1] == " " { upper -= 1 }
        return text(row, lower..<upper)
    }
}

/// One line of ``SourceLines``: a byte per column (index from 0), valid while its ``SourceLines`` is.
struct Line {
    let bytes: UnsafePointer<UInt8>
    let count: Int

    @inline(__always)
    subscript(index: Int) -> ColumnByte {
        assert(index >= 0 && index < count, "column out of range")
        return ColumnByte(byte: bytes[index])
    }

    var first: ColumnByte? { count > 0 ? self[0] : nil }

    /// The first column holding `byte`.
    func firstIndex(of byte: UInt8) -> Int? {
        guard count > 0, let found = memchr(bytes, Int32(byte), count) else { return nil }
        return UnsafeRawPointer(bytes).distance(to: UnsafeRawPointer(found))
    }
}

/// A column of a ``Line``: its byte, which is the character itself when it is ASCII (written as a literal, `" "`,
/// to compare) and 0x80 for any other scalar.
struct ColumnByte: Equatable, ExpressibleByUnicodeScalarLiteral {
    let byte: UInt8

    @inline(__always)
    init(byte: UInt8) { self.byte = byte }

    /// An ASCII character.
    @inline(__always)
    init(unicodeScalarLiteral scalar: Unicode.Scalar) {
        precondition(scalar.isASCII, "only ASCII characters are read byte by byte")
        byte = UInt8(truncatingIfNeeded: scalar.value)
    }
}
