/// A scalar as written. Plain scalars are never typed: `off`, `yes`, `1.0` and `true` are all text; the scenario
/// schema decides what a value means.
package struct YAMLScalar: Hashable, Sendable {
    package enum Style: Hashable, Sendable {
        case plain
        case singleQuoted
        case doubleQuoted
    }

    package var text: String
    package var style: Style

    package init(text: String, style: Style) {
        self.text = text
        self.style = style
    }
}

package struct YAMLMappingEntry: Hashable, Sendable {
    /// Always a scalar.
    package var key: YAMLNode
    package var value: YAMLNode
}

/// A node of the tree with the location of its first character (a block sequence: its first `-`; a block
/// mapping: its first key; a flow collection: its `[` or `{`).
///
/// Compact, because a long timeline is a tree of hundreds of thousands of nodes: 32 bytes each, held inline in their
/// parent's array (``Kind`` is not `indirect`, so no node is boxed on the heap of its own), and scalar texts of up to
/// 15 bytes stored inside their `String`.
package struct YAMLNode: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLMappingEntry])
    }

    package var kind: Kind
    package var location: SourceLocation

    package init(kind: Kind, location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    package var scalarText: String? {
        if case .scalar(let scalar) = kind { return scalar.text }
        return nil
    }

    package var sequenceItems: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    package var mappingEntries: [YAMLMappingEntry]? {
        if case .mapping(let entries) = kind { return entries }
        return nil
    }

    package func value(forKey key: String) -> YAMLNode? {
        mappingEntries?.first { $0.key.scalarText == key }?.value
    }

    /// Takes the items of the list under `key` out of this mapping, leaving an empty list at the same location, so
    /// the caller holds the only reference to them and can free each as it goes. Nil (and nothing changed) if this
    /// is not a mapping or `key` is absent or not a list.
    mutating func takeSequenceItems(forKey key: String) -> [YAMLNode]? {
        guard case .mapping(var entries) = kind,
            let index = entries.firstIndex(where: { $0.key.scalarText == key }),
            case .sequence(let items) = entries[index].value.kind
        else { return nil }
        kind = .sequence([])  // drops this node's hold on `entries`, so the change below is made in place
        entries[index].value.kind = .sequence([])
        kind = .mapping(entries)
        return items
    }

    /// For messages: "a mapping", "a list", "a text value", "an empty value".
    package var kindDescription: String {
        switch kind {
        case .scalar(let scalar):
            return scalar.text.isEmpty && scalar.style == .plain ? "an empty value" : "a text value ('\(scalar.text)')"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}

/// A YAML syntax error, or a construct outside the supported subset.
package struct YAMLError: Error, Hashable, Sendable, CustomStringConvertible {
    package var location: SourceLocation
    package var message: String

    package init(location: SourceLocation, message: String) {
        self.location = location
        self.message = SourceText.escapingControlCharacters(message)
    }

    package var description: String { "\(location): \(message)" }
}
