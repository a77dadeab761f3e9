import Dispatch
import Foundation

extension ScenarioDecoder {
    /// The entries of a deferred timeline (``ScenarioDecoder/decode(_:overrides:threads:)``), chunk by chunk in
    /// order: each chunk's items read (``DeferredList/items(ofChunk:)``) and decoded
    /// (``decodeEntry(_:start:catalog:)``) on one of up to `threads` threads, which take the chunks in turn, each
    /// freeing its items' nodes as it decodes them. Nil if any chunk gives an error (the caller then reads the text on
    /// one thread, which reports the file's first error); the threads stop taking chunks at the first.
    func decodeEntries(of list: DeferredList, threads: Int, start: Instant, catalog: Catalog) -> [[TimelineEntry]]? {
        let count = list.chunkCount
        let results = ConcurrentSlots<[TimelineEntry]>(count: count)
        let queue = ChunkQueue(count: count)
        let decoder = self
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, count))) { _ in
            while let index = queue.next() {
                do {
                    var items = try list.items(ofChunk: index)
                    var entries: [TimelineEntry] = []
                    entries.reserveCapacity(items.count)
                    for item in items.indices {
                        let node = items[item]
                        items[item] = Self.consumed
                        entries.append(try decoder.decodeEntry(node, start: start, catalog: catalog))
                    }
                    results.set(index, entries)
                } catch {
                    queue.fail()
                }
            }
        }
        guard !queue.failed else { return nil }
        return (0..<count).map { results.take($0) }
    }
}

/// The chunks not yet taken, handed out in order to the threads that ask, until one fails.
private final class ChunkQueue: @unchecked Sendable {
    private let lock = NSLock()
    private let count: Int
    private var taken = 0
    private var failedFlag = false

    init(count: Int) { self.count = count }

    /// The next chunk to read, or nil when none is left or one has failed.
    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard !failedFlag, taken < count else { return nil }
        taken += 1
        return taken - 1
    }

    func fail() {
        lock.lock()
        failedFlag = true
        lock.unlock()
    }

    var failed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return failedFlag
    }
}
