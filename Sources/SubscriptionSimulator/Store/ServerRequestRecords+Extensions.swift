/// What a single renewal-date extension answers and keeps (issue 44): rule extension-request-identifier-once over the
/// records of extensions made with a `requestIdentifier`. The store facade extends the subscription itself.
extension ServerRequestRecords {
    /// Rule **extension-request-identifier-once** [assumed]: a `requestIdentifier` ("a unique identifier you provide to
    /// track each subscription-renewal-date extension request", Apple's `requestIdentifier` page) that already
    /// extended the subscription `originalTransactionId` is answered with that extension's record again, without
    /// extending twice or sending anything: a client retrying a request it did not see answered must not spend one of
    /// the two extensions a year. Apple does not say what a repeated identifier does. Without an identifier (`nil`)
    /// every call extends: `nil`.
    func earlierExtension(of originalTransactionId: String, requestIdentifier: String?) -> RenewalExtensionRecord? {
        requestIdentifier.flatMap {
            renewalExtension(originalTransactionId: originalTransactionId, requestIdentifier: $0)
        }
    }

    /// Keeps `record` when its extension was made with a `requestIdentifier` (rule
    /// extension-request-identifier-once); an extension without one is answered and forgotten.
    mutating func recordExtension(_ record: RenewalExtensionRecord) {
        if record.requestIdentifier != nil { self.record(record) }
    }
}

extension RenewalExtensionRecord {
    /// The record of an extension of the subscription `originalTransactionId` made at `now`, whose current
    /// transaction is now `current` (its `webOrderLineItemId`, and its new `expiresDate` as `effectiveDate`).
    init(
        extended current: TransactionRecord, of originalTransactionId: String, requestIdentifier: String?,
        at now: Instant
    ) {
        self.init(
            originalTransactionId: originalTransactionId, requestIdentifier: requestIdentifier,
            webOrderLineItemId: current.webOrderLineItemId, effectiveDate: current.expiresDate, extendedAt: now)
    }
}
