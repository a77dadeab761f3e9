/// The one JSON writer: deterministic and byte-identical on every platform (Foundation's `JSONEncoder` output has
/// differed between Linux and macOS). Keys sorted by their UTF-8 bytes; integers in decimal; strings escaped as
/// `\"` `\\` `\b` `\f` `\n` `\r` `\t`, other control characters as `\u00xx`; `/` and non-ASCII written as is.
package enum CanonicalJSON {
    /// Compact form: no whitespace.
    package static func string(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(value, into: &out, indent: nil, depth: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Pretty form for people and golden files: two-space indent, `"key": value`, sorted keys.
    package static func pretty(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out, indent: 2, depth: 0)
        return String(decoding: out, as: UTF8.self)
    }

    static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int?, depth: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .decimal(let text): out.append(contentsOf: text.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, depth + 1)
                write(item, into: &out, indent: indent, depth: depth + 1)
            }
            newline(&out, indent, depth)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, depth + 1)
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(members[key]!, into: &out, indent: indent, depth: depth + 1)
            }
            newline(&out, indent, depth)
            out.append(UInt8(ascii: "}"))
        }
    }

    static func newline(_ out: inout [UInt8], _ indent: Int?, _ depth: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out += [UInt8](repeating: UInt8(ascii: " "), count: indent * depth)
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Runs that need no escaping are copied whole: signed payloads are long and never need escaping.
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): out += [92, 34]
                case UInt8(ascii: "\\"): out += [92, 92]
                case 0x08: out += [92, UInt8(ascii: "b")]
                case 0x0C: out += [92, UInt8(ascii: "f")]
                case 0x0A: out += [92, UInt8(ascii: "n")]
                case 0x0D: out += [92, UInt8(ascii: "r")]
                case 0x09: out += [92, UInt8(ascii: "t")]
                default:
                    out += Array("\\u00".utf8) + [hexDigit(byte >> 4), hexDigit(byte & 0xF)]
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether a string's bytes need escaping in JSON (a control character, `"` or `\\`).
    /// Eight bytes at a time: a word has a byte below 0x20, or equal to `"` or `\\`, exactly when the classic
    /// "has a byte less than n" and "has a zero byte" tests say so.
    static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        var i = 0
        if let base = UnsafeRawPointer(utf8.baseAddress) {
            while i + 8 <= utf8.count {
                let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if (w &- ones &* 0x20) & ~w & highs != 0 || hasZero(w ^ (ones &* 0x22)) || hasZero(w ^ (ones &* 0x5C)) {
                    return true
                }
                i += 8
            }
        }
        while i < utf8.count {
            let byte = utf8[i]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            i += 1
        }
        return false
    }

    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Parses JSON (RFC 8259). Numbers must be integers that fit in 64 bits: this project's payloads never carry
    /// fractions, so a fraction or exponent is reported rather than rounded.
    package static func parse(_ text: String, allowFractions: Bool = false) throws(JSONParseError) -> JSONValue {
        var parser = Parser(bytes: Array(text.utf8), allowFractions: allowFractions)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    struct Parser {
        let bytes: [UInt8]
        let allowFractions: Bool
        var index = 0

        func error(_ message: String, at position: Int? = nil) -> JSONParseError {
            let index = position ?? self.index
            var line = 1
            var column = 1
            for byte in bytes[0..<min(index, bytes.count)] {
                if byte == 10 { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            }
            return JSONParseError(offset: index, line: line, column: column, message: message)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func expect(_ literal: String) throws(JSONParseError) {
            let chars = Array(literal.utf8)
            guard index + chars.count <= bytes.count, Array(bytes[index..<index + chars.count]) == chars else {
                throw error("expected '\(literal)'")
            }
            index += chars.count
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth < 200 else { throw error("JSON nested more than 200 levels deep") }
            guard index < bytes.count else { throw error("expected a JSON value, found the end of the text") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: JSONValue] = [:]
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                        throw error("expected a quoted key")
                    }
                    let keyStart = index
                    let key = try parseString()
                    if members[key] != nil { throw error("duplicate key '\(key)'", at: keyStart) }
                    skipWhitespace()
                    try expect(":")
                    skipWhitespace()
                    members[key] = try parseValue(depth: depth + 1)
                    skipWhitespace()
                    guard index < bytes.count else { throw error("expected ',' or '}', found the end of the text") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                    throw error("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONValue] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    skipWhitespace()
                    items.append(try parseValue(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.count else { throw error("expected ',' or ']', found the end of the text") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                    throw error("expected ',' or ']'")
                }
            case UInt8(ascii: "\""):
                return .string(try parseString())
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return try parseNumber()
            default:
                throw error("expected a JSON value")
            }
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONValue {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            if index == digitsStart { throw error("expected digits") }
            if bytes[digitsStart] == 48 && index - digitsStart > 1 {
                throw error("numbers must not have leading zeros")
            }
            if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
                guard allowFractions else {
                    throw error("only whole numbers are supported; found a fraction or exponent")
                }
                if bytes[index] == UInt8(ascii: ".") {
                    index += 1
                    let fractionStart = index
                    while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
                    if index == fractionStart { throw error("expected digits after '.'") }
                }
                if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                    index += 1
                    if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                        index += 1
                    }
                    let exponentStart = index
                    while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
                    if index == exponentStart { throw error("expected digits in the exponent") }
                }
                return .decimal(String(decoding: bytes[start..<index], as: UTF8.self))
            }
            guard let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                throw error("number does not fit in 64 bits")
            }
            return .integer(value)
        }

        mutating func parseString() throws(JSONParseError) -> String {
            index += 1
            var out: [UInt8] = []
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw error("unterminated escape") }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""): out.append(34)
                    case UInt8(ascii: "\\"): out.append(92)
                    case UInt8(ascii: "/"): out.append(47)
                    case UInt8(ascii: "b"): out.append(8)
                    case UInt8(ascii: "f"): out.append(12)
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "r"): out.append(13)
                    case UInt8(ascii: "t"): out.append(9)
                    case UInt8(ascii: "u"):
                        var scalar = try parseHex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            try expect("\\u")
                            let low = try parseHex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                        out += Array(String(Character(unicode)).utf8)
                    default: throw error("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
                    }
                case 0..<0x20: throw error("control character in a string must be escaped")
                default: out.append(byte)
                }
            }
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt32 {
            guard index + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw error("expected 4 hex digits") }
            index += 4
            return value
        }
    }
}

package struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    package var offset: Int
    package var line: Int
    package var column: Int
    package var message: String

    package var description: String { "\(line):\(column): \(message)" }
}
