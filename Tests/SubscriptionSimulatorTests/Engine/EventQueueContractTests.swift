import Testing

@testable import SubscriptionSimulator

/// The contract both event queues keep (``EventQueueing``), written once and run on each storage: the binary heap
/// (``EventQueue``) and the radix queue (``RadixEventQueue``). What only one of them does (groups, renumbering,
/// `popNext(notAfter:)`; monotone scheduling, `popNext(before:)`) stays in `EventQueueTests` and
/// `RadixEventQueueTests`.
@Suite struct EventQueueContractTests {
    typealias Reference = EventQueueTests.Reference

    enum Storage: String, CaseIterable, CustomStringConvertible {
        case binaryHeap, radix
        var description: String { rawValue }
    }

    static func instant(_ milliseconds: Int64) -> Instant { Instant(millisecondsSince1970: milliseconds) }

    /// Runs `body` on an empty queue of the storage (a generic function, so each storage is tested as its own type).
    static func on<P>(_ storage: Storage, _ payload: P.Type, _ body: some QueueBody<P>) {
        switch storage {
        case .binaryHeap: body.run(EventQueue<P>())
        case .radix: body.run(RadixEventQueue<P>())
        }
    }

    @Test(arguments: Storage.allCases, [UInt64(1), 2, 3, 42, 2026])
    func popsInTheOrderOfASortedReferenceWithRandomCancels(storage: Storage, seed: UInt64) {
        Self.on(storage, Int.self, SortedWithCancels(seed: seed))
    }

    struct SortedWithCancels: QueueBody {
        typealias Payload = Int
        let seed: UInt64
        func run<Q: EventQueueing<Int>>(_ empty: Q) {
            var queue = empty
            var random = RandomSource(seed: seed)
            var reference: [Reference] = []
            var ids: [Q.ID] = []
            for n in 0..<5000 {
                let instant = Int64(random.nextInt(in: -500...500))
                let priority = random.nextInt(in: -1...2)
                ids.append(queue.schedule(n, at: EventQueueContractTests.instant(instant), priority: priority))
                reference.append(Reference(instant: instant, priority: priority, sequence: UInt64(n)))
            }
            var cancelled: Set<UInt64> = []
            for _ in 0..<800 {
                let n = random.nextInt(in: 0...(ids.count - 1))
                let wasLive = !cancelled.contains(UInt64(n))
                let didCancel = queue.cancel(ids[n])
                #expect(didCancel == wasLive, "seed \(seed)")
                cancelled.insert(UInt64(n))
            }
            let expected = reference.filter { !cancelled.contains($0.sequence) }.sorted()
            #expect(queue.count == expected.count, "seed \(seed)")
            var popped: [Reference] = []
            while let event = queue.popNext() {
                popped.append(
                    Reference(
                        instant: event.instant.millisecondsSince1970, priority: event.priority,
                        sequence: UInt64(event.payload)))
            }
            #expect(popped == expected, "seed \(seed)")
            #expect(queue.isEmpty)
        }
    }

    /// Schedules (each at or after the last popped instant) and pops in a random mix: time never goes back.
    @Test(arguments: Storage.allCases)
    func interleavedScheduleAndPopKeepOrder(storage: Storage) {
        struct Body: QueueBody {
            typealias Payload = Int
            func run<Q: EventQueueing<Int>>(_ empty: Q) {
                var queue = empty
                var random = RandomSource(seed: 11)
                var now: Int64 = 0
                for n in 0..<20_000 {
                    if random.nextInt(in: 0...2) > 0 || queue.isEmpty {
                        let at = EventQueueContractTests.instant(now + Int64(random.nextInt(in: 0...1000)))
                        queue.schedule(n, at: at, priority: 0)
                    } else {
                        let e = queue.popNext()!
                        #expect(e.instant.millisecondsSince1970 >= now)
                        now = e.instant.millisecondsSince1970
                    }
                }
            }
        }
        Self.on(storage, Int.self, Body())
    }

    @Test(arguments: Storage.allCases)
    func equalInstantsRunByPriorityThenSchedulingOrder(storage: Storage) {
        struct Body: QueueBody {
            typealias Payload = String
            func run<Q: EventQueueing<String>>(_ empty: Q) {
                var queue = empty
                let t = EventQueueContractTests.instant(10)
                queue.schedule("action-1", at: t, priority: 1)
                queue.schedule("store-1", at: t, priority: 0)
                queue.schedule("action-2", at: t, priority: 1)
                queue.schedule("store-2", at: t, priority: 0)
                var order: [String] = []
                while let e = queue.popNext() {
                    order.append(e.payload)
                    if e.payload == "store-1" { queue.schedule("store-3", at: t, priority: 0) }
                }
                #expect(order == ["store-1", "store-2", "store-3", "action-1", "action-2"])
            }
        }
        Self.on(storage, String.self, Body())
    }

    @Test(arguments: Storage.allCases)
    func peekNeverReturnsACancelledEvent(storage: Storage) {
        struct Body: QueueBody {
            typealias Payload = Int
            func run<Q: EventQueueing<Int>>(_ empty: Q) {
                var queue = empty
                let first = queue.schedule(1, at: EventQueueContractTests.instant(1), priority: 0)
                queue.schedule(2, at: EventQueueContractTests.instant(2), priority: 0)
                queue.cancel(first)
                #expect(queue.peek()?.payload == 2)
                #expect(queue.count == 1)
            }
        }
        Self.on(storage, Int.self, Body())
    }

    @Test(arguments: Storage.allCases)
    func cancellingTwiceOrAfterPoppingReturnsFalse(storage: Storage) {
        struct Body: QueueBody {
            typealias Payload = Int
            func run<Q: EventQueueing<Int>>(_ empty: Q) {
                var queue = empty
                let id = queue.schedule(1, at: EventQueueContractTests.instant(1), priority: 0)
                let first = queue.cancel(id)
                let second = queue.cancel(id)
                #expect(first && !second)
                let other = queue.schedule(2, at: EventQueueContractTests.instant(1), priority: 0)
                _ = queue.popNext()
                let afterPop = queue.cancel(other)
                #expect(!afterPop)
                #expect(queue.isEmpty && queue.popNext() == nil)
            }
        }
        Self.on(storage, Int.self, Body())
    }

    @Test(arguments: Storage.allCases)
    func cancelledEventsAreCompactedAwayWhenTheyOutnumberLiveOnes(storage: Storage) {
        struct Body: QueueBody {
            typealias Payload = Int
            func run<Q: EventQueueing<Int>>(_ empty: Q) {
                var queue = empty
                var ids: [Q.ID] = []
                for n in 0..<1_000 {
                    ids.append(queue.schedule(n, at: EventQueueContractTests.instant(Int64(1_000 - n)), priority: 0))
                }
                // Cancel all but the earliest-scheduled ten: none is next until the end.
                for id in ids[10...] { queue.cancel(id) }
                #expect(queue.count == 10)
                #expect(queue.storedCount <= 10 + 10 + Q.compactionFloor + 1)
                // Ids of the survivors still cancel after the compaction.
                let cancelledAfterCompaction = queue.cancel(ids[9])
                #expect(cancelledAfterCompaction)
                var popped: [Int] = []
                while let event = queue.popNext() { popped.append(event.payload) }
                #expect(popped == [8, 7, 6, 5, 4, 3, 2, 1, 0])
            }
        }
        Self.on(storage, Int.self, Body())
    }

    /// A value type: each change to a copy leaves the original as it was (the storage is copied on write).
    @Test(arguments: Storage.allCases)
    func aCopyIsIndependentOfTheOriginal(storage: Storage) {
        struct Body: QueueBody {
            typealias Payload = Int
            func run<Q: EventQueueing<Int>>(_ empty: Q) {
                var original = empty
                var ids: [Q.ID] = []
                for n in 0..<10 {
                    ids.append(original.schedule(n, at: EventQueueContractTests.instant(Int64(n)), priority: 0))
                }
                var popped = original
                _ = popped.popNext()
                var cancelled = original
                cancelled.cancel(ids[5])
                var scheduled = original
                scheduled.schedule(99, at: EventQueueContractTests.instant(0), priority: -1)
                func drain(_ queue: Q) -> [Int] {
                    var queue = queue
                    var payloads: [Int] = []
                    while let event = queue.popNext() { payloads.append(event.payload) }
                    return payloads
                }
                #expect(drain(original) == Array(0..<10))
                #expect(drain(popped) == Array(1..<10))
                #expect(drain(cancelled) == [0, 1, 2, 3, 4, 6, 7, 8, 9])
                #expect(drain(scheduled) == [99] + Array(0..<10))
                #expect(original.count == 10 && original.cancel(ids[5]), "the original's ids still work")
            }
        }
        Self.on(storage, Int.self, Body())
    }

    @Test(arguments: Storage.allCases)
    func extremeInstantsAndPrioritiesKeepTheirOrder(storage: Storage) {
        struct Body: QueueBody {
            typealias Payload = String
            func run<Q: EventQueueing<String>>(_ empty: Q) {
                var queue = empty
                let range = EventQueue<String>.instantRange
                let priorities = EventQueue<String>.priorityRange
                let at = EventQueueContractTests.instant
                queue.schedule("latest", at: at(range.upperBound), priority: priorities.lowerBound)
                queue.schedule("zero-late", at: at(0), priority: priorities.upperBound)
                queue.schedule("zero-early", at: at(0), priority: priorities.lowerBound)
                queue.schedule("before-1970", at: at(-1), priority: 0)
                queue.schedule("earliest", at: at(range.lowerBound), priority: priorities.upperBound)
                var order: [String] = []
                while let event = queue.popNext() {
                    order.append(event.payload)
                    if event.payload == "latest" {
                        #expect(event.instant.millisecondsSince1970 == range.upperBound)
                        #expect(event.priority == priorities.lowerBound)
                    }
                }
                #expect(order == ["earliest", "before-1970", "zero-early", "zero-late", "latest"])
            }
        }
        Self.on(storage, String.self, Body())
    }

    /// Payloads that are references are released exactly once, whether popped, cancelled, compacted or left behind.
    @Test(arguments: Storage.allCases)
    func referencePayloadsAreReleased(storage: Storage) {
        final class Token {}
        struct Body: QueueBody {
            typealias Payload = Token
            func run<Q: EventQueueing<Token>>(_ empty: Q) {
                weak var popped: Token?
                weak var cancelled: Token?
                weak var leftBehind: Token?
                do {
                    var queue = empty
                    let a = Token()
                    let b = Token()
                    let c = Token()
                    popped = a
                    cancelled = b
                    leftBehind = c
                    queue.schedule(a, at: EventQueueContractTests.instant(1), priority: 0)
                    let id = queue.schedule(b, at: EventQueueContractTests.instant(2), priority: 0)
                    queue.schedule(c, at: EventQueueContractTests.instant(3), priority: 0)
                    _ = queue.popNext()
                    queue.cancel(id)
                    _ = queue.peek()
                }
                #expect(popped == nil && cancelled == nil && leftBehind == nil)
            }
        }
        Self.on(storage, Token.self, Body())
    }
}

/// A test body generic over the queue (Swift has no generic closures).
protocol QueueBody<Payload> {
    associatedtype Payload
    func run<Q: EventQueueing<Payload>>(_ empty: Q)
}
