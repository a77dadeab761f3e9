/// What both event queues offer, over one event type (``QueuedEvent``): the binary heap (``EventQueue``, the store's:
/// any order of scheduling, groups, O(log n)) and the radix queue (``RadixEventQueue``, the cohort model's: monotone
/// scheduling, O(1) amortized with a million events pending). Both pop in (instant, priority, scheduling order) and
/// are value types with copy-on-write storage. Each keeps the id it can cancel by in its own form (a slot and its
/// generation, or a key and a sequence number), so the id is the storage's associated type.
///
/// Their shared tests are written once against this protocol and run on both (`EventQueueContractTests`). The
/// hot paths call the concrete types, never the protocol.
protocol EventQueueing<Payload> {
    associatedtype Payload
    associatedtype ID: Hashable & Sendable

    init()
    /// Live (not cancelled) events.
    var count: Int { get }
    var isEmpty: Bool { get }
    /// Events held, cancelled ones included (for tests of compaction).
    var storedCount: Int { get }
    /// Cancelled events are kept until they outnumber the live ones by this.
    static var compactionFloor: Int { get }

    /// Adds an event (on the radix queue: not before the last popped one); the returned id cancels it.
    @discardableResult
    mutating func schedule(_ payload: Payload, at instant: Instant, priority: Int) -> ID
    /// Cancels a scheduled event. Returns false when the id is unknown, already taken, or already cancelled.
    @discardableResult
    mutating func cancel(_ id: ID) -> Bool
    /// The next event, without removing it.
    mutating func peek() -> QueuedEvent<Payload, ID>?
    /// Removes and returns the next event.
    mutating func popNext() -> QueuedEvent<Payload, ID>?
}

extension EventQueue: EventQueueing {
    /// ``schedule(_:at:priority:group:)`` in group 0.
    @inlinable @discardableResult
    mutating func schedule(_ payload: Payload, at instant: Instant, priority: Int) -> EventID {
        schedule(payload, at: instant, priority: priority, group: 0)
    }
}

extension RadixEventQueue: EventQueueing {}
