/// The order in which transactions were created and changed, which the history's `revision` token reads (rule
/// history-revision-is-a-modification-token, `ServerAPI/ServerAPIRequests.swift`). Every creation (`appendTransaction`)
/// and every change of a recorded transaction (a refund, a Family Sharing revocation) goes through `markModified`.
extension SimulatedStore {
    /// Puts a transaction last in the modification order (its creation or a change: refund, revocation).
    mutating func markModified(_ index: Int) {
        transactionModifications += 1
        transactions[index].lastModified = now
        transactions[index].modificationSequence = transactionModifications
    }
}
