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
/// Complexity: `schedule` O(log n); `popNext` O(log n) amortized; `peek` O(1) after cancelled events at the top have
/// been discarded; `cancel` O(1) (lazy: a cancelled event is dropped when it reaches the top of the heap).
/// Invariant: every node's key is not greater than its children's keys.
public struct EventQueue<Payload> {
    @usableFromInline
    struct Key: Comparable {
        @usableFromInline let instant: Int64
        @usableFromInline let priority: Int
        @usableFromInline let sequence: UInt64

        @inlinable init(instant: Int64, priority: Int, sequence: UInt64) {
            self.instant = instant
            self.priority = priority
            self.sequence = sequence
        }

        @inlinable static func < (a: Key, b: Key) -> Bool {
            if a.instant != b.instant { return a.instant < b.instant }
            if a.priority != b.priority { return a.priority < b.priority }
            return a.sequence < b.sequence
        }
    }

    @usableFromInline
    struct Node {
        @usableFromInline var key: Key
        @usableFromInline var payload: Payload

        @inlinable init(key: Key, payload: Payload) {
            self.key = key
            self.payload = payload
        }
    }

    @usableFromInline var heap: [Node] = []
    @usableFromInline var nextSequence: UInt64 = 0
    /// Sequences of cancelled events still in the heap.
    @usableFromInline var cancelled: Set<UInt64> = []

    @inlinable public init() {}

    /// Live (not cancelled) events.
    @inlinable public var count: Int { heap.count - cancelled.count }
    @inlinable public var isEmpty: Bool { count == 0 }

    /// Adds an event; the returned id cancels it.
    @inlinable @discardableResult
    public mutating func schedule(_ payload: Payload, at instant: Instant, priority: Int = 0) -> EventID {
        let sequence = nextSequence
        nextSequence += 1
        heap.append(Node(key: Key(instant: instant.millisecondsSince1970, priority: priority, sequence: sequence), payload: payload))
        siftUp(heap.count - 1)
        return EventID(rawValue: sequence)
    }

    /// Cancels a scheduled event. Returns false when the id is unknown, already taken, or already cancelled.
    @discardableResult
    public mutating func cancel(_ id: EventID) -> Bool {
        guard id.rawValue < nextSequence, !cancelled.contains(id.rawValue),
            heap.contains(where: { $0.key.sequence == id.rawValue })
        else { return false }
        cancelled.insert(id.rawValue)
        return true
    }

    /// The next live event, without removing it.
    public func peek() -> ScheduledEvent<Payload>? {
        if cancelled.isEmpty { return heap.first.map(Self.event) }
        // Cancelled events may sit at the top; find the smallest live one without mutating.
        var best: Node?
        for node in heap where !cancelled.contains(node.key.sequence) {
            if best == nil || node.key < best!.key { best = node }
        }
        return best.map(Self.event)
    }

    /// Removes and returns the next live event.
    @inlinable
    public mutating func popNext() -> ScheduledEvent<Payload>? {
        while !heap.isEmpty {
            let top = removeTop()
            if !cancelled.isEmpty, cancelled.remove(top.key.sequence) != nil { continue }
            return Self.event(top)
        }
        return nil
    }

    /// Removes and returns the next live event if it is due at or before `limit`.
    @inlinable
    public mutating func popNext(notAfter limit: Instant) -> ScheduledEvent<Payload>? {
        discardCancelledTop()
        guard let top = heap.first, top.key.instant <= limit.millisecondsSince1970 else { return nil }
        return popNext()
    }

    @inlinable
    mutating func discardCancelledTop() {
        while !cancelled.isEmpty, let top = heap.first, cancelled.contains(top.key.sequence) {
            cancelled.remove(top.key.sequence)
            _ = removeTop()
        }
    }

    @inlinable
    static func event(_ node: Node) -> ScheduledEvent<Payload> {
        ScheduledEvent(
            id: EventID(rawValue: node.key.sequence), instant: Instant(millisecondsSince1970: node.key.instant),
            priority: node.key.priority, sequence: node.key.sequence, payload: node.payload)
    }

    @inlinable
    mutating func removeTop() -> Node {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return last }
        let top = heap[0]
        heap[0] = last
        siftDown(0)
        return top
    }

    @inlinable
    mutating func siftUp(_ start: Int) {
        var child = start
        let node = heap[child]
        while child > 0 {
            let parent = (child - 1) >> 1
            guard node.key < heap[parent].key else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = node
    }

    @inlinable
    mutating func siftDown(_ start: Int) {
        let count = heap.count
        var parent = start
        let node = heap[parent]
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            let smaller = right < count && heap[right].key < heap[left].key ? right : left
            guard heap[smaller].key < node.key else { break }
            heap[parent] = heap[smaller]
            parent = smaller
        }
        heap[parent] = node
    }
}

extension EventQueue: Sendable where Payload: Sendable {}
extension EventQueue.Node: Sendable where Payload: Sendable {}
extension EventQueue.Key: Sendable {}
