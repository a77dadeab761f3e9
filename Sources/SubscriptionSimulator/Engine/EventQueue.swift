/// Identifies one scheduled event, for cancellation.
@usableFromInline package struct EventID: Hashable, Sendable, Comparable {
    @usableFromInline package let rawValue: UInt64

    @inlinable package init(rawValue: UInt64) { self.rawValue = rawValue }

    @usableFromInline package static func < (lhs: EventID, rhs: EventID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An event taken from an event queue (``EventQueueing``): the id it was scheduled under in that queue's storage
/// (``EventID`` for the binary heap, ``RadixEventID`` for the radix queue), its instant, priority and payload, and the
/// group it was scheduled with (the binary heap's ``EventQueue/schedule(_:at:priority:group:)``; 0 on the radix
/// queue, which has no groups).
@usableFromInline package struct QueuedEvent<Payload, ID: Hashable & Sendable> {
    @usableFromInline package let id: ID
    @usableFromInline package let instant: Instant
    @usableFromInline package let priority: Int
    @usableFromInline package let payload: Payload
    @usableFromInline package let group: UInt32

    @inlinable
    package init(id: ID, instant: Instant, priority: Int, payload: Payload, group: UInt32 = 0) {
        self.id = id
        self.instant = instant
        self.priority = priority
        self.payload = payload
        self.group = group
    }
}

extension QueuedEvent: Sendable where Payload: Sendable {}
extension QueuedEvent: Equatable where Payload: Equatable {}

/// An event taken from the binary heap (``EventQueue``).
@usableFromInline package typealias ScheduledEvent<Payload> = QueuedEvent<Payload, EventID>

/// A binary min-heap of events ordered by (instant, priority, group, sequence): at one instant, lower priority first;
/// within one priority, lower group first (a store's customer's order group, ``OrderKey/group``; 0 unless given);
/// within one group, the order they were scheduled in (so the order
/// is total and runs are reproducible).
///
/// A value type: a copy is independent (its storage is copied on the first change, like `Array`'s).
///
/// Layout (see ``EventHeap``): the heap holds 24-byte trivially-copyable nodes, so sifting never retains or
/// releases anything; payloads live in a slot table indexed from the node.
///
/// Complexity: `schedule` O(log n) (O(1) on average for random instants); `popNext` O(log n), bottom-up: the hole
/// left by the root walks down along the smaller children (one comparison per level), then the last node sifts up
/// from the leaf it reached (Wegener's bottom-up heapsort, 1993); `cancel` O(1) amortized: the slot is marked and
/// its node dropped when it reaches the root, or when cancelled nodes outnumber live ones and the heap is rebuilt in
/// O(n); `peek` and `nextInstant` O(1).
///
/// Invariants: every node's key is not greater than its children's; the root, when there is one, is live (never
/// a cancelled event); cancelled nodes never outnumber live ones by more than ``compactionFloor``.
///
/// Limits: instants within ±2^55 ms of 1970 (±1.1 million years); priorities in ``priorityRange``; fewer than
/// 2^32 events pending at once. Sequence numbers are 32 bits: when they run out, the pending events are renumbered
/// in their current order (an O(n log n) step once every 2^32 schedules), so a queue may live forever.
@usableFromInline package struct EventQueue<Payload> {
    @usableFromInline var storage: EventQueueStorage<Payload>

    /// Priorities must fit in 8 bits.
    @usableFromInline package static var priorityRange: ClosedRange<Int> { -128...127 }
    /// Instants must fit in 56 bits (the low 8 bits of a node's key hold the priority).
    @usableFromInline package static var instantRange: ClosedRange<Int64> { -(1 << 55)...((1 << 55) - 1) }
    /// Cancelled nodes are kept (and dropped when they reach the root) until they outnumber the live ones by this.
    @usableFromInline package static var compactionFloor: Int { 64 }

    @inlinable package init() { storage = EventQueueStorage(EventHeap(sequenceLimit: 1 << 32, capacity: 16)) }

    /// For tests: a queue whose sequence numbers run out after `sequenceLimit` schedules.
    init(sequenceLimit: UInt64) {
        precondition(sequenceLimit >= 1 && sequenceLimit <= 1 << 32)
        storage = EventQueueStorage(EventHeap(sequenceLimit: sequenceLimit, capacity: 16))
    }

    /// The heap, in the storage this queue owns (copy on write: call ``makeUnique()`` before changing it).
    @inlinable var heap: UnsafeMutablePointer<EventHeap<Payload>> { storage.heap }

    /// Live (not cancelled) events.
    @inlinable package var count: Int { heap.pointee.nodeCount - heap.pointee.cancelledCount }
    @inlinable package var isEmpty: Bool { count == 0 }
    /// Nodes held, cancelled ones included (for tests of compaction).
    var storedCount: Int { heap.pointee.nodeCount }

    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Adds an event; the returned id cancels it. `group` orders events of one instant and priority before their
    /// sequence (lower first).
    @inlinable @discardableResult
    package mutating func schedule(_ payload: Payload, at instant: Instant, priority: Int = 0, group: UInt32 = 0)
        -> EventID
    {
        precondition(
            Self.priorityRange.contains(priority), "event priority \(priority) is outside \(Self.priorityRange)")
        let milliseconds = instant.millisecondsSince1970
        precondition(Self.instantRange.contains(milliseconds), "event instant \(instant) is outside the queue's range")
        makeUnique()
        let key = UInt64(bitPattern: milliseconds &* 256 &+ Int64(priority &+ 128)) ^ (1 << 63)
        return heap.pointee.insert(payload, key: key, group: group)
    }

    /// Cancels a scheduled event. Returns false when the id is unknown, already taken, or already cancelled.
    @discardableResult
    @usableFromInline package mutating func cancel(_ id: EventID) -> Bool {
        guard heap.pointee.isLive(id) else { return false }
        makeUnique()
        heap.pointee.markCancelled(id)
        if heap.pointee.cancelledCount > count + Self.compactionFloor { heap.pointee.compact() }
        return true
    }

    /// The next event, without removing it.
    @usableFromInline package func peek() -> ScheduledEvent<Payload>? {
        let heap = self.heap.pointee
        guard heap.nodeCount > 0 else { return nil }
        return heap.event(heap.nodes[1], payload: heap.slots[heap.nodes[1].slot].payload!)
    }

    /// The instant of the next event, if any.
    @inlinable package var nextInstant: Instant? {
        heap.pointee.nodeCount > 0 ? heap.pointee.nodes[1].instant : nil
    }

    /// Removes and returns the next event.
    @inlinable
    package mutating func popNext() -> ScheduledEvent<Payload>? {
        guard heap.pointee.nodeCount > 0 else { return nil }
        makeUnique()
        return heap.pointee.removeNext()
    }

    /// Removes and returns the next event if it is due at or before `limit`.
    @inlinable
    package mutating func popNext(notAfter limit: Instant) -> ScheduledEvent<Payload>? {
        guard heap.pointee.nodeCount > 0, heap.pointee.nodes[1].instant <= limit else { return nil }
        makeUnique()
        return heap.pointee.removeNext()
    }
}

extension EventQueue: @unchecked Sendable where Payload: Sendable {
    // Safe: the storage is never shared between two queues while either changes it (copy on write), and a queue's
    // own mutations need exclusive access to the queue.
}
