/// The ledger's side of the App Store Server API's requests that change transactions (issue 44, item 1): the store
/// facade checks the request and records it in ``ServerRequestRecords``, then asks the ledger.
extension TransactionLedger {
    /// Set App Account Token: every transaction the customer bought with original id `id` carries `token` from `now`
    /// on, the existing ones included (each is changed, so it comes back in a history listing by `revision`); a family
    /// member's transactions never carry it (reference §4.5).
    mutating func setAppAccountToken(_ token: String, forOriginalTransactionId id: String, at now: Instant) {
        for index in transactions.indices
        where transactions[index].originalTransactionId == id && transactions[index].ownership == .purchased {
            setAppAccountToken(token, of: index, at: now)
        }
    }
}
