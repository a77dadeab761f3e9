/// A value's fields held out of line in an immutable box, shared by every copy of the value that has the same
/// fields: copying the value then retains one reference instead of each string and array among the fields.
/// The owner never changes a box in place; a setter stores a new box. Equality and hashing are the fields'
/// (the same box is equal without comparing them).
///
/// Used by values that are copied far more often than changed: ``IntroductoryOffer`` (carried by states, plan
/// changes, transactions and renewal info, most of which have none) and ``TransactionRecord`` (the fields a
/// subscription's renewals share).
final class SharedFields<Fields: Hashable & Sendable>: Hashable, Sendable {
    let fields: Fields

    init(_ fields: Fields) { self.fields = fields }

    static func == (a: SharedFields, b: SharedFields) -> Bool { a === b || a.fields == b.fields }
    func hash(into hasher: inout Hasher) { hasher.combine(fields) }
}
