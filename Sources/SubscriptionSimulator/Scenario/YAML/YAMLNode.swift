/// A place in a text file: 1-based line and column (columns count Unicode scalars).
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// A scalar as written. Plain scalars are never typed: `off`, `yes`, `1.0` and `true` are all text; the scenario
/// schema decides what a value means.
public struct YAMLScalar: Hashable, Sendable {
    public enum Style: Hashable, Sendable {
        case plain
        case singleQuoted
        case doubleQuoted
    }

    public var text: String
    public var style: Style

    public init(text: String, style: Style) {
        self.text = text
        self.style = style
    }
}

public struct YAMLMappingEntry: Hashable, Sendable {
    /// Always a scalar.
    public var key: YAMLNode
    public var value: YAMLNode
}

/// A node of the tree with the location of its first character (a block sequence: its first `-`; a block
/// mapping: its first key; a flow collection: its `[` or `{`).
public struct YAMLNode: Hashable, Sendable {
    public indirect enum Kind: Hashable, Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLMappingEntry])
    }

    public var kind: Kind
    public var location: SourceLocation

    public init(kind: Kind, location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    public var scalarText: String? {
        if case .scalar(let scalar) = kind { return scalar.text }
        return nil
    }

    public var sequenceItems: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    public var mappingEntries: [YAMLMappingEntry]? {
        if case .mapping(let entries) = kind { return entries }
        return nil
    }

    public func value(forKey key: String) -> YAMLNode? {
        mappingEntries?.first { $0.key.scalarText == key }?.value
    }

    /// For messages: "a mapping", "a list", "a text value", "an empty value".
    public var kindDescription: String {
        switch kind {
        case .scalar(let scalar):
            return scalar.text.isEmpty && scalar.style == .plain ? "an empty value" : "a text value ('\(scalar.text)')"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}

/// A YAML syntax error, or a construct outside the supported subset.
public struct YAMLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public init(location: SourceLocation, message: String) {
        self.location = location
        self.message = SourceText.escapingControlCharacters(message)
    }

    public var description: String { "\(location): \(message)" }
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
