/// Identifies one event scheduled on a ``RadixEventQueue``, for cancellation: its key and its sequence number.
@usableFromInline package struct RadixEventID: Hashable, Sendable {
    /// The event's (instant, priority) key, as the queue orders it.
    @usableFromInline package let key: UInt64
    /// The event's scheduling order: 0 for the queue's first event, then 1, 2, ...
    @usableFromInline package let sequence: UInt64

    @inlinable package init(key: UInt64, sequence: UInt64) {
        self.key = key
        self.sequence = sequence
    }
}

/// A monotone event queue for very large pending sets: a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) with one
/// level per byte of the key (256 buckets a level), over the same (instant, priority) key as ``EventQueue``, with
/// the same order: instant, then priority, then the order of scheduling.
///
/// **Monotone.** A discrete-event simulation never schedules before its clock, so the queue asks for a little more:
/// an event's (instant, priority) must not precede the last popped one's (``canSchedule(at:priority:)``; a
/// violation stops the program, as the binary heap's range checks do). At the instant just popped, an event of a
/// priority already passed cannot be scheduled; ``EventQueue`` accepts it. Peeking does not count as popping:
/// after `peek` (which may move `last` up to the next event's key), an event may still be scheduled anywhere after
/// the last popped one; `last` is then lowered to it (the buckets below its first differing bit are merged).
///
/// **How it works.** `last` is the least key held (at first 0; after a pop, the popped key). Bucket 0 holds the
/// events whose key equals `last`; the others hold a key by the highest byte in which it differs from `last` (its
/// level, 0...7) and the key's value in that byte (its digit): 8 x 256 buckets, found by one XOR, one count of
/// leading zeros and a shift. When bucket 0 is empty, the lowest non-empty bucket (a bitmap finds it) is emptied: its
/// least key becomes `last`, and its events move to buckets of lower levels, in order (they agree with the new `last`
/// from their level up). An event moves at most once per level, in practice two to four times, in sequential passes
/// over arrays: no comparisons between events and no pointer chasing, which is why it stays fast with a million
/// events pending, where a binary heap's sift misses the cache at most levels. (With one bucket per bit instead of
/// per byte, measured: each event moved about 20 times and the queue was slower than the binary heap.)

/// **Order of equal keys.** Events with equal keys always land in the same bucket, appended in scheduling order, and
/// a bucket is emptied front to back into lower buckets that are empty at that moment; bucket 0 is taken from the
/// front. So among equal keys, the first scheduled is the first popped, with no sequence number compared.
///
/// **Cancellation** is lazy: a cancelled event's sequence number goes into a table (with its key), and the event is
/// dropped when it reaches the front of bucket 0 or moves between buckets; when cancelled events held outnumber live
/// ones by more than ``compactionFloor``, every bucket is filtered (O(n)). An id is pending when it is not in that
/// table and its key is above `last` (no event below `last` is held), or equal to `last` with its sequence number in
/// bucket 0, whose sequence numbers increase front to back (a binary search). A cancelled id stays in the table
/// until an event after it is popped (16 bytes each; the table is purged when it doubles), so cancelling it again
/// is recognised.
///
/// Complexity: `schedule` O(1); `popNext` O(1) amortized (each event moves at most 8 times, once per byte of its
/// key's distance to `last`); `cancel` O(1) expected, O(log n) for the key just popped; memory O(n) for n pending
/// (a bucket's buffer is at most twice the most events it held, and large buffers are freed when emptied).
///
/// Limits: as ``EventQueue``: instants within ±2^55 ms of 1970, priorities in -128...127.
///
/// A value type: a copy is independent (its storage is copied on the first change).
@usableFromInline package struct RadixEventQueue<Payload> {
    @usableFromInline var storage: RadixQueueStorage<Payload>

    /// Cancelled events are kept (and dropped lazily) until they outnumber the live ones by this.
    @usableFromInline package static var compactionFloor: Int { 64 }

    @inlinable package init() { storage = RadixQueueStorage() }

    @inlinable var buckets: UnsafeMutablePointer<RadixBuckets<Payload>> { storage.buckets }

    /// Live (not cancelled) events.
    @inlinable package var count: Int { buckets.pointee.storedCount - buckets.pointee.cancelledHeld }
    @inlinable package var isEmpty: Bool { count == 0 }
    /// Events held, cancelled ones included (for tests of compaction).
    var storedCount: Int { buckets.pointee.storedCount }

    /// The key of (instant, priority), ordered as unsigned integers: the instant times 256 plus the priority biased
    /// by 128, with the sign bit flipped (the same key as the binary heap's).
    @inlinable
    package static func key(instant: Instant, priority: Int) -> UInt64 {
        UInt64(bitPattern: instant.millisecondsSince1970 &* 256 &+ Int64(priority &+ 128)) ^ (1 << 63)
    }

    @inlinable static func instant(ofKey key: UInt64) -> Instant {
        Instant(millisecondsSince1970: Int64(bitPattern: key ^ (1 << 63)) >> 8)
    }

    @inlinable static func priority(ofKey key: UInt64) -> Int { Int(truncatingIfNeeded: key & 0xFF) - 128 }

    /// Whether an event at (instant, priority) may be scheduled now: in range, and not before the last popped event.
    @inlinable
    package func canSchedule(at instant: Instant, priority: Int = 0) -> Bool {
        EventQueue<Payload>.priorityRange.contains(priority)
            && EventQueue<Payload>.instantRange.contains(instant.millisecondsSince1970)
            && Self.key(instant: instant, priority: priority) >= buckets.pointee.lastPopped
    }

    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Adds an event at or after the last popped one (``canSchedule(at:priority:)``); the returned id cancels it.
    @inlinable @discardableResult
    package mutating func schedule(_ payload: Payload, at instant: Instant, priority: Int = 0) -> RadixEventID {
        precondition(
            EventQueue<Payload>.priorityRange.contains(priority),
            "event priority \(priority) is outside \(EventQueue<Payload>.priorityRange)")
        precondition(
            EventQueue<Payload>.instantRange.contains(instant.millisecondsSince1970),
            "event instant \(instant) is outside the queue's range")
        let key = Self.key(instant: instant, priority: priority)
        precondition(
            key >= buckets.pointee.lastPopped,
            "event at \(instant) priority \(priority) precedes the last popped event: a radix queue is monotone")
        makeUnique()
        return buckets.pointee.insert(payload, key: key)
    }

    /// Cancels a scheduled event. Returns false when the id is unknown, already taken, or already cancelled.
    @discardableResult
    @usableFromInline package mutating func cancel(_ id: RadixEventID) -> Bool {
        guard buckets.pointee.isPending(id) else { return false }
        makeUnique()
        buckets.pointee.cancel(id)
        if buckets.pointee.cancelledHeld > count + Self.compactionFloor { buckets.pointee.compact() }
        return true
    }

    /// The next event, without removing it. Mutating (unlike the heap's): finding it may empty a bucket into lower
    /// ones; the order and the events are unchanged.
    @usableFromInline package mutating func peek() -> RadixScheduledEvent<Payload>? {
        guard count > 0 else { return nil }
        makeUnique()
        let entry = buckets.pointee.front()
        return RadixScheduledEvent(
            id: RadixEventID(key: entry.key, sequence: entry.sequence), instant: Self.instant(ofKey: entry.key),
            priority: Self.priority(ofKey: entry.key), payload: entry.payload)
    }

    /// The instant of the next event, if any (mutating, as ``peek()``).
    @usableFromInline package mutating func nextInstant() -> Instant? {
        guard count > 0 else { return nil }
        makeUnique()
        return Self.instant(ofKey: buckets.pointee.front().key)
    }

    /// Removes and returns the next event.
    @inlinable
    package mutating func popNext() -> RadixScheduledEvent<Payload>? {
        guard count > 0 else { return nil }
        makeUnique()
        let entry = buckets.pointee.removeFront()
        return RadixScheduledEvent(
            id: RadixEventID(key: entry.key, sequence: entry.sequence), instant: Self.instant(ofKey: entry.key),
            priority: Self.priority(ofKey: entry.key), payload: entry.payload)
    }

    /// Removes the next event if it is due before `limit` (strictly earlier: the cohort model's horizon rule) and
    /// returns its key and payload; the fastest way to run a loop.
    @inlinable
    package mutating func popNext(before limit: Instant) -> (instant: Instant, priority: Int, payload: Payload)? {
        guard count > 0 else { return nil }
        makeUnique()
        let limitKey = Self.key(instant: limit, priority: EventQueue<Payload>.priorityRange.lowerBound)
        guard buckets.pointee.front().key < limitKey else { return nil }
        let entry = buckets.pointee.removeFront()
        return (Self.instant(ofKey: entry.key), Self.priority(ofKey: entry.key), entry.payload)
    }
}

extension RadixEventQueue: @unchecked Sendable where Payload: Sendable {
    // Safe: the storage is never shared between two queues while either changes it (copy on write), and a queue's
    // own mutations need exclusive access to the queue.
}

/// An event taken from a ``RadixEventQueue`` (its `group` is always 0).
@usableFromInline package typealias RadixScheduledEvent<Payload> = QueuedEvent<Payload, RadixEventID>

/// One pending event: key, sequence number and payload, stored in place (no slot table to look up on a pop).
@usableFromInline
struct RadixEntry<Payload> {
    @usableFromInline var key: UInt64
    @usableFromInline var sequence: UInt64
    @usableFromInline var payload: Payload

    @inlinable init(key: UInt64, sequence: UInt64, payload: Payload) {
        self.key = key
        self.sequence = sequence
        self.payload = payload
    }
}

/// One bucket: a growable buffer of entries without bounds checks. Bucket 0 is read from `head`.
@usableFromInline
struct RadixBucket<Payload> {
    @usableFromInline var entries: UnsafeMutablePointer<RadixEntry<Payload>>?
    @usableFromInline var count = 0
    @usableFromInline var capacity = 0
    /// Only bucket 0 is read from the front; the others are always emptied whole.
    @usableFromInline var head = 0

    @inlinable init() {}

    @inlinable
    mutating func append(_ entry: RadixEntry<Payload>) {
        if count == capacity { grow() }
        (entries! + count).initialize(to: entry)
        count &+= 1
    }

    @inlinable
    mutating func grow() {
        // Bucket 0 may have consumed entries at the front: slide the rest down instead of growing when that frees
        // at least half.
        if head > 0 && head >= count / 2 {
            let live = count - head
            (entries!).moveInitialize(from: entries! + head, count: live)
            count = live
            head = 0
            if count < capacity { return }
        }
        let grown = Swift.max(16, capacity * 2)
        let buffer = UnsafeMutablePointer<RadixEntry<Payload>>.allocate(capacity: grown)
        if let entries {
            buffer.moveInitialize(from: entries + head, count: count - head)
            entries.deallocate()
        }
        count -= head
        head = 0
        entries = buffer
        capacity = grown
    }

    /// Destroys the entries in `head..<count` and frees the buffer.
    @usableFromInline
    mutating func deallocate() {
        if let entries {
            (entries + head).deinitialize(count: count - head)
            entries.deallocate()
        }
        entries = nil
        count = 0
        head = 0
        capacity = 0
    }
}

/// The buckets behind a ``RadixEventQueue`` (reached through a pointer for the reason given at ``EventHeap``).
///
/// Bucket 0 holds the keys equal to `last`. The others are indexed by (level, digit): a key whose highest byte that
/// differs from `last`'s is byte `level` (0...7, from the least significant) goes to bucket 1 + 256 x level + its
/// byte `level`. Within a level, a higher digit means higher keys, and any key of a level is below every key of the
/// levels above, so the lowest non-empty bucket in (level, digit) order holds the least key.
@usableFromInline
struct RadixBuckets<Payload> {
    @usableFromInline static var bucketCount: Int { 1 + 8 * 256 }
    /// Empty buckets keep their buffers (refilling them costs no allocation and no copy on growth) while the room
    /// they hold, in entries, stays under the larger of this and the number of events held; beyond, an emptied
    /// bucket's buffer is freed. Memory stays proportional to the live set.
    @usableFromInline static var idleFloor: Int { 4096 }

    @usableFromInline var buckets: UnsafeMutablePointer<RadixBucket<Payload>>
    /// Bit (i - 1) % 64 of word (i - 1) / 64 set when bucket i (1...2048) is not empty.
    @usableFromInline var occupied: UnsafeMutablePointer<UInt64>
    /// Bit w set when word w of `occupied` is not zero.
    @usableFromInline var occupiedWords: UInt32 = 0
    /// The capacity (entries) of the buffers of empty buckets.
    @usableFromInline var idleCapacity = 0
    /// No pending key is below it; every event in bucket 0 has this key.
    @usableFromInline var last: UInt64 = 0
    /// The key popped last (0 at first); `last` is at or above it.
    @usableFromInline var lastPopped: UInt64 = 0
    @usableFromInline var nextSequence: UInt64 = 0
    /// Events held, cancelled ones included.
    @usableFromInline var storedCount = 0
    /// Sequence number to key of every cancelled event not known to be gone (see ``RadixEventQueue``).
    @usableFromInline var cancelled: [UInt64: UInt64] = [:]
    /// Cancelled events still held in a bucket.
    @usableFromInline var cancelledHeld = 0
    /// The table of cancelled ids is purged of keys below `lastPopped` when it grows past this.
    @usableFromInline var purgeThreshold = 1024

    @inlinable
    init() {
        buckets = .allocate(capacity: Self.bucketCount)
        buckets.initialize(repeating: RadixBucket(), count: Self.bucketCount)
        occupied = .allocate(capacity: 32)
        occupied.initialize(repeating: 0, count: 32)
    }

    @usableFromInline
    func copy() -> RadixBuckets {
        var copy = RadixBuckets()
        for index in 0..<Self.bucketCount {
            let source = buckets[index]
            for position in source.head..<source.count { copy.buckets[index].append(source.entries![position]) }
        }
        copy.occupied.update(from: occupied, count: 32)
        copy.occupiedWords = occupiedWords
        copy.recountIdleCapacity()
        copy.last = last
        copy.lastPopped = lastPopped
        copy.nextSequence = nextSequence
        copy.storedCount = storedCount
        copy.cancelled = cancelled
        copy.cancelledHeld = cancelledHeld
        copy.purgeThreshold = purgeThreshold
        return copy
    }

    @usableFromInline
    func deallocate() {
        for index in 0..<Self.bucketCount { buckets[index].deallocate() }
        buckets.deinitialize(count: Self.bucketCount)
        buckets.deallocate()
        occupied.deallocate()
    }

    /// The bucket of `key` relative to `last` (which it does not precede).
    @inlinable @inline(__always)
    func bucketIndex(_ key: UInt64) -> Int {
        let difference = key ^ last
        if difference == 0 { return 0 }
        let level = (63 &- difference.leadingZeroBitCount) &>> 3
        return 1 &+ level &<< 8 &+ Int(truncatingIfNeeded: (key &>> UInt64(level &<< 3)) & 0xFF)
    }

    @inlinable @inline(__always)
    mutating func markOccupied(_ index: Int) {
        let word = (index &- 1) &>> 6
        occupied[word] |= 1 &<< UInt64((index &- 1) & 63)
        occupiedWords |= 1 &<< UInt32(word)
    }

    @inlinable @inline(__always)
    mutating func markEmpty(_ index: Int) {
        let word = (index &- 1) &>> 6
        occupied[word] &= ~(1 &<< UInt64((index &- 1) & 63))
        if occupied[word] == 0 { occupiedWords &= ~(1 &<< UInt32(word)) }
    }

    /// The lowest non-empty bucket above 0 (there is one).
    @inlinable @inline(__always)
    func lowestOccupied() -> Int {
        let word = occupiedWords.trailingZeroBitCount
        return 1 &+ word &<< 6 &+ occupied[word].trailingZeroBitCount
    }

    @inlinable @inline(__always)
    mutating func place(_ entry: RadixEntry<Payload>) {
        let index = bucketIndex(entry.key)
        if buckets[index].count == 0 {
            // An empty bucket (above 0, `head` is always 0) starts to be used.
            idleCapacity &-= buckets[index].capacity
            if index > 0 { markOccupied(index) }
        }
        buckets[index].append(entry)
    }

    @inlinable
    mutating func insert(_ payload: Payload, key: UInt64) -> RadixEventID {
        if key < last { lowerLast(to: key) }
        let sequence = nextSequence
        nextSequence &+= 1
        place(RadixEntry(key: key, sequence: sequence, payload: payload))
        storedCount &+= 1
        return RadixEventID(key: key, sequence: sequence)
    }

    func isPending(_ id: RadixEventID) -> Bool {
        guard id.sequence < nextSequence, id.key >= last, cancelled[id.sequence] == nil else { return false }
        if id.key > last { return true }
        // Bucket 0: sequence numbers increase from head to count.
        let bucket = buckets[0]
        var low = bucket.head
        var high = bucket.count
        while low < high {
            let middle = (low + high) / 2
            let sequence = bucket.entries![middle].sequence
            if sequence == id.sequence { return true }
            if sequence < id.sequence { low = middle + 1 } else { high = middle }
        }
        return false
    }

    /// Makes bucket 0 start with a live event (there is one: the caller checked the live count).
    @inlinable
    mutating func settleFront() {
        while true {
            if buckets[0].head == buckets[0].count {
                buckets[0].head = 0
                buckets[0].count = 0
                idleCapacity &+= buckets[0].capacity
                refill()
                continue  // the least key may have been a cancelled event, dropped on the way
            }
            if cancelledHeld == 0 { return }
            let front = buckets[0].entries![buckets[0].head]
            guard cancelled[front.sequence] != nil else { return }
            (buckets[0].entries! + buckets[0].head).deinitialize(count: 1)
            buckets[0].head &+= 1
            storedCount &-= 1
            cancelledHeld &-= 1
        }
    }

    /// Empties the lowest non-empty bucket into lower ones; its least key becomes `last`. Bucket 0 is empty, and so
    /// is every bucket below the one emptied: they receive its events in order.
    @inlinable
    mutating func refill() {
        let index = lowestOccupied()
        let source = buckets[index]
        let entries = source.entries!
        var least = entries[0].key
        var most = least
        for position in 1..<source.count {
            let key = entries[position].key
            if key < least { least = key }
            if key > most { most = key }
        }
        last = least
        markEmpty(index)
        if least == most && cancelledHeld == 0 {
            // One key (as when many events fall on one instant): the buffer becomes bucket 0 as it is, in order.
            swap(&buckets[0], &buckets[index])
            return
        }
        let keep = idleCapacity &+ source.capacity <= Swift.max(Self.idleFloor, storedCount)
        if keep {
            buckets[index].count = 0
            idleCapacity &+= source.capacity
        } else {
            buckets[index] = RadixBucket()
        }
        for position in 0..<source.count {
            let entry = (entries + position).move()
            if cancelledHeld > 0 && cancelled[entry.sequence] != nil {
                storedCount &-= 1
                cancelledHeld &-= 1
                continue
            }
            place(entry)
        }
        if !keep { entries.deallocate() }
    }

    @inlinable
    mutating func front() -> RadixEntry<Payload> {
        settleFront()
        return buckets[0].entries![buckets[0].head]
    }

    @inlinable
    mutating func removeFront() -> RadixEntry<Payload> {
        settleFront()
        let entry = (buckets[0].entries! + buckets[0].head).move()
        buckets[0].head &+= 1
        storedCount &-= 1
        lastPopped = entry.key
        return entry
    }

    /// Makes `key` (below `last`, not below `lastPopped`: only after a peek) the new `last`. With b the highest byte
    /// where they differ: the events of bucket 0 and of the levels below b agree with `last` on byte b and above, so
    /// relative to `key` they all belong to bucket (b, byte b of `last`), which is empty (the events of level b have a
    /// higher byte b than `last`); the levels from b up keep their buckets. Equal keys stay together and in order.
    @usableFromInline
    mutating func lowerLast(to key: UInt64) {
        let level = (63 - (key ^ last).leadingZeroBitCount) >> 3
        let target = 1 + level << 8 + Int((last >> UInt64(level << 3)) & 0xFF)
        for index in 0..<(1 + level << 8) {
            guard buckets[index].count > buckets[index].head, let entries = buckets[index].entries else { continue }
            for position in buckets[index].head..<buckets[index].count {
                buckets[target].append((entries + position).move())
            }
            buckets[index].head = 0
            buckets[index].count = 0
            if index > 0 { markEmpty(index) }
        }
        if buckets[target].count > 0 { markOccupied(target) }
        last = key
        recountIdleCapacity()
    }

    @usableFromInline
    mutating func recountIdleCapacity() {
        idleCapacity = 0
        for index in 0..<Self.bucketCount where buckets[index].count == buckets[index].head {
            idleCapacity += buckets[index].capacity
        }
    }

    mutating func cancel(_ id: RadixEventID) {
        cancelled[id.sequence] = id.key
        cancelledHeld += 1
        if cancelled.count > purgeThreshold {
            // Below the last popped key nothing is held, whatever `last` does later (it may be lowered to it).
            let floor = lastPopped
            cancelled = cancelled.filter { $0.value >= floor }
            purgeThreshold = Swift.max(1024, cancelled.count * 2)
        }
    }

    /// Drops every cancelled event: memory stays proportional to the live events. Order within buckets is kept.
    mutating func compact() {
        for index in 0..<Self.bucketCount {
            guard let entries = buckets[index].entries else { continue }
            var kept = 0
            for position in buckets[index].head..<buckets[index].count {
                let entry = (entries + position).move()
                if cancelled[entry.sequence] != nil {
                    storedCount -= 1
                    cancelledHeld -= 1
                } else {
                    (entries + kept).initialize(to: entry)
                    kept += 1
                }
            }
            buckets[index].head = 0
            buckets[index].count = kept
            if index > 0 && kept == 0 { markEmpty(index) }
        }
        recountIdleCapacity()
    }
}

/// Owns the memory of one ``RadixBuckets``; ``RadixEventQueue`` copies it on write.
@usableFromInline
final class RadixQueueStorage<Payload> {
    @usableFromInline let buckets: UnsafeMutablePointer<RadixBuckets<Payload>>

    @inlinable
    init(_ buckets: RadixBuckets<Payload> = RadixBuckets()) {
        self.buckets = .allocate(capacity: 1)
        self.buckets.initialize(to: buckets)
    }

    deinit {
        buckets.pointee.deallocate()
        buckets.deinitialize(count: 1)
        buckets.deallocate()
    }

    @usableFromInline
    func copy() -> RadixQueueStorage {
        RadixQueueStorage(buckets.pointee.copy())
    }
}
