/// Receives a JSON object's members, described once (``Payloads``) and written either as a ``JSONValue``
/// (``JSONObjectBuilder``) or straight to canonical bytes (``CanonicalJSONBytes``). Members come in canonical order:
/// keys strictly increasing by their UTF-8 bytes, as ``CanonicalJSON`` sorts them, so the byte writer needs no
/// sorting; both writers assert it. A `nil` value leaves the member out (Apple omits absent fields, reference §2.9).
protocol JSONMemberSink {
    mutating func member(_ key: StaticString, _ value: String?)
    mutating func member(_ key: StaticString, _ value: Int64?)
    mutating func member(_ key: StaticString, _ value: Bool?)
    /// An array of strings (written even when empty).
    mutating func member(_ key: StaticString, strings: [String])
    /// A nested object whose members `body` describes, in canonical order.
    mutating func member(_ key: StaticString, object body: (inout Self) -> Void)
}

extension JSONMemberSink {
    /// Dates are integer milliseconds since 1970 (reference §2.9).
    mutating func member(_ key: StaticString, _ value: Instant?) { member(key, value?.millisecondsSince1970) }
}

/// Whether `a` sorts strictly before `b` by UTF-8 bytes (``CanonicalJSON``'s key order).
func canonicallyPrecedes(_ a: StaticString, _ b: StaticString) -> Bool {
    UnsafeBufferPointer(start: a.utf8Start, count: a.utf8CodeUnitCount).lexicographicallyPrecedes(
        UnsafeBufferPointer(start: b.utf8Start, count: b.utf8CodeUnitCount))
}

/// Members given in canonical order, and keys that need no escaping: what ``CanonicalJSONBytes`` relies on.
func isCanonicalNextKey(_ key: StaticString, after previous: StaticString?) -> Bool {
    let bytes = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
    guard bytes.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
        return false
    }
    return previous.map { canonicallyPrecedes($0, key) } ?? true
}

extension JSONObjectBuilder: JSONMemberSink {
    mutating func member(_ key: StaticString, _ value: String?) { put(key, value.map(JSONValue.string)) }
    mutating func member(_ key: StaticString, _ value: Int64?) { put(key, value.map(JSONValue.integer)) }
    mutating func member(_ key: StaticString, _ value: Bool?) { put(key, value.map(JSONValue.bool)) }
    mutating func member(_ key: StaticString, strings: [String]) {
        put(key, .array(strings.map(JSONValue.string)))
    }
    mutating func member(_ key: StaticString, object body: (inout JSONObjectBuilder) -> Void) {
        var nested = JSONObjectBuilder()
        body(&nested)
        put(key, nested.value)
    }

    mutating func put(_ key: StaticString, _ value: JSONValue?) {
        assert(isCanonicalNextKey(key, after: lastKey), "member '\(key)' out of canonical order")
        lastKey = key
        guard let value else { return }
        members[key.description] = value
    }
}

/// Writes members straight to canonical JSON bytes (compact form): byte for byte what
/// ``CanonicalJSON/string(_:)`` gives for the ``JSONValue`` that ``JSONObjectBuilder`` builds from the same calls
/// (strings are escaped by ``CanonicalJSON``'s own function).
struct CanonicalJSONBytes: JSONMemberSink {
    var bytes: [UInt8]
    var needsComma = false
    var lastKey: StaticString?

    init(into bytes: [UInt8] = []) { self.bytes = bytes }

    /// Writes `{`, the members `body` describes, and `}`.
    mutating func object(_ body: (inout CanonicalJSONBytes) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        lastKey = nil
        body(&self)
        bytes.append(UInt8(ascii: "}"))
    }

    /// `,"key":` (the comma when a member came before), appended at once.
    mutating func key(_ key: StaticString) {
        appendKeyed(key, valueCapacity: 0) { _ in 0 }
    }

    /// `,"key":` and a value `write` puts after it (at most `valueCapacity` bytes; it returns how many), appended to
    /// `bytes` in one piece: appending is what costs most here, so a member is one append, not three or four.
    mutating func appendKeyed(
        _ key: StaticString, valueCapacity: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int
    ) {
        assert(isCanonicalNextKey(key, after: lastKey), "member '\(key)' out of canonical order")
        lastKey = key
        let first = needsComma ? 0 : 1  // where the bytes start: with the comma or after it
        needsComma = true
        let count = key.utf8CodeUnitCount
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + 4 + valueCapacity) { buffer in
            let start = buffer.baseAddress!
            start[0] = UInt8(ascii: ",")
            start[1] = UInt8(ascii: "\"")
            (start + 2).initialize(from: key.utf8Start, count: count)
            start[2 + count] = UInt8(ascii: "\"")
            start[3 + count] = UInt8(ascii: ":")
            let written = write(start + 4 + count)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[first..<count + 4 + written]))
        }
    }

    /// Strings up to this long that need no escaping are written with their key in one piece.
    static let shortString = 256

    mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return skip(key) }
        // Read in place (a native string's bytes are contiguous): `withUTF8` would need a mutable copy of it.
        let done = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard utf8.count <= Self.shortString, !CanonicalJSON.needsEscaping(utf8) else { return false }
            appendKeyed(key, valueCapacity: utf8.count + 2) { out in
                out[0] = UInt8(ascii: "\"")
                if let base = utf8.baseAddress { (out + 1).initialize(from: base, count: utf8.count) }
                out[utf8.count + 1] = UInt8(ascii: "\"")
                return utf8.count + 2
            }
            return true
        }
        if done == true { return }
        self.key(key)
        CanonicalJSON.writeString(value, into: &bytes)
    }

    mutating func member(_ key: StaticString, _ value: Int64?) {
        guard let value else { return skip(key) }
        appendKeyed(key, valueCapacity: 20) { out in Self.writeDecimal(value, to: out) }
    }

    mutating func member(_ key: StaticString, _ value: Bool?) {
        guard let value else { return skip(key) }
        self.key(key)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    mutating func member(_ key: StaticString, strings: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, text) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            CanonicalJSON.writeString(text, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func member(_ key: StaticString, object body: (inout CanonicalJSONBytes) -> Void) {
        self.key(key)
        let outerKey = lastKey
        object(body)
        lastKey = outerKey
        needsComma = true
    }

    /// `"key":"<compact JWS>"`, the JWS of the object `payload` describes, signed by `signing`, written in place;
    /// `scratch` holds the payload's JSON meanwhile (kept for the next call: no allocation once it is large enough).
    mutating func signedMember(
        _ key: StaticString, signing: JWSSigning, scratch: inout [UInt8], payload: (inout CanonicalJSONBytes) -> Void
    ) {
        self.key(key)
        var inner = CanonicalJSONBytes()
        swap(&inner.bytes, &scratch)
        inner.bytes.removeAll(keepingCapacity: true)
        inner.object(payload)
        bytes.append(UInt8(ascii: "\""))
        JWS.append(payloadJSON: inner.bytes, signing: signing, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        swap(&inner.bytes, &scratch)
    }

    /// A member left out still takes its place in the order check.
    mutating func skip(_ key: StaticString) {
        assert(isCanonicalNextKey(key, after: lastKey), "member '\(key)' out of canonical order")
        lastKey = key
    }

    /// `String(value)`'s digits, without the string.
    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let count = writeDecimal(value, to: digits.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[0..<count]))
        }
    }

    /// Writes `String(value)`'s digits at `out` (at most 20 bytes) and returns how many: the length from a table of
    /// powers of ten, then two digits per division.
    static func writeDecimal(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var length = 1
        while length < powersOfTen.count && magnitude >= powersOfTen[length] { length += 1 }
        let sign = value < 0 ? 1 : 0
        if sign == 1 { out[0] = UInt8(ascii: "-") }
        var position = sign + length
        digitPairs.withUnsafeBufferPointer { pairs in
            while magnitude >= 10 {
                let pair = Int(magnitude % 100)
                magnitude /= 100
                position -= 2
                out[position] = pairs[2 * pair]
                out[position + 1] = pairs[2 * pair + 1]
            }
            if position > sign { out[sign] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude) }
        }
        return sign + length
    }

    /// 1, 10, 100, ... 10^19.
    static let powersOfTen: [UInt64] = (0..<20).map { (0..<$0).reduce(1) { power, _ in power * 10 } }
    /// "00" "01" ... "99".
    static let digitPairs: [UInt8] = (0..<100).flatMap {
        [UInt8(ascii: "0") + UInt8($0 / 10), UInt8(ascii: "0") + UInt8($0 % 10)]
    }
}
