/// The ledger's Family Sharing rules: what a member's own transaction of a shared purchase is, and its revocation.
/// The facade appends the records these rules make (``SimulatedStore/appendTransaction(_:customerAt:productAt:)``
/// sets the account fields of every transaction) and sends the notifications.
extension TransactionLedger {
    /// The transaction of the member's chain `chain` (their customer at `owner` in `directory`) made from the
    /// purchaser's record as below, with the member's ids by rule ids-per-customer
    /// (``CustomerDirectory/nextTransactionIdentifier(ofCustomerAt:ids:)``): the member holds their transaction; a
    /// first one's id is the chain's `originalTransactionId`. A renewal or recovery charges each fan-out member from
    /// the purchaser's record as built, before the purchaser's storefront price and account fields are set: the
    /// product's own price (or the offer's) in the product's `currency`.
    static func memberSubscriptionTransaction(
        of chain: borrowing SubscriptionChain, ownerAt owner: Int, like purchaserRecord: TransactionRecord,
        purchaseDate: Instant, reason: ChargeReason, currency: String?, directory: inout CustomerDirectory,
        ids: IdentifierSource, at now: Instant
    ) -> TransactionRecord {
        let transactionIdentifier: StoreIdentifier =
            chain.currentTransactionIndex < 0
            ? .text(chain.originalTransactionId) : directory.nextTransactionIdentifier(ofCustomerAt: owner, ids: ids)
        return memberSubscriptionTransaction(
            like: purchaserRecord, member: chain.customer, transactionIdentifier: transactionIdentifier,
            originalTransactionId: chain.originalTransactionId,
            webOrderLineItem: directory.nextWebOrderLineItemIdentifier(ofCustomerAt: owner, ids: ids),
            purchaseDate: purchaseDate, originalPurchaseDate: chain.originalPurchaseDate, reason: reason,
            currency: currency, at: now)
    }

    /// a member's transaction of a shared subscription has its own ids, `FAMILY_SHARED`, the purchaser's
    /// product, price, currency and `expiresDate`; no offer fields, no revocation. `currency`: the member's currency
    /// when it is not the purchaser's record's (a renewal: the product's own).
    static func memberSubscriptionTransaction(
        like purchaserRecord: TransactionRecord, member: String, transactionIdentifier: StoreIdentifier,
        originalTransactionId: String, webOrderLineItem: StoreIdentifier, purchaseDate: Instant,
        originalPurchaseDate: Instant, reason: ChargeReason, currency: String?, at now: Instant
    ) -> TransactionRecord {
        var record = purchaserRecord
        record.transactionIdentifier = transactionIdentifier
        record.originalTransactionId = originalTransactionId
        record.webOrderLineItem = webOrderLineItem
        record.customer = member
        record.ownership = .familyShared
        record.purchaseDate = purchaseDate
        record.originalPurchaseDate = originalPurchaseDate
        record.reason = reason
        record.offer = nil
        record.revocation = nil
        record.lastModified = now
        if let currency { record.currency = currency }
        return record
    }

    /// a member's transaction of a shared non-consumable is the purchaser's with the member's own id (its
    /// `originalTransactionId` too), `FAMILY_SHARED`, bought now.
    static func memberNonConsumableTransaction(
        like purchaserRecord: TransactionRecord, member: String, transactionId: String, at now: Instant
    ) -> TransactionRecord {
        var record = purchaserRecord
        record.transactionId = transactionId
        record.originalTransactionId = transactionId
        record.customer = member
        record.ownership = .familyShared
        record.purchaseDate = now
        record.originalPurchaseDate = now
        record.lastModified = now
        return record
    }

    /// Whether transaction `index` is not revoked: a member's shared non-consumable is revoked at most once.
    func isUnrevoked(_ index: Int) -> Bool { transactions[index].revocation == nil }

    /// REVOKE of a member's transaction `index` (§4.6, A-11; S-NT, S-RR, S-RT): revocationDate `now`,
    /// `revocationType` FAMILY_REVOKE, `revocationReason` 0 or the purchaser's on a refund, no `revocationPercentage`
    /// (``Revocation/percentage``).
    mutating func revokeFamilyShared(_ index: Int, reason: Int32, at now: Instant) {
        revoke(index, Revocation(date: now, reason: reason, kind: .familyRevoke), at: now)
    }
}
