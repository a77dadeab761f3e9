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

    /// An unknown id at a held key cancels nothing; an event still pending at the key just popped (bucket 0) does
    /// (cancelling twice or after a pop: `EventQueueContractTests`).
    @Test func cancellingAtTheKeyJustPopped() {
        var queue = RadixEventQueue<Int>()
        queue.schedule(1, at: Self.instant(1))
        let sameKey = queue.schedule(2, at: Self.instant(1))
        _ = queue.popNext()
        let unknown = queue.cancel(RadixEventID(key: sameKey.key, sequence: 999))
        #expect(!unknown)
        let pendingAtTheSameKey = queue.cancel(sameKey)
        #expect(pendingAtTheSameKey, "pending in bucket 0, at the key just popped")
        #expect(queue.isEmpty && queue.popNext() == nil)
    }
}
