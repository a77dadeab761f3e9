/// A file's text as lines of Unicode scalars, the form the YAML reader reads (a column counts scalars), stored
/// compactly: the UTF-8 bytes once, where each line starts and ends, and a decoded copy of only those lines that
/// hold non-ASCII text (where a scalar's column is not its byte offset). A 10 MB scenario takes about 14 MB here,
/// where an array of scalars per line took over 50 MB.
///
/// Lines end at LF; a CR just before an LF (or at the end of the file) is not part of the line.
struct SourceLines {
    private let bytes: [UInt8]
    /// Byte offset of each line's first byte.
    private let starts: [Int]
    /// Byte offset just past each line's last byte (its CR or LF excluded).
    private let ends: [Int]
    /// The lines holding a byte of 0x80 or more, decoded, by line index.
    private let wide: [Int: [Unicode.Scalar]]

    init(_ text: String) {
        let bytes = Array(text.utf8)
        var starts: [Int] = []
        var ends: [Int] = []
        var wide: [Int: [Unicode.Scalar]] = [:]
        bytes.withUnsafeBufferPointer { buffer in
            var lineStart = 0
            var ascii = true
            func endLine(_ end: Int) {
                var last = end
                if last > lineStart && buffer[last - 1] == UInt8(ascii: "\r") { last -= 1 }
                if !ascii {
                    let decoded = String(
                        decoding: UnsafeBufferPointer(rebasing: buffer[lineStart..<last]), as: UTF8.self)
                    wide[starts.count] = Array(decoded.unicodeScalars)
                }
                starts.append(lineStart)
                ends.append(last)
            }
            for index in 0..<buffer.count {
                let byte = buffer[index]
                if byte == UInt8(ascii: "\n") {
                    endLine(index)
                    lineStart = index + 1
                    ascii = true
                } else if byte >= 0x80 {
                    ascii = false
                }
            }
            endLine(buffer.count)
        }
        self.bytes = bytes
        self.starts = starts
        self.ends = ends
        self.wide = wide
    }

    var count: Int { starts.count }

    subscript(row: Int) -> SourceLine {
        if !wide.isEmpty, let scalars = wide[row] {
            return SourceLine(bytes: bytes, start: 0, count: scalars.count, scalars: scalars)
        }
        return SourceLine(bytes: bytes, start: starts[row], count: ends[row] - starts[row], scalars: nil)
    }
}

/// One line of ``SourceLines``: its scalars by column index (from 0).
struct SourceLine {
    fileprivate let bytes: [UInt8]
    fileprivate let start: Int
    let count: Int
    /// Set for a line with non-ASCII text; otherwise every scalar is one byte of `bytes`.
    fileprivate let scalars: [Unicode.Scalar]?

    subscript(index: Int) -> Unicode.Scalar {
        if let scalars { return scalars[index] }
        precondition(index >= 0 && index < count, "column out of range")
        return Unicode.Scalar(bytes[start + index])
    }

    var first: Unicode.Scalar? { count > 0 ? self[0] : nil }

    /// The first column holding `scalar`.
    func firstIndex(of scalar: Unicode.Scalar) -> Int? {
        var index = 0
        while index < count {
            if self[index] == scalar { return index }
            index += 1
        }
        return nil
    }

    /// The text of columns `range`.
    func text(_ range: Range<Int>) -> String {
        if let scalars { return String(String.UnicodeScalarView(scalars[range])) }
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "columns out of range")
        return String(decoding: bytes[(start + range.lowerBound)..<(start + range.upperBound)], as: UTF8.self)
    }

    /// The text of columns `range` without the spaces at either end.
    func trimmedText(_ range: Range<Int>) -> String {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && self[lower] == " " { lower += 1 }
        while upper > lower && self[upper - 1] == " " { upper -= 1 }
        return text(lower..<upper)
    }
}
