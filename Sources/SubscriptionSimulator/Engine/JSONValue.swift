/// A JSON value. Emitters produce only these cases: no floating point, so numbers are exact.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number with a fraction or exponent, kept as its literal text. Only the lenient parser produces it (for
    /// reading files such as `.storekit`); the simulator never emits one.
    case decimal(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value at a dotted path (`data.status`, `x.0.y` for array elements), or nil.
    public func value(at path: String) -> JSONValue? {
        var current: JSONValue = self
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .object(let members):
                guard let next = members[String(component)] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(component), items.indices.contains(index) else { return nil }
                current = items[index]
            case .null, .bool, .integer, .decimal, .string:
                return nil
            }
        }
        return current
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var integerValue: Int64? { if case .integer(let i) = self { return i } else { return nil } }
}

/// Builds a JSON object, leaving out optional members that are nil: Apple omits absent fields, never `null`
/// (reference §2.9).
struct JSONObjectBuilder {
    var members: [String: JSONValue] = [:]
    /// The last key given to ``JSONMemberSink``'s methods (which assert canonical order); `set` ignores it.
    var lastKey: StaticString?

    mutating func set(_ key: String, _ value: String?) { if let value { members[key] = .string(value) } }
    mutating func set(_ key: String, _ value: Int64?) { if let value { members[key] = .integer(value) } }
    mutating func set(_ key: String, _ value: Bool?) { if let value { members[key] = .bool(value) } }
    mutating func set(_ key: String, _ value: Instant?) {
        if let value { members[key] = .integer(value.millisecondsSince1970) }
    }
    mutating func set(_ key: String, _ value: JSONValue?) { if let value { members[key] = value } }

    var value: JSONValue { .object(members) }
}
