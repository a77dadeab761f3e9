/// Rule order-key: where a record stands among what one store emits. Its instant (milliseconds since 1970), its
/// order group, and its sequence.
///
/// - The **group** is the tie-break among the events and records of one instant: the event queue runs a store's
///   events of one instant and priority by group, lower first (``EventQueue``); whoever makes the store gives each
///   customer a group, and a customer given none has group 0 (events then run in the order scheduled). A record
///   carries the group of the customer it is about, 0 for a record about the app itself.
/// - The **sequence** counts the keys stamped before it by the same store: keys are unique, and within one group they
///   increase in the order the records were emitted.
///
/// The store stamps the keys only when asked (``SimulatedStore/stampOrderKeys()``) and never reads them: what orders
/// the records of several stores by their keys lives above it.
package struct OrderKey: Hashable, Sendable, Comparable {
    package var instant: Int64
    package var group: UInt32
    package var sequence: Int

    package init(instant: Int64, group: UInt32, sequence: Int) {
        self.instant = instant
        self.group = group
        self.sequence = sequence
    }

    /// (instant, group, sequence) order.
    package static func < (lhs: OrderKey, rhs: OrderKey) -> Bool {
        if lhs.instant != rhs.instant { return lhs.instant < rhs.instant }
        if lhs.group != rhs.group { return lhs.group < rhs.group }
        return lhs.sequence < rhs.sequence
    }
}
