#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small, strict reader for the YAML subset scenario files use. Text in; a tree of located nodes out, or an error
/// with line and column. No dependency.
///
/// Supported, exactly:
/// - block mappings (`key: value`, or `key:` followed by an indented block; a list under a key may also start at
///   the key's own indentation) and block sequences (`- item`, including `- key: value` that starts a mapping whose
///   further keys align with the first);
/// - flow sequences `[a, b]` and flow mappings `{ k: v }`, nested, empty (`[]`, `{}`), spanning lines if needed;
/// - plain scalars (text to the end of the line or, in flow, to `,` `]` `}`; `:` is part of the text unless a
///   space follows it; trailing spaces and `# comments` after a space are dropped), single-quoted scalars (`''` is a
///   quote) and double-quoted scalars (escapes `\\` `\"` `\/` `\n` `\t` `\r` `\0` `\uXXXX`), each on one line;
/// - comments and blank lines; one optional `---` line before the document; CRLF line endings.
///
/// Plain scalars are text: `off`, `yes`, `1.0` and `true` are not converted. A key with nothing after the colon and
/// no indented block below it has an empty plain scalar as its value (the schema reports it).
///
/// Rejected, each with its own message: tabs in indentation, anchors (`&`) and aliases (`*`), tags (`!`), block
/// scalars (`|`, `>`), complex keys (`? `), merge keys (`<<`), directives (`%`), more than one document (`---`,
/// `...` after content), duplicate keys, inconsistent indentation, a list item among mapping keys, `: ` inside a
/// plain value, unterminated quotes and brackets, an empty file, CR-only line endings, and nesting deeper than
/// ``maximumDepth``.
///
/// The nesting limit holds by construction: every block node is read through ``BlockParser/parseNode(_:indent:column:)``
/// and every flow value through ``FlowParser/parseValue()``, the only places that count depth; the readers of a
/// sequence, a mapping or an inline value never call each other directly.
package enum YAMLReader {
    /// Collections nest at most this deep (scenario files need fewer than ten levels). Deeper input is an error, not
    /// a stack overflow.
    package static let maximumDepth = 100

    static func tooDeep(_ location: SourceLocation) -> YAMLError {
        YAMLError(
            location: location,
            message: "lists and mappings nest more than \(maximumDepth) levels deep here; scenario files need far fewer"
        )
    }

    package static func parse(_ text: String) throws(YAMLError) -> YAMLNode {
        var parser = try BlockParser(text)
        // The parser reads the lines through views into their buffer: keep it alive until the tree is built.
        return try withExtendedLifetime(parser.lines) { () throws(YAMLError) -> YAMLNode in try parser.parseDocument() }
    }

    /// Reads the document like ``parse(_:)``, except the block list under `key` of the top-level mapping (the
    /// document's own `key:`, its items on the lines below): its items are not read here but noted, in chunks of
    /// `itemsPerChunk` items, as a ``DeferredList`` that threads can read at once; the tree holds an empty list in
    /// its place, at its location. Nil for the list (and the tree as ``parse(_:)`` reads it) when the document has
    /// no such list.
    ///
    /// Only the parse of the whole text decides what a document is: a list read in chunks gives that parse's items
    /// when every chunk reads without an error, and otherwise nothing that may be reported (``DeferredList``).
    /// A caller that meets any error, here or in a chunk, reads the text again with ``parse(_:)`` for the error to
    /// report.
    static func parse(_ text: String, deferring key: String, itemsPerChunk: Int) throws(YAMLError) -> (
        YAMLNode, DeferredList?
    ) {
        var parser = try BlockParser(text)
        parser.deferral = BlockParser.Deferral(key: key, itemsPerChunk: max(1, itemsPerChunk))
        let root = try withExtendedLifetime(parser.lines) { () throws(YAMLError) -> YAMLNode in
            try parser.parseDocument()
        }
        return (root, parser.deferral?.list)
    }
}

struct BlockParser {
    let lines: SourceLines
    var row = 0
    /// How many block collections enclose the node being read.
    var depth = 0
    /// Shares one copy of each long text that recurs (product ids repeated on every timeline entry).
    let interner = TextInterner()
    /// The list to note instead of read (``YAMLReader/parse(_:deferring:itemsPerChunk:)``), and once met, what was
    /// noted.
    var deferral: Deferral?

    struct Deferral {
        let key: String
        let itemsPerChunk: Int
        var list: DeferredList?
    }

    /// A reader of lines already checked by ``init(_:)`` (a ``DeferredList``'s chunk), from `row`, `depth`
    /// collections deep.
    init(lines: SourceLines, row: Int, depth: Int) {
        self.lines = lines
        self.row = row
        self.depth = depth
    }

    init(_ text: String) throws(YAMLError) {
        let lines = SourceLines(text)
        for index in 0..<lines.count {
            let line = lines.line(index)
            if lines.hasCarriageReturn, let column = line.firstIndex(of: UInt8(ascii: "\r")) {
                throw YAMLError(
                    location: SourceLocation(line: index + 1, column: column + 1),
                    message:
                        "a carriage return (CR) with no line feed after it: the file seems to use CR-only line endings "
                        + "(classic Mac OS); save it with LF or CRLF line endings")
            }
            for column in 0..<line.count {
                let byte = line[column]
                if byte == " " { continue }
                if byte == "\t" {
                    throw YAMLError(
                        location: SourceLocation(line: index + 1, column: column + 1),
                        message: "tabs are not allowed for indentation; use spaces")
                }
                break
            }
        }
        self.lines = lines
    }

    // MARK: - Lines

    func indent(_ r: Int) -> Int {
        let line = lines.line(r)
        var count = 0
        while count < line.count && line[count] == " " { count += 1 }
        return count
    }

    func isBlank(_ r: Int) -> Bool {
        let line = lines.line(r)
        var i = 0
        while i < line.count && line[i] == " " { i += 1 }
        return i >= line.count || line[i] == "#"
    }

    mutating func skipBlank() {
        while row < lines.count && isBlank(row) { row += 1 }
    }

    func trimmedText(_ r: Int) -> String { lines.trimmedText(r, 0..<lines.line(r).count) }

    func location(_ r: Int, _ c: Int) -> SourceLocation { SourceLocation(line: r + 1, column: c + 1) }

    func isDash(_ r: Int, _ c: Int) -> Bool {
        let line = lines.line(r)
        return c < line.count && line[c] == "-" && (c + 1 == line.count || line[c + 1] == " ")
    }

    func isDocumentMarker(_ r: Int) -> Bool {
        // Cheap test first: this runs at every node, and a line may be very long.
        let line = lines.line(r)
        guard line.count >= 3, line[0] == "-" || line[0] == ".", line[1] == line[0], line[2] == line[0] else {
            return false
        }
        let text = trimmedText(r)
        let withoutComment = text.split(separator: "#", maxSplits: 1).first.map { String($0).trimmingSpaces } ?? ""
        return indent(r) == 0 && (withoutComment == "---" || withoutComment == "...")
    }

    // MARK: - Document

    mutating func parseDocument() throws(YAMLError) -> YAMLNode {
        skipBlank()
        guard row < lines.count else {
            throw YAMLError(location: location(0, 0), message: "the file is empty; expected a scenario mapping")
        }
        if lines.line(row).first == "%" {
            throw YAMLError(location: location(row, 0), message: "directives ('%') are not supported")
        }
        if isDocumentMarker(row) && trimmedText(row).hasPrefix("---") {
            row += 1
            skipBlank()
            guard row < lines.count else {
                throw YAMLError(
                    location: location(row - 1, 0), message: "the file is empty; expected a scenario mapping")
            }
        }
        let node = try parseNode(.any, indent: indent(row), column: indent(row))
        skipBlank()
        if row < lines.count {
            if isDocumentMarker(row) {
                throw YAMLError(
                    location: location(row, 0),
                    message:
                        "more than one document ('\(trimmedText(row).prefix(3))') is not supported; a scenario file holds one document"
                )
            }
            throw YAMLError(
                location: location(row, indent(row)),
                message:
                    "unexpected indentation: expected a key at column \(node.location.column), found text at column \(indent(row) + 1)"
            )
        }
        return node
    }

    /// What the text at a node's start has already shown it to be.
    enum NodeForm {
        /// Not yet known: a sequence, a mapping or an inline value.
        case any
        /// A block sequence (the text is `- `).
        case sequence
        /// A block mapping (the text is `key:`).
        case mapping
        /// A flow collection, a quoted or a plain scalar on this line.
        case inline
    }

    /// The one entry to every node of the document: depth is counted here and nowhere else in the block reader, so
    /// no construct (nested `- - x`, `- key:` chains, a list at its key's indentation) can nest past
    /// ``YAMLReader/maximumDepth``. The readers below are `private`: they are reached only through this.
    mutating func parseNode(_ form: NodeForm, indent n: Int, column: Int) throws(YAMLError) -> YAMLNode {
        depth += 1
        defer { depth -= 1 }
        if depth > YAMLReader.maximumDepth { throw YAMLReader.tooDeep(location(row, column)) }
        switch form {
        case .any: return try parseAnyBlock(indent: n, column: column)
        case .sequence: return try parseSequence(indent: n, column: column)
        case .mapping: return try parseMapping(indent: n, column: column)
        case .inline: return try parseInlineValue(column)
        }
    }

    /// A block node whose first line is `row`, its content starting at `column` (`indent` is the block's indent).
    private mutating func parseAnyBlock(indent n: Int, column: Int) throws(YAMLError) -> YAMLNode {
        if isDocumentMarker(row) {
            throw YAMLError(
                location: location(row, 0),
                message: "more than one document ('---') is not supported; a scenario file holds one document")
        }
        // Already counted by parseNode: the body readers are called directly here, and only here.
        if isDash(row, column) { return try parseSequence(indent: n, column: column) }
        let line = lines.line(row)
        if line[column] == "?" && (column + 1 == line.count || line[column + 1] == " ") {
            throw YAMLError(location: location(row, column), message: "complex keys ('? ') are not supported")
        }
        // A quoted scalar is a key when a colon follows its closing quote (`"name": x`); lineHasKey reads past it.
        if line[column] == "[" || line[column] == "{" || !lineHasKey(row, column) {
            // A lone value on its own line(s): only valid as a nested value.
            return try parseInlineValue(column)
        }
        return try parseMapping(indent: n, column: column)
    }

    /// Whether the text at (row, column) reads as `key:` (a plain or quoted key followed by a colon).
    func lineHasKey(_ r: Int, _ c: Int) -> Bool {
        let line = lines.line(r)
        var i = c
        if i < line.count, line[i] == "\"" || line[i] == "'" {
            let quote = line[i]
            i += 1
            while i < line.count {
                if line[i] == "\\" && quote == "\"" { i += 2; continue }
                if line[i] == quote {
                    if quote == "'" && i + 1 < line.count && line[i + 1] == "'" { i += 2; continue }
                    break
                }
                i += 1
            }
            i += 1
            while i < line.count && line[i] == " " { i += 1 }
            return i < line.count && line[i] == ":"
        }
        while i < line.count {
            if line[i] == "#" && i > c && line[i - 1] == " " { return false }
            if line[i] == ":" && (i + 1 == line.count || line[i + 1] == " ") { return true }
            i += 1
        }
        return false
    }

    // MARK: - Block collections

    private mutating func parseSequence(indent n: Int, column: Int) throws(YAMLError) -> YAMLNode {
        let start = location(row, column)
        var items: [YAMLNode] = []
        var col = column
        while true {
            let dashRow = row
            var k = col + 1
            while k < lines.line(row).count && lines.line(row)[k] == " " { k += 1 }
            if k >= lines.line(row).count || lines.line(row)[k] == "#" {
                row += 1
                skipBlank()
                if row < lines.count && indent(row) > col {
                    items.append(try parseNode(.any, indent: indent(row), column: indent(row)))
                } else {
                    items.append(
                        YAMLNode(
                            kind: .scalar(YAMLScalar(text: "", style: .plain)), location: location(dashRow, col + 1)))
                }
            } else if isDash(row, k) {
                items.append(try parseNode(.sequence, indent: k, column: k))
            } else if lineHasKey(row, k) && lines.line(row)[k] != "[" && lines.line(row)[k] != "{" {
                items.append(try parseNode(.mapping, indent: k, column: k))
            } else {
                items.append(try parseNode(.inline, indent: k, column: k))
            }
            skipBlank()
            guard row < lines.count else { break }
            let i = indent(row)
            if i == n && isDash(row, n) {
                col = n
                continue
            }
            if i > n {
                throw YAMLError(
                    location: location(row, i),
                    message:
                        "unexpected indentation: expected a list item '- ' at column \(n + 1), found text at column \(i + 1)"
                )
            }
            break
        }
        return YAMLNode(kind: .sequence(items), location: start)
    }

    private mutating func parseMapping(indent n: Int, column: Int) throws(YAMLError) -> YAMLNode {
        let start = location(row, column)
        var entries: [YAMLMappingEntry] = []
        // Room for two from the start: most mappings of a timeline hold two entries (`at` and the action; a
        // customer and a product), which would otherwise take a second allocation.
        entries.reserveCapacity(2)
        var seen = SeenKeys()
        var col = column
        while true {
            if isDocumentMarker(row) {
                throw YAMLError(
                    location: location(row, 0),
                    message:
                        "more than one document ('\(trimmedText(row).prefix(3))') is not supported; a scenario file holds one document"
                )
            }
            let line = lines.line(row)
            if isDash(row, col) {
                throw YAMLError(
                    location: location(row, col),
                    message: "expected a key, found a list item '- '; a list cannot be mixed with the keys of a mapping"
                )
            }
            if line[col] == "?" && (col + 1 == line.count || line[col + 1] == " ") {
                throw YAMLError(location: location(row, col), message: "complex keys ('? ') are not supported")
            }
            let keyRow = row
            let (key, afterColon) = try parseKey(row, col)
            if key.scalarText == "<<" {
                throw YAMLError(
                    location: key.location, message: "merge keys ('<<') are not supported; write the keys out")
            }
            if let first = seen.firstLocation(of: key, among: entries) {
                throw YAMLError(
                    location: key.location, message: "duplicate key '\(key.scalarText!)'; first defined at \(first)")
            }
            var k = afterColon
            while k < line.count && line[k] == " " { k += 1 }
            let value: YAMLNode
            if k >= line.count || line[k] == "#" {
                row += 1
                skipBlank()
                if row < lines.count && indent(row) >= n, let list = deferList(under: key, indent: indent(row)) {
                    value = list
                } else if row < lines.count && indent(row) > n {
                    value = try parseNode(.any, indent: indent(row), column: indent(row))
                } else if row < lines.count && indent(row) == n && isDash(row, n) {
                    value = try parseNode(.sequence, indent: n, column: n)
                } else {
                    value = YAMLNode(
                        kind: .scalar(YAMLScalar(text: "", style: .plain)), location: location(keyRow, afterColon))
                }
            } else {
                value = try parseNode(.inline, indent: n, column: k)
            }
            entries.append(YAMLMappingEntry(key: key, value: value))
            skipBlank()
            guard row < lines.count else { break }
            let i = indent(row)
            if i == n {
                col = n
                continue
            }
            if i > n {
                throw YAMLError(
                    location: location(row, i),
                    message: "unexpected indentation: expected a key at column \(n + 1), found text at column \(i + 1)")
            }
            break
        }
        return YAMLNode(kind: .mapping(entries), location: start)
    }

    /// When `key` is the deferred key of the top-level mapping and a block list starts at `row`, column `i`: notes
    /// the list's chunks (``DeferredList``), moves `row` past its lines and returns an empty list at its location;
    /// otherwise nil, and nothing moves.
    ///
    /// The list's lines are those from its first `- ` to the first line (not blank, not a comment) indented less
    /// than `i`, or by `i` without `- `: that is where ``parseSequence(indent:column:)`` ends when it reads them
    /// without an error, since a line indented by more than `i` after an item is an error there, and every line
    /// indented by `i` with `- ` then starts an item (an item's content is indented further, and a flow collection
    /// still open at a chunk's end is an error in that chunk: ``DeferredList``).
    private mutating func deferList(under key: YAMLNode, indent i: Int) -> YAMLNode? {
        guard depth == 1, var deferral, deferral.list == nil, key.scalarText == deferral.key, isDash(row, i) else {
            return nil
        }
        let first = row
        var chunkStarts = [first]
        var items = 0
        var r = first
        while r < lines.count {
            if isBlank(r) {
                r += 1
                continue
            }
            let lineIndent = indent(r)
            if lineIndent < i || (lineIndent == i && !isDash(r, i)) { break }
            if lineIndent == i {
                if items > 0 && items % deferral.itemsPerChunk == 0 { chunkStarts.append(r) }
                items += 1
            }
            r += 1
        }
        deferral.list = DeferredList(lines: lines, indent: i, depth: depth, chunkStarts: chunkStarts, end: r)
        self.deferral = deferral
        row = r
        return YAMLNode(kind: .sequence([]), location: location(first, i))
    }

    /// A key at (r, c) and the column just after its colon.
    func parseKey(_ r: Int, _ c: Int) throws(YAMLError) -> (YAMLNode, Int) {
        let line = lines.line(r)
        if line[c] == "\"" || line[c] == "'" {
            var flow = FlowParser(lines: lines, row: r, column: c, interner: interner)
            let key = try flow.parseQuoted()
            var i = flow.column
            while i < line.count && line[i] == " " { i += 1 }
            guard i < line.count, line[i] == ":" else {
                throw YAMLError(
                    location: location(r, i), message: "expected ':' after the key '\(key.scalarText ?? "")'")
            }
            return (key, i + 1)
        }
        try checkIndicator(line[c], r, c)
        var i = c
        while i < line.count {
            if line[i] == ":" && (i + 1 == line.count || line[i + 1] == " ") { break }
            if line[i] == "#" && i > c && line[i - 1] == " " { i = line.count; break }
            i += 1
        }
        let text = interner.intern(lines, r, c..<min(i, line.count), trimmed: true)
        guard i < line.count else {
            throw YAMLError(
                location: location(r, c),
                message: "expected 'key: value', found '\(text)' with no ':' after it")
        }
        return (YAMLNode(kind: .scalar(YAMLScalar(text: text, style: .plain)), location: location(r, c)), i + 1)
    }

    func checkIndicator(_ byte: ColumnByte, _ r: Int, _ c: Int) throws(YAMLError) {
        if let message = Self.unsupportedIndicator(byte) {
            throw YAMLError(location: location(r, c), message: message)
        }
    }

    /// The message for a character that starts a construct outside the subset, written once for block and flow.
    static func unsupportedIndicator(_ byte: ColumnByte) -> String? {
        switch byte {
        case "&": return "anchors ('&') are not supported; write the value out"
        case "*": return "aliases ('*') are not supported; write the value out"
        case "!": return "tags ('!') are not supported; values are plain text"
        case "|", ">": return "block scalars (| and >) are not supported; write the text on one line in quotes"
        case "%": return "directives ('%') are not supported"
        case "@", "`": return "'\(Unicode.Scalar(byte.byte))' cannot start a plain value; put the value in quotes"
        default: return nil
        }
    }

    /// A value that starts at (row, c): flow collection, quoted or plain scalar. Moves `row` past it.
    private mutating func parseInlineValue(_ c: Int) throws(YAMLError) -> YAMLNode {
        let line = lines.line(row)
        let first = line[c]
        if first == "[" || first == "{" || first == "\"" || first == "'" {
            // The flow reader counts this value itself (FlowParser.parseValue), so it starts one level up.
            var flow = FlowParser(lines: lines, row: row, column: c, depth: depth - 1, interner: interner)
            let node = try flow.parseValue()
            try flow.expectLineEnd()
            row = flow.row + 1
            return node
        }
        try checkIndicator(first, row, c)
        if first == "-" && isDash(row, c) {
            throw YAMLError(
                location: location(row, c),
                message: "a list item '- ' cannot follow a key on the same line; start the list on the next line")
        }
        var end = line.count
        var i = c
        while i < line.count {
            if line[i] == "#" && line[i - 1] == " " { end = i; break }
            i += 1
        }
        var lower = c
        var upper = end
        while lower < upper && line[lower] == " " { lower += 1 }
        while upper > lower && line[upper - 1] == " " { upper -= 1 }
        var colon = lower
        while colon < upper && !(line[colon] == ":" && (colon + 1 == upper || line[colon + 1] == " ")) { colon += 1 }
        if colon < upper {
            let column = c + (colon - lower)
            throw YAMLError(
                location: location(row, column),
                message:
                    "':' inside a plain value is ambiguous; put the whole value in quotes if it is text, or start a nested mapping on the next line"
            )
        }
        let text = interner.intern(lines, row, lower..<upper, trimmed: false)
        let node = YAMLNode(kind: .scalar(YAMLScalar(text: text, style: .plain)), location: location(row, c))
        row += 1
        return node
    }
}

/// Parses flow collections and quoted scalars, which may continue over several lines.
struct FlowParser {
    let lines: SourceLines
    var row: Int
    var column: Int
    /// How many collections (block and flow) enclose the value being read.
    var depth = 0
    let interner: TextInterner

    func location(_ r: Int, _ c: Int) -> SourceLocation { SourceLocation(line: r + 1, column: c + 1) }

    var current: ColumnByte? {
        guard row < lines.count else { return nil }
        let line = lines.line(row)
        return column < line.count ? line[column] : nil
    }

    mutating func skipSpaceAndComments() {
        while row < lines.count {
            let line = lines.line(row)
            while column < line.count && line[column] == " " { column += 1 }
            if column < line.count && line[column] == "#" && (column == 0 || line[column - 1] == " ") {
                column = line.count
            }
            if column < line.count { return }
            row += 1
            column = 0
        }
    }

    /// After a value on a block line: only spaces or a comment may follow.
    mutating func expectLineEnd() throws(YAMLError) {
        let line = lines.line(row)
        var i = column
        while i < line.count && line[i] == " " { i += 1 }
        if i < line.count && !(line[i] == "#" && line[i - 1] == " ") {
            throw YAMLError(
                location: location(row, i), message: "unexpected text after the value; expected the end of the line")
        }
    }

    func endLocation() -> SourceLocation {
        let last = lines.count - 1
        return location(last, lines.line(last).count)
    }

    mutating func parseValue() throws(YAMLError) -> YAMLNode {
        skipSpaceAndComments()
        guard let c = current else {
            throw YAMLError(location: endLocation(), message: "expected a value, found the end of the file")
        }
        depth += 1
        defer { depth -= 1 }
        if depth > YAMLReader.maximumDepth { throw YAMLReader.tooDeep(location(row, column)) }
        switch c {
        case "[": return try parseSequence()
        case "{": return try parseMapping()
        case "\"", "'": return try parseQuoted()
        default: return try parsePlain(isKey: false)
        }
    }

    mutating func parseSequence() throws(YAMLError) -> YAMLNode {
        let start = location(row, column)
        column += 1
        var items: [YAMLNode] = []
        while true {
            skipSpaceAndComments()
            guard let c = current else {
                throw YAMLError(location: start, message: "this '[' is never closed; expected ']'")
            }
            if c == "]" { column += 1; break }
            items.append(try parseValue())
            skipSpaceAndComments()
            guard let next = current else {
                throw YAMLError(location: start, message: "this '[' is never closed; expected ']'")
            }
            if next == "," { column += 1; continue }
            if next == "]" { column += 1; break }
            throw YAMLError(
                location: location(row, column),
                message: "expected ',' or ']' in a list, found '\(lines.scalar(row, column))'")
        }
        return YAMLNode(kind: .sequence(items), location: start)
    }

    mutating func parseMapping() throws(YAMLError) -> YAMLNode {
        let start = location(row, column)
        column += 1
        var entries: [YAMLMappingEntry] = []
        // Room for two from the start: most mappings of a timeline hold two entries (`at` and the action; a
        // customer and a product), which would otherwise take a second allocation.
        entries.reserveCapacity(2)
        var seen = SeenKeys()
        while true {
            skipSpaceAndComments()
            guard let c = current else {
                throw YAMLError(location: start, message: "this '{' is never closed; expected '}'")
            }
            if c == "}" { column += 1; break }
            let key: YAMLNode = (c == "\"" || c == "'") ? try parseQuoted() : try parsePlain(isKey: true)
            if key.scalarText == "<<" {
                throw YAMLError(
                    location: key.location, message: "merge keys ('<<') are not supported; write the keys out")
            }
            if let first = seen.firstLocation(of: key, among: entries) {
                throw YAMLError(
                    location: key.location, message: "duplicate key '\(key.scalarText!)'; first defined at \(first)")
            }
            skipSpaceAndComments()
            guard current == ":" else {
                throw YAMLError(
                    location: row < lines.count ? location(row, column) : endLocation(),
                    message: "expected ':' after the key '\(key.scalarText!)'")
            }
            column += 1
            skipSpaceAndComments()
            let value: YAMLNode
            if let v = current, v == "," || v == "}" {
                value = YAMLNode(kind: .scalar(YAMLScalar(text: "", style: .plain)), location: location(row, column))
            } else {
                value = try parseValue()
            }
            entries.append(YAMLMappingEntry(key: key, value: value))
            skipSpaceAndComments()
            guard let next = current else {
                throw YAMLError(location: start, message: "this '{' is never closed; expected '}'")
            }
            if next == "," { column += 1; continue }
            if next == "}" { column += 1; break }
            throw YAMLError(
                location: location(row, column),
                message: "expected ',' or '}' in a mapping, found '\(lines.scalar(row, column))'")
        }
        return YAMLNode(kind: .mapping(entries), location: start)
    }

    mutating func parsePlain(isKey: Bool) throws(YAMLError) -> YAMLNode {
        let line = lines.line(row)
        let start = column
        let startLocation = location(row, column)
        if let message = BlockParser.unsupportedIndicator(line[column]) {
            throw YAMLError(location: startLocation, message: message)
        }
        if line[column] == ":" || line[column] == "," || line[column] == "]" || line[column] == "}" {
            throw YAMLError(
                location: startLocation, message: "expected a value, found '\(lines.scalar(row, column))'")
        }
        var i = column
        while i < line.count {
            let s = line[i]
            if s == "," || s == "]" || s == "}" || s == "[" || s == "{" { break }
            if s == ":" && (i + 1 == line.count || Self.endsFlowKey(line[i + 1])) { break }
            if s == "#" && i > start && line[i - 1] == " " { break }
            i += 1
        }
        let text = interner.intern(lines, row, start..<i, trimmed: true)
        column = i
        if text.isEmpty { throw YAMLError(location: startLocation, message: "expected a value") }
        if !isKey, current == ":" {
            throw YAMLError(
                location: location(row, column),
                message: "':' inside a flow value is ambiguous; put the value in quotes")
        }
        return YAMLNode(kind: .scalar(YAMLScalar(text: text, style: .plain)), location: startLocation)
    }

    /// Whether `scalar` after a `:` in flow ends a key (`k: v`, `{k:}`, `[k:]`, `{k:,}`).
    static func endsFlowKey(_ byte: ColumnByte) -> Bool {
        byte == " " || byte == "," || byte == "]" || byte == "}"
    }

    mutating func parseQuoted() throws(YAMLError) -> YAMLNode {
        let line = lines.line(row)
        let quote = line[column]
        let start = location(row, column)
        var i = column + 1
        // The text is taken from the line in runs that hold no quote or escape, so text without any is one run,
        // read straight from the line's bytes.
        var text = ""
        var runStart = i
        var isOneRun = true
        while true {
            guard i < line.count else {
                throw YAMLError(
                    location: start,
                    message:
                        "unterminated quoted text; the closing \(quote == "\"" ? "\"" : "'") must be on the same line")
            }
            let s = line[i]
            if quote == "'" {
                if s == "'" {
                    if i + 1 < line.count && line[i + 1] == "'" {
                        // The run ends with the first of the two quotes, which is kept.
                        text += lines.text(row, runStart..<(i + 1))
                        isOneRun = false
                        i += 2
                        runStart = i
                        continue
                    }
                    break
                }
                i += 1
                continue
            }
            if s == "\"" { break }
            if s == "\\" {
                guard i + 1 < line.count else {
                    throw YAMLError(location: location(row, i), message: "unterminated escape")
                }
                let escaped: Unicode.Scalar
                var width = 2
                switch line[i + 1] {
                case "\\": escaped = "\\"
                case "\"": escaped = "\""
                case "/": escaped = "/"
                case "n": escaped = "\n"
                case "t": escaped = "\t"
                case "r": escaped = "\r"
                case "0": escaped = "\0"
                case "u":
                    guard i + 6 <= line.count,
                        let value = UInt32(lines.text(row, (i + 2)..<(i + 6)), radix: 16),
                        let scalar = Unicode.Scalar(value)
                    else { throw YAMLError(location: location(row, i), message: "expected 4 hex digits after \\u") }
                    escaped = scalar
                    width = 6
                default:
                    throw YAMLError(
                        location: location(row, i),
                        message: "unknown escape '\\\(lines.scalar(row, i + 1))' in double-quoted text")
                }
                text += lines.text(row, runStart..<i)
                text.unicodeScalars.append(escaped)
                isOneRun = false
                i += width
                runStart = i
                continue
            }
            i += 1
        }
        // `i` is at the closing quote.
        let value: String
        if isOneRun {
            value = interner.intern(lines, row, runStart..<i, trimmed: false)
        } else {
            text += lines.text(row, runStart..<i)
            value = interner.intern(text)
        }
        column = i + 1
        return YAMLNode(
            kind: .scalar(YAMLScalar(text: value, style: quote == "'" ? .singleQuoted : .doubleQuoted)),
            location: start)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

/// One copy of each long text a document repeats: a scenario names the same product on thousands of timeline
/// entries, and a text of more than 15 bytes is a heap allocation of its own unless copies share it. Shorter texts
/// are stored inside the `String` value and pass through untouched.
final class TextInterner {
    private var texts: Set<String> = []
    /// The last text interned: a timeline names the same product entry after entry, and comparing is cheaper than
    /// hashing.
    private var last = ""
    /// The UTF-8 bytes of `last`, to compare a text still in the source's bytes without making a `String` of it.
    private var lastBytes: [UInt8] = []

    func intern(_ text: String) -> String {
        guard text.utf8.count > 15 else { return text }
        if text == last { return last }
        last = texts.insert(text).memberAfterInsert
        lastBytes = Array(last.utf8)
        return last
    }

    /// The text of columns `range` of line `row` (without the spaces at either end if `trimmed`), interned: the same
    /// as `intern(lines.text(row, range))`, but a text of an ASCII line equal to the last one is not made a `String`
    /// at all.
    func intern(_ lines: SourceLines, _ row: Int, _ range: Range<Int>, trimmed: Bool) -> String {
        var lower = range.lowerBound
        var upper = range.upperBound
        if trimmed {
            let line = lines.line(row)
            while lower < upper && line[lower] == " " { lower += 1 }
            while upper > lower && line[upper - 1] == " " { upper -= 1 }
        }
        guard let bytes = lines.asciiBytes(row, lower..<upper) else { return intern(lines.text(row, lower..<upper)) }
        if bytes.count > 15 && bytes.count == lastBytes.count
            && lastBytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
        {
            return last
        }
        return intern(String(decoding: bytes, as: UTF8.self))
    }
}

/// The keys of a mapping read so far, to find a duplicate: a linear search of the entries while the mapping is small
/// (nearly all are), an index once it grows, so a hostile mapping of many keys stays linear.
struct SeenKeys {
    private var index: [String: SourceLocation]?
    static let linearLimit = 16

    /// Where `key` was first defined among `entries` (the mapping's entries before it), or nil if it is new.
    mutating func firstLocation(of key: YAMLNode, among entries: [YAMLMappingEntry]) -> SourceLocation? {
        let text = key.scalarText ?? ""
        if index == nil {
            if entries.count < Self.linearLimit {
                return entries.first { $0.key.scalarText == text }?.key.location
            }
            var built: [String: SourceLocation] = [:]
            for entry in entries { built[entry.key.scalarText ?? ""] = entry.key.location }
            index = built
        }
        if let first = index?[text] { return first }
        index?[text] = key.location
        return nil
    }
}
