/// A place in a text file: 1-based line and column (columns count Unicode scalars).
///
/// Stored in 32 bits each (every YAML node and timeline entry carries one): a line or column past 2,147,483,647,
/// which only a file of more than 2 GB could reach, reads as 2,147,483,647.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    private var storedLine: Int32
    private var storedColumn: Int32

    public var line: Int {
        get { Int(storedLine) }
        set { storedLine = Int32(clamping: newValue) }
    }

    public var column: Int {
        get { Int(storedColumn) }
        set { storedColumn = Int32(clamping: newValue) }
    }

    public init(line: Int, column: Int) {
        storedLine = Int32(clamping: line)
        storedColumn = Int32(clamping: column)
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// Text quoted from input into messages.
public enum SourceText {
    /// `text` with every control character (C0, DEL, C1) written as an escape (`\0`, `\t`, `\r`, `\n`,
    /// `\u{1B}`), so a key holding a NUL or an escape sequence can neither cut nor restyle an error message.
    public static func escapingControlCharacters(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.append(scalar)
                continue
            }
            let escape: String
            switch scalar {
            case "\0": escape = "\\0"
            case "\t": escape = "\\t"
            case "\r": escape = "\\r"
            case "\n": escape = "\\n"
            default: escape = "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
