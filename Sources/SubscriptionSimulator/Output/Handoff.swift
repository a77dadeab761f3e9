import Foundation

/// A queue between two threads, in order: ``put(_:)`` waits while `capacity` items wait to be taken, ``take()`` waits
/// while none do and returns `nil` once the queue is closed and drained. What goes through it belongs to one thread
/// at a time (the putting thread gives it up), which is why the items need not be `Sendable`. Used by
/// ``BackgroundSink`` (groups of output to its thread) and by the timeline's end (``TimelineSink/finish()``,
/// formatted chunks from its second thread).
///
/// Unchecked: every mutable member is read and written with the lock held.
final class Handoff<Item>: @unchecked Sendable {
    let condition = NSCondition()
    let capacity: Int
    var items: [Item] = []
    var closed = false
    /// How many items the waiting taker waits for: ``put(_:)`` wakes it only once that many wait (1 but while
    /// ``takeAll(atLeast:into:)`` waits).
    var needed = 1

    init(capacity: Int = .max) { self.capacity = max(1, capacity) }

    /// Queues `item`, waiting while the queue is full.
    func put(_ item: consuming Item) {
        condition.lock()
        while items.count >= capacity { condition.wait() }
        items.append(item)
        if items.count >= needed { condition.broadcast() }
        condition.unlock()
    }

    /// The first item, waiting for one; `nil` once closed and empty.
    func take() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        if items.isEmpty { return nil }
        condition.broadcast()
        return items.removeFirst()
    }

    /// Moves every waiting item to `taken` (emptied first), once at least `minimum` wait (at most `capacity`) or the
    /// queue is closed, waiting meanwhile; `taken` is empty only once the queue is closed and drained. The taker then
    /// sleeps and wakes once for every `minimum` items instead of once for each. Only for a queue with one taker.
    func takeAll(atLeast minimum: Int, into taken: inout [Item]) {
        taken.removeAll(keepingCapacity: true)
        condition.lock()
        defer { condition.unlock() }
        needed = max(1, min(minimum, capacity))
        while items.count < needed && !closed { condition.wait() }
        needed = 1
        swap(&taken, &items)
        condition.broadcast()
    }

    /// The first item if one waits, without waiting.
    func takeIfAny() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        if items.isEmpty { return nil }
        condition.broadcast()
        return items.removeFirst()
    }

    /// No more items will come: ``take()`` returns the rest, then `nil`.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// What runs on a thread started by ``startThread(_:)``.
protocol BackgroundJob: AnyObject, Sendable {
    func work()
}

/// Starts `job` on a new thread (8 MB of stack, as the main thread has). Through an existential, so the thread's
/// closure does not capture a generic type.
func startThread(_ job: any BackgroundJob) {
    let thread = Thread { job.work() }
    thread.stackSize = 8 << 20
    thread.start()
}
