/// Identifies one scheduled event, for cancellation.
public struct EventID: Hashable, Sendable, Comparable {
    public let rawValue: UInt64

    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: EventID, rhs: EventID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An event taken from the queue.
public struct ScheduledEvent<Payload> {
    public let id: EventID
    public let instant: Instant
    public let priority: Int
    /// Scheduling order; breaks ties between events with the same instant and priority.
    public let sequence: UInt64
    public let payload: Payload

    @inlinable
    public init(id: EventID, instant: Instant, priority: Int, sequence: UInt64, payload: Payload) {
        self.id = id
        self.instant = instant
        self.priority = priority
        self.sequence = sequence
        self.payload = payload
    }
}

extension ScheduledEvent: Sendable where Payload: Sendable {}
extension ScheduledEvent: Equatable where Payload: Equatable {}

/// A binary min-heap of events ordered by (instant, priority, sequence): at one instant, lower priority first;
/// within one priority, the order they were scheduled in (so the order is total and runs are reproducible).
///
/// Layout: the heap holds small trivially-copyable nodes (instant, priority and sequence packed in one word, and a
/// slot number); payloads live in a slot table, so sifting never retains or releases anything.
/// Complexity: `schedule` O(log n); `popNext` O(log n) (bottom-up sift-down: one comparison per level on the way
/// down, then a short sift-up); `cancel` O(1) (the slot is marked; the node is dropped when it reaches the top);
/// `peek` O(1) when no cancelled event is at the top.
/// Invariant: every node's key is not greater than its children's keys.
public struct EventQueue<Payload> {
    @usableFromInline
    struct Node {
        @usableFromInline var instant: Int64
        /// `(priority + 2^15) << 48 | sequence`: compares as (priority, sequence).
        @usableFromInline var order: UInt64
        @usableFromInline var slot: Int32

        @inlinable init(instant: Int64, order: UInt64, slot: Int32) {
            self.instant = instant
            self.order = order
            self.slot = slot
        }

        @inlinable func precedes(_ other: Node) -> Bool {
            instant < other.instant || (instant == other.instant && order < other.order)
        }
    }

    /// A payload's place: its value while scheduled, a generation that makes stale ids harmless, and a cancel flag.
    @usableFromInline
    struct Slot {
        @usableFromInline var payload: Payload?
        @usableFromInline var generation: UInt32
        @usableFromInline var cancelled: Bool

        @inlinable init(payload: Payload?, generation: UInt32, cancelled: Bool) {
            self.payload = payload
            self.generation = generation
            self.cancelled = cancelled
        }
    }

    @usableFromInline var heap: [Node] = []
    @usableFromInline var slots: [Slot] = []
    @usableFromInline var freeSlots: [Int32] = []
    @usableFromInline var nextSequence: UInt64 = 0
    @usableFromInline var cancelledCount = 0

    /// Priorities must fit in 16 bits; sequences in 48 (2.8e14 events per queue).
    public static var priorityRange: ClosedRange<Int> { -32_768...32_767 }

    @inlinable public init() {}

    /// Live (not cancelled) events.
    @inlinable public var count: Int { heap.count - cancelledCount }
    @inlinable public var isEmpty: Bool { count == 0 }

    /// Adds an event; the returned id cancels it.
    @inlinable @discardableResult
    public mutating func schedule(_ payload: Payload, at instant: Instant, priority: Int = 0) -> EventID {
        precondition(Self.priorityRange.contains(priority), "event priority \(priority) is outside \(Self.priorityRange)")
        let sequence = nextSequence
        nextSequence += 1
        let slot: Int32
        let generation: UInt32
        if let free = freeSlots.popLast() {
            slot = free
            generation = slots[Int(slot)].generation
            slots[Int(slot)] = Slot(payload: payload, generation: generation, cancelled: false)
        } else {
            slot = Int32(slots.count)
            generation = 0
            slots.append(Slot(payload: payload, generation: 0, cancelled: false))
        }
        let order = UInt64(priority + 32_768) << 48 | sequence
        heap.append(Node(instant: instant.millisecondsSince1970, order: order, slot: slot))
        siftUp(heap.count - 1)
        return EventID(rawValue: UInt64(generation) << 32 | UInt64(UInt32(slot)))
    }

    /// Cancels a scheduled event. Returns false when the id is unknown, already taken, or already cancelled.
    @discardableResult
    public mutating func cancel(_ id: EventID) -> Bool {
        let slot = Int(id.rawValue & 0xFFFF_FFFF)
        let generation = UInt32(id.rawValue >> 32)
        guard slot < slots.count, slots[slot].generation == generation, slots[slot].payload != nil, !slots[slot].cancelled
        else { return false }
        slots[slot].cancelled = true
        cancelledCount += 1
        return true
    }

    /// The next live event, without removing it.
    public func peek() -> ScheduledEvent<Payload>? {
        var best: Node?
        if let top = heap.first, !slots[Int(top.slot)].cancelled {
            best = top
        } else {
            for node in heap where !slots[Int(node.slot)].cancelled {
                if best == nil || node.precedes(best!) { best = node }
            }
        }
        return best.map { event($0, payload: slots[Int($0.slot)].payload!, generation: slots[Int($0.slot)].generation) }
    }

    /// Removes and returns the next live event.
    @inlinable
    public mutating func popNext() -> ScheduledEvent<Payload>? {
        while !heap.isEmpty {
            let top = removeTop()
            let slot = Int(top.slot)
            let taken = slots[slot]
            release(slot)
            if taken.cancelled {
                cancelledCount -= 1
                continue
            }
            return event(top, payload: taken.payload!, generation: taken.generation)
        }
        return nil
    }

    /// Removes and returns the next live event if it is due at or before `limit`.
    @inlinable
    public mutating func popNext(notAfter limit: Instant) -> ScheduledEvent<Payload>? {
        while let top = heap.first, slots[Int(top.slot)].cancelled {
            _ = removeTop()
            cancelledCount -= 1
            release(Int(top.slot))
        }
        guard let top = heap.first, top.instant <= limit.millisecondsSince1970 else { return nil }
        return popNext()
    }

    @inlinable
    mutating func release(_ slot: Int) {
        slots[slot] = Slot(payload: nil, generation: slots[slot].generation &+ 1, cancelled: false)
        freeSlots.append(Int32(slot))
    }

    @inlinable
    func event(_ node: Node, payload: Payload, generation: UInt32) -> ScheduledEvent<Payload> {
        let sequence = node.order & 0x0000_FFFF_FFFF_FFFF
        let priority = Int(node.order >> 48) - 32_768
        return ScheduledEvent(
            id: EventID(rawValue: UInt64(generation) << 32 | UInt64(UInt32(node.slot))),
            instant: Instant(millisecondsSince1970: node.instant), priority: priority, sequence: sequence,
            payload: payload)
    }

    @inlinable
    mutating func removeTop() -> Node {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return last }
        let top = heap[0]
        siftDownFromRoot(replacingWith: last)
        return top
    }

    @inlinable
    mutating func siftUp(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { h in
            var child = start
            let node = h[child]
            while child > 0 {
                let parent = (child - 1) >> 1
                guard node.precedes(h[parent]) else { break }
                h[child] = h[parent]
                child = parent
            }
            h[child] = node
        }
    }

    /// Bottom-up: walk the hole at the root down to a leaf along the smaller children, then sift `node` up from there.
    @inlinable
    mutating func siftDownFromRoot(replacingWith node: Node) {
        heap.withUnsafeMutableBufferPointer { h in
            let count = h.count
            var hole = 0
            while true {
                let left = 2 * hole + 1
                guard left < count else { break }
                let right = left + 1
                let smaller = right < count && h[right].precedes(h[left]) ? right : left
                h[hole] = h[smaller]
                hole = smaller
            }
            while hole > 0 {
                let parent = (hole - 1) >> 1
                guard node.precedes(h[parent]) else { break }
                h[hole] = h[parent]
                hole = parent
            }
            h[hole] = node
        }
    }
}

extension EventQueue: Sendable where Payload: Sendable {}
extension EventQueue.Node: Sendable {}
extension EventQueue.Slot: Sendable where Payload: Sendable {}
