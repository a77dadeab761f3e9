// libFuzzer target: the YAML subset reader (text -> located nodes). Every input must give a tree or a YAMLError.

@testable import SubscriptionSimulator

/// One of the entries ``fuzzTestOneInput`` dispatches to (Entry.swift).
func fuzzYAMLReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var whole: YAMLNode?
    do throws(YAMLError) {
        let node = try YAMLReader.parse(text)
        _ = node.kindDescription
        whole = node
    } catch {
        _ = error.description
    }
    checkChunkedRead(text, whole: whole)
    return 0
}

/// The top-level `timeline:` list read in chunks of one item (`DeferredList`, as `simctl run --jobs 2` reads a long
/// timeline) gives the whole read's tree, or an error somewhere where the whole read has one: a tree where the whole
/// read has an error, or another tree, stops the fuzzer.
func checkChunkedRead(_ text: String, whole: YAMLNode?) {
    guard let (root, list) = try? YAMLReader.parse(text, deferring: "timeline", itemsPerChunk: 1) else { return }
    var tree = root
    if let list {
        var items: [YAMLNode] = []
        for index in 0..<list.chunkCount {
            guard let chunk = try? list.items(ofChunk: index) else { return }
            items += chunk
        }
        guard case .mapping(var entries) = tree.kind,
            let place = entries.firstIndex(where: { $0.key.scalarText == "timeline" })
        else { fatalError("a deferred list with no timeline key in the tree") }
        entries[place].value.kind = .sequence(items)
        tree.kind = .mapping(entries)
    }
    guard let whole else { fatalError("the chunked read found no error where the whole read found one") }
    if tree != whole { fatalError("the chunked read gave another tree than the whole read") }
}
