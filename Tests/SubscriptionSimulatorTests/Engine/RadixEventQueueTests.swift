import Testing

@testable import SubscriptionSimulator

/// The radix queue keeps ``EventQueue``'s order (instant, priority, scheduling order) for every monotone workload.
@Suite struct RadixEventQueueTests {
    typealias Reference = EventQueueTests.Reference

    static func instant(_ milliseconds: Int64) -> Instant { Instant(millisecondsSince1970: milliseconds) }

    /// A reference model: every live event kept in a list, the next one found by a linear minimum.
    struct Model {
        var live: [(reference: Reference, id: RadixEventID)] = []
        var minimum: Reference? { live.map(\.reference).min() }
        mutating func popNext() -> Reference? {
            guard let index = live.indices.min(by: { live[$0].reference < live[$1].reference }) else { return nil }
            return live.remove(at: index).reference
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 42, 2026])
    func popsInTheOrderOfASortedReferenceWithRandomCancels(seed: UInt64) {
        var random = RandomSource(seed: seed)
        var queue = RadixEventQueue<Int>()
        var reference: [Reference] = []
        var ids: [RadixEventID] = []
        for n in 0..<5000 {
            let instant = Int64(random.nextInt(in: -500...500))
            let priority = random.nextInt(in: -1...2)
            ids.append(queue.schedule(n, at: Self.instant(instant), priority: priority))
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
            #expect(event.id.sequence == UInt64(event.payload), "seed \(seed)")
        }
        #expect(popped == expected, "seed \(seed)")
        #expect(queue.isEmpty)
    }

    /// Schedules (never before the last pop), pops, peeks and cancels in a random mix, checking every step against
    /// the reference model. Instants spread over small and very large gaps so events travel through many buckets,
    /// and peeks followed by earlier schedules exercise the lowering of `last`.
    @Test(arguments: [UInt64(1), 2, 3, 4, 2026])
    func mixedWorkloadMatchesAReferenceModel(seed: UInt64) {
        var random = RandomSource(seed: seed)
        var queue = RadixEventQueue<Int>()
        var model = Model()
        var lastPopped = Reference(instant: Int64.min, priority: -128, sequence: 0)
        var scheduled = 0
        for _ in 0..<6_000 {
            switch random.nextInt(in: 0...11) {
            case 0...4:
                let base = lastPopped.instant == Int64.min ? 0 : lastPopped.instant
                let spread: [Int64] = [0, 3, 50, 86_400_000, 1 << 40]
                var instant = base + Int64(random.nextInt(in: 0...Int(spread[random.nextInt(in: 0...4)])))
                var priority = random.nextInt(in: -2...2)
                if instant == lastPopped.instant && priority < lastPopped.priority { priority = lastPopped.priority }
                if lastPopped.instant == Int64.min { instant -= 25 }
                #expect(queue.canSchedule(at: Self.instant(instant), priority: priority), "seed \(seed)")
                let id = queue.schedule(scheduled, at: Self.instant(instant), priority: priority)
                #expect(id.sequence == UInt64(scheduled), "seed \(seed)")
                model.live.append((Reference(instant: instant, priority: priority, sequence: UInt64(scheduled)), id))
                scheduled += 1
            case 5...7:
                let expected = model.popNext()
                let event = queue.popNext()
                #expect(event.map { UInt64($0.payload) } == expected?.sequence, "seed \(seed)")
                #expect(event?.instant.millisecondsSince1970 == expected?.instant, "seed \(seed)")
                #expect(event?.priority == expected?.priority, "seed \(seed)")
                if let expected { lastPopped = expected }
            case 8:
                let peeked = queue.peek()
                #expect(peeked.map { UInt64($0.payload) } == model.minimum?.sequence, "seed \(seed)")
                #expect(queue.nextInstant()?.millisecondsSince1970 == model.minimum?.instant, "seed \(seed)")
            default:
                guard !model.live.isEmpty else { continue }
                let index = random.nextInt(in: 0...(model.live.count - 1))
                let id = model.live.remove(at: index).id
                let didCancel = queue.cancel(id)
                let again = queue.cancel(id)
                #expect(didCancel && !again, "seed \(seed)")
            }
            #expect(queue.count == model.live.count, "seed \(seed)")
        }
        while let expected = model.popNext() {
            let event = queue.popNext()
            #expect(event.map { UInt64($0.payload) } == expected.sequence, "seed \(seed)")
        }
        #expect(queue.isEmpty)
    }

    /// The hold pattern of simbench, at a size where many events share buckets and keys: every pop matches a
    /// binary heap fed the same operations.
    @Test func holdPatternMatchesTheBinaryHeap() {
        var random = RandomSource(seed: 9)
        var radix = RadixEventQueue<Int>()
        var heap = EventQueue<Int>()
        for n in 0..<2_000 {
            let at = Self.instant(Int64(random.nextInt(in: 0...1_000)))
            radix.schedule(n, at: at)
            heap.schedule(n, at: at)
        }
        for n in 2_000..<40_000 {
            let fromRadix = radix.popNext()!
            let fromHeap = heap.popNext()!
            #expect(fromRadix.payload == fromHeap.payload && fromRadix.instant == fromHeap.instant)
            let at = fromHeap.instant.adding(milliseconds: Int64(random.nextInt(in: 0...1_000)))
            radix.schedule(n, at: at)
            heap.schedule(n, at: at)
        }
    }

    @Test func equalInstantsRunByPriorityThenSchedulingOrder() {
        var queue = RadixEventQueue<String>()
        let t = Self.instant(10)
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

    @Test func schedulingBeforeTheLastPopIsRefusedButAfterAPeekIsNot() {
        var queue = RadixEventQueue<Int>()
        queue.schedule(1, at: Self.instant(100), priority: 1)
        queue.schedule(2, at: Self.instant(500))
        #expect(queue.popNext()?.payload == 1)
        #expect(!queue.canSchedule(at: Self.instant(99)))
        #expect(!queue.canSchedule(at: Self.instant(100), priority: 0), "a priority already passed at the instant")
        #expect(queue.canSchedule(at: Self.instant(100), priority: 1))
        #expect(queue.peek()?.payload == 2)
        // The peek looked at 500; 200 is still after the last pop.
        #expect(queue.canSchedule(at: Self.instant(200)))
        queue.schedule(3, at: Self.instant(200))
        #expect(queue.popNext()?.payload == 3)
        #expect(queue.popNext()?.payload == 2)
    }

    @Test func popBeforeLeavesAnEventExactlyAtTheLimit() {
        var queue = RadixEventQueue<Int>()
        queue.schedule(1, at: Self.instant(99), priority: 127)
        queue.schedule(2, at: Self.instant(100), priority: -128)
        #expect(queue.popNext(before: Self.instant(100))?.payload == 1)
        #expect(queue.popNext(before: Self.instant(100)) == nil)
        #expect(queue.count == 1)
        // Still schedulable before the event that was looked at.
        queue.schedule(3, at: Self.instant(99), priority: 127)
        #expect(queue.popNext()?.payload == 3)
    }

    @Test func cancellingTwiceAfterPoppingOrAnUnknownIdReturnsFalse() {
        var queue = RadixEventQueue<Int>()
        let id = queue.schedule(1, at: Self.instant(1))
        let first = queue.cancel(id)
        let second = queue.cancel(id)
        #expect(first && !second)
        let other = queue.schedule(2, at: Self.instant(1))
        let sameKey = queue.schedule(3, at: Self.instant(1))
        _ = queue.popNext()
        let afterPop = queue.cancel(other)
        let unknown = queue.cancel(RadixEventID(key: sameKey.key, sequence: 999))
        #expect(!afterPop && !unknown)
        let pendingAtTheSameKey = queue.cancel(sameKey)
        #expect(pendingAtTheSameKey, "pending in bucket 0, at the key just popped")
        #expect(queue.isEmpty && queue.popNext() == nil)
    }

    @Test func cancelledEventsAreCompactedAwayWhenTheyOutnumberLiveOnes() {
        var queue = RadixEventQueue<Int>()
        var ids: [RadixEventID] = []
        for n in 0..<1_000 { ids.append(queue.schedule(n, at: Self.instant(Int64(1_000 - n)))) }
        for id in ids[10...] { queue.cancel(id) }
        #expect(queue.count == 10)
        #expect(queue.storedCount <= 10 + 10 + RadixEventQueue<Int>.compactionFloor + 1)
        let cancelledAfterCompaction = queue.cancel(ids[9])
        #expect(cancelledAfterCompaction)
        var popped: [Int] = []
        while let event = queue.popNext() { popped.append(event.payload) }
        #expect(popped == [8, 7, 6, 5, 4, 3, 2, 1, 0])
    }

    @Test func aCopyIsIndependentOfTheOriginal() {
        var original = RadixEventQueue<Int>()
        var ids: [RadixEventID] = []
        for n in 0..<10 { ids.append(original.schedule(n, at: Self.instant(Int64(n)))) }
        var popped = original
        _ = popped.popNext()
        var cancelled = original
        cancelled.cancel(ids[5])
        func drain(_ queue: RadixEventQueue<Int>) -> [Int] {
            var queue = queue
            var payloads: [Int] = []
            while let event = queue.popNext() { payloads.append(event.payload) }
            return payloads
        }
        #expect(drain(original) == Array(0..<10))
        #expect(drain(popped) == Array(1..<10))
        #expect(drain(cancelled) == [0, 1, 2, 3, 4, 6, 7, 8, 9])
        #expect(original.count == 10 && original.cancel(ids[5]), "the original's ids still work")
    }

    @Test func extremeInstantsAndPrioritiesKeepTheirOrder() {
        var queue = RadixEventQueue<String>()
        let range = EventQueue<String>.instantRange
        let priorities = EventQueue<String>.priorityRange
        queue.schedule("latest", at: Self.instant(range.upperBound), priority: priorities.lowerBound)
        queue.schedule("zero-late", at: Self.instant(0), priority: priorities.upperBound)
        queue.schedule("zero-early", at: Self.instant(0), priority: priorities.lowerBound)
        queue.schedule("before-1970", at: Self.instant(-1))
        queue.schedule("earliest", at: Self.instant(range.lowerBound), priority: priorities.upperBound)
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

    /// Payloads that are references are released exactly once, whether popped, cancelled, compacted or left behind.
    @Test func referencePayloadsAreReleased() {
        final class Token {}
        weak var popped: Token?
        weak var cancelled: Token?
        weak var leftBehind: Token?
        do {
            var queue = RadixEventQueue<Token>()
            let a = Token()
            let b = Token()
            let c = Token()
            popped = a
            cancelled = b
            leftBehind = c
            queue.schedule(a, at: Self.instant(1))
            let id = queue.schedule(b, at: Self.instant(2))
            queue.schedule(c, at: Self.instant(3))
            _ = queue.popNext()
            queue.cancel(id)
            _ = queue.peek()
        }
        #expect(popped == nil && cancelled == nil && leftBehind == nil)
    }
}
