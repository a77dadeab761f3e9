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
