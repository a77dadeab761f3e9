/// Timeline entries: an instant and one action, read through the action table (``ScenarioActionSpec``).
extension ScenarioDecoder {
    /// A timeline entry's keys: `at` and one action.
    static let entryKeys = ["at"] + ScenarioAction.names

    func decodeEntry(_ node: YAMLNode, start: Instant, catalog: Catalog) throws(ScenarioError) -> TimelineEntry {
        let map = try mapping(node, "a timeline entry", keys: Self.entryKeys)
        let at = try time(try map.required("at"), start: start, "at")
        // The entry's action and a second one if any (an error), without collecting them in an array.
        var actions: (first: YAMLMappingEntry?, second: YAMLMappingEntry?) = (nil, nil)
        for entry in map.entries where entry.key.scalarText != "at" {
            if actions.first == nil { actions.first = entry } else if actions.second == nil { actions.second = entry }
        }
        guard let first = actions.first else {
            throw fail(
                node,
                "expected one action in this timeline entry (\(ScenarioAction.names.joined(separator: ", "))), found none"
            )
        }
        if let second = actions.second {
            throw fail(
                second.key,
                "a timeline entry holds exactly one action; found '\(first.key.scalarText ?? "")' and '\(second.key.scalarText ?? "")': split them into two entries"
            )
        }
        let name = first.key.scalarText ?? ""
        guard let spec = ScenarioActionSpec.byName[name] else {
            throw fail(first.key, "unknown action '\(name)'\(hint(name, ScenarioAction.names))")
        }
        let arguments = try mapping(first.value, name, keys: spec.keys)
        let action = try spec.decode(ActionInput(name: name, map: arguments, decoder: self, catalog: catalog, at: at))
        var entry = TimelineEntry(at: at, action: action, location: first.key.location)
        if !spec.deprecatedKeys.isEmpty, action.spec !== spec {
            entry.deprecation = Self.deprecation(of: spec, arguments, now: action.spec)
        }
        return entry
    }

    /// The warning for an action written in a deprecated spelling (the table's ``ScenarioActionSpec/deprecatedKeys``):
    /// `refund` with `transaction`, `percentage` or `prorated` is `refundTransaction`.
    private static func deprecation(
        of old: ScenarioActionSpec, _ arguments: CheckedMapping, now new: ScenarioActionSpec
    )
        -> String
    {
        let keys = arguments.entries.compactMap(\.key.scalarText).filter(old.deprecatedKeys.contains)
        return "`\(old.name)` with " + keys.map { "`\($0)`" }.joined(separator: ", ")
            + " is deprecated: write `\(new.name)` with the same arguments"
    }
}

// MARK: one action (simctl serve)

extension ScenarioDecoder {
    /// One timeline action outside a scenario file, for `simctl serve`'s control API: `node` is a mapping like a
    /// timeline entry (one action key and its arguments) whose `at` is optional (default: `now`). Times count from
    /// `now`, and an `at` before `now` is refused. The vocabulary, checks and error messages are a timeline entry's.
    package func decodeAction(_ node: YAMLNode, now: Instant, catalog: Catalog) throws(ScenarioError) -> TimelineEntry {
        var entry = node
        if case .mapping(let entries) = node.kind, !entries.contains(where: { $0.key.scalarText == "at" }) {
            let at = YAMLNode(kind: .scalar(YAMLScalar(text: "0", style: .plain)), location: node.location)
            entry = YAMLNode(
                kind: .mapping([YAMLMappingEntry(key: at.withText("at"), value: at)] + entries), location: node.location
            )
        }
        return try decodeEntry(entry, start: now, catalog: catalog)
    }

    /// ``decodeAction(_:now:catalog:)`` for a JSON request body: objects are mappings (keys sorted, `at` first),
    /// arrays lists, and numbers, `true`, `false` and strings scalars as written; `null` is an empty scalar.
    /// Locations are 1:1 (a JSON body has no lines worth naming).
    public func decodeAction(json: JSONValue, now: Instant, catalog: Catalog) throws(ScenarioError) -> TimelineEntry {
        try decodeAction(Self.node(json), now: now, catalog: catalog)
    }

    static func node(_ json: JSONValue) -> YAMLNode {
        let here = SourceLocation(line: 1, column: 1)
        func scalar(_ text: String, _ style: YAMLScalar.Style = .plain) -> YAMLNode {
            YAMLNode(kind: .scalar(YAMLScalar(text: text, style: style)), location: here)
        }
        switch json {
        case .null: return scalar("")
        case .bool(let value): return scalar(value ? "true" : "false")
        case .integer(let value): return scalar(String(value))
        case .decimal(let text): return scalar(text)
        case .string(let text): return scalar(text, .doubleQuoted)
        case .array(let items): return YAMLNode(kind: .sequence(items.map(node)), location: here)
        case .object(let members):
            let keys = members.keys.sorted { ($0 == "at" ? 0 : 1, $0) < ($1 == "at" ? 0 : 1, $1) }
            return YAMLNode(
                kind: .mapping(keys.map { YAMLMappingEntry(key: scalar($0), value: node(members[$0]!)) }),
                location: here)
        }
    }
}

extension YAMLNode {
    fileprivate func withText(_ text: String) -> YAMLNode {
        YAMLNode(kind: .scalar(YAMLScalar(text: text, style: .plain)), location: location)
    }
}
