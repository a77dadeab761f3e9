import Testing
@testable import SubscriptionSimulator

/// Engine's safe API for moving a large value out of an array slot and back (used by the store's `apply`).
@Suite struct ArraySlotMovesTests {
    @Test func takingLeavesThePlaceholderAndRestoringSwapsItBack() {
        var values = ["a", "b", "c"].map { String(repeating: $0, count: 40) }  // not small strings
        var held = values.takeElement(at: 1, leaving: "")
        #expect(held == String(repeating: "b", count: 40))
        #expect(values == [String(repeating: "a", count: 40), "", String(repeating: "c", count: 40)])
        held += "!"
        values.restoreElement(&held, at: 1)
        #expect(values[1] == String(repeating: "b", count: 40) + "!")
        #expect(held == "", "the held value is the placeholder afterwards")
    }

    @Test func aSharedArrayIsCopiedBeforeTheMove() {
        var values = [[1], [2]]
        let copy = values
        let held = values.takeElement(at: 0, leaving: [])
        #expect(held == [1] && values == [[], [2]])
        #expect(copy == [[1], [2]], "the other holder of the buffer is untouched")
    }
}
