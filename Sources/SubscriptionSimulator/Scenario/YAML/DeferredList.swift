/// A block list noted by ``YAMLReader/parse(_:deferring:itemsPerChunk:)`` instead of read: its lines, split into
/// chunks at its items, that threads may read at once, each chunk with a reader of its own.
///
/// A chunk is read by the same block reader as the whole document, starting at its first item, `depth` collections
/// deep, through a window of the file's lines that ends where the chunk ends (``SourceLines/init(window:rows:)``),
/// so it sees nothing past its last line. Read that way, a chunk gives exactly the items the whole document's parse
/// gives for those lines, or an error:
/// - every item starts at the list's indentation with `- `, and its content is indented further, so a block item's
///   reader stops at the next item's line whether or not that line is in its window;
/// - the only construct that reads across lines regardless of indentation, a flow collection (`[`, `{`), reports
///   "never closed" when the window ends inside it;
/// - a line indented further than the list after an item is an error in both;
/// - depth is counted from the list's own depth, so ``YAMLReader/maximumDepth`` is met at the same node.
///
/// An error from a chunk says only that the chunks cannot stand for the document's parse (the document's own
/// first error may come earlier in the file, or be another): the caller reads the whole text again with
/// ``YAMLReader/parse(_:)`` and reports what that finds.
struct DeferredList: Sendable {
    /// The file's lines (checked for tabs and CRs by the reader that noted the list).
    let lines: SourceLines
    /// The column of the items' `- `.
    let indent: Int
    /// How many collections enclose the list.
    let depth: Int
    /// The line (from 0) of each chunk's first item, in order.
    let chunkStarts: [Int]
    /// The line just past the list (the line the document's reader goes on from).
    let end: Int

    var chunkCount: Int { chunkStarts.count }

    /// The items of chunk `index`, in order; an error if that chunk does not read as items of the list.
    func items(ofChunk index: Int) throws(YAMLError) -> [YAMLNode] {
        let first = chunkStarts[index]
        let last = index + 1 < chunkStarts.count ? chunkStarts[index + 1] : end
        let window = SourceLines(window: lines, rows: first..<last)
        var parser = BlockParser(lines: window, row: first, depth: depth)
        let node = try withExtendedLifetime(window) { () throws(YAMLError) -> YAMLNode in
            try parser.parseNode(.sequence, indent: indent, column: indent)
        }
        parser.skipBlank()
        guard parser.row == last, let items = node.sequenceItems else {
            throw YAMLError(
                location: SourceLocation(line: parser.row + 1, column: 1),
                message: "a chunk of the list ends before its last line")
        }
        return items
    }
}
