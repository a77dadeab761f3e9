import Dispatch
import Testing

@testable import SubscriptionSimulator

@Suite struct ConcurrentSlotsTests {
    @Test func eachThreadFillsItsSlotAndValuesKeepTheOrder() {
        let slots = ConcurrentSlots<[Int]>(count: 64)
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            slots.set(index, Array(repeating: index, count: index + 1))
        }
        let values = slots.values
        #expect(values.count == 64)
        #expect(values.enumerated().allSatisfy { $0.element == Array(repeating: $0.offset, count: $0.offset + 1) })
    }

    @Test func takeEmptiesTheSlotSoTheTakerHoldsTheOnlyCopy() {
        final class Box {}
        let slots = ConcurrentSlots<Box>(count: 2)
        slots.set(0, Box())
        slots.set(1, Box())
        var taken = slots.take(0)
        #expect(isKnownUniquelyReferenced(&taken))
        slots.set(0, taken)
        #expect(slots.values.count == 2 && slots.values[0] === taken)
    }
}
