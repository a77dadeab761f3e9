extension Array {
    /// Moves the element at `index` out of the array, leaving `placeholder` in its slot, with one move and no copy
    /// (no reference counting of what the element holds). Put it back with ``restoreElement(_:at:)``. The slot holds a
    /// valid value throughout, so reading it meanwhile is safe (it reads the placeholder). Traps when `index` is out
    /// of bounds.
    ///
    /// For a store that takes a large value out of a table for the length of one transition and puts it back
    /// (`SimulatedStore.apply`): a swap would copy it three times.
    package mutating func takeElement(at index: Int, leaving placeholder: Element) -> Element {
        precondition(indices.contains(index), "takeElement(at:) index \(index) is outside 0..<\(count)")
        return withUnsafeMutableBufferPointer { elements in
            let slot = elements.baseAddress! + index
            let element = slot.move()
            slot.initialize(to: placeholder)
            return element
        }
    }

    /// Moves `element` back into the slot at `index` (taken with ``takeElement(at:leaving:)``); `element` then holds
    /// what the slot held (the placeholder). Traps when `index` is out of bounds.
    package mutating func restoreElement(_ element: inout Element, at index: Int) {
        precondition(indices.contains(index), "restoreElement(_:at:) index \(index) is outside 0..<\(count)")
        withUnsafeMutableBufferPointer { elements in
            let slot = elements.baseAddress! + index
            withUnsafeMutablePointer(to: &element) { held in
                let placeholder = slot.move()
                slot.moveInitialize(from: held, count: 1)
                held.initialize(to: placeholder)
            }
        }
    }
}
