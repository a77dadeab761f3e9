import Foundation
import Testing

@testable import SubscriptionSimulator

/// ``Handoff``: the queue between the run and its output thread, and between the timeline's two formatting threads.
@Suite struct HandoffTests {
    /// Puts 0..<count on a thread of its own, then closes.
    final class Producer: BackgroundJob {
        let queue: Handoff<Int>
        let count: Int
        init(_ queue: Handoff<Int>, count: Int) {
            self.queue = queue
            self.count = count
        }
        func work() {
            for value in 0..<count { queue.put(value) }
            queue.close()
        }
    }

    @Test(arguments: [1, 2, 64])
    func itemsArriveInOrderThenNilOnceClosed(capacity: Int) {
        let queue = Handoff<Int>(capacity: capacity)
        startThread(Producer(queue, count: 10_000))
        var received: [Int] = []
        while let value = queue.take() { received.append(value) }
        #expect(received == Array(0..<10_000))
        #expect(queue.take() == nil)
    }

    @Test func aFullQueueHoldsNoMoreThanItsCapacity() {
        let queue = Handoff<Int>(capacity: 3)
        startThread(Producer(queue, count: 100))
        // The producer waits once three items wait: none is dropped, none is queued beyond the capacity.
        func waiting() -> Int {
            queue.condition.lock()
            defer { queue.condition.unlock() }
            return queue.items.count
        }
        var polls = 0
        while waiting() < 3 && polls < 1000 {
            Thread.sleep(forTimeInterval: 0.005)
            polls += 1
        }
        #expect(waiting() == 3)
        Thread.sleep(forTimeInterval: 0.02)
        #expect(waiting() == 3)
        var received: [Int] = []
        while let value = queue.take() { received.append(value) }
        #expect(received == Array(0..<100))
    }

    @Test(arguments: [1, 3, 8])
    func takeAllTakesAtLeastItsMinimumInOrderUntilClosedAndDrained(minimum: Int) {
        let queue = Handoff<Int>(capacity: 8)
        startThread(Producer(queue, count: 1001))
        var received: [Int] = []
        var taken: [Int] = [-1]
        var takes: [Int] = []
        repeat {
            queue.takeAll(atLeast: minimum, into: &taken)
            received += taken
            takes.append(taken.count)
        } while !taken.isEmpty
        #expect(received == Array(0..<1001))
        // Every take but the last two (the rest once closed, then nothing) holds at least `minimum` items, and none
        // more than the queue holds.
        #expect(takes.dropLast(2).allSatisfy { $0 >= minimum && $0 <= 8 })
        #expect(takes.last == 0)
        queue.takeAll(atLeast: minimum, into: &taken)
        #expect(taken.isEmpty)
    }

    @Test func takeIfAnyNeverWaits() {
        let queue = Handoff<String>()
        #expect(queue.takeIfAny() == nil)
        queue.put("a")
        queue.put("b")
        #expect(queue.takeIfAny() == "a")
        queue.close()
        #expect(queue.take() == "b")
        #expect(queue.take() == nil)
        #expect(queue.takeIfAny() == nil)
    }
}
