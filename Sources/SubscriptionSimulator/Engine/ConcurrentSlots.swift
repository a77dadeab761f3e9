/// Values made by work run at once, one slot each: each slot is written (and taken) by exactly one thread, and the
/// slots are read after all have finished (`DispatchQueue.concurrentPerform` returns only then). The slots are one
/// buffer allocated up front, so threads writing different slots never touch shared state (no array copy-on-write
/// check, no write-back of the array itself). Used by population mode's parts and by HTTP delivery's concurrent
/// attempts.
package final class ConcurrentSlots<Value>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Value?>

    /// `count` empty slots.
    package init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.baseAddress?.deinitialize(count: slots.count)
        slots.deallocate()
    }

    /// Fills slot `index`.
    package func set(_ index: Int, _ value: Value) { slots[index] = value }

    /// The value of slot `index`, which is emptied (so the taking thread holds the only copy).
    package func take(_ index: Int) -> Value {
        defer { slots[index] = nil }
        return slots[index]!
    }

    /// Every slot's value, in order; each slot must be filled.
    package var values: [Value] { slots.map { $0! } }
}
