/// The ledger's one-time purchase rules (consumables, non-consumables, non-renewing subscriptions): whether the
/// customer may buy, the term a non-renewing purchase starts, the transaction a purchase is, the customer's
/// unrefunded purchase, and what a restore re-delivers. The facade (`Store/SimulatedStore.swift`, "Purchases")
/// appends the record, schedules the term's end and sends ONE_TIME_CHARGE. Facts: reference §1.1, §7.2 (S-NT).
extension TransactionLedger {
    /// The latest own, unrefunded purchase of one-time product `productId` by the customer at `position` in
    /// `directory` (an index in the ledger; nil when the customer is unknown or has none).
    func unrefundedOneTimePurchase(
        _ productId: String, ofCustomerAt position: Int?, in directory: CustomerDirectory
    ) -> Int? {
        guard let position else { return nil }
        return latestUnrefundedPurchase(productId, among: directory.records[position].oneTimePurchases)
    }

    /// Rules non-consumable-bought-once and non-renewing-needs-duration for a purchase of `product` at `now`:
    /// refused when the customer already owns the non-consumable (`owned`: their unrefunded purchase of it) or a
    /// non-renewing product has no duration. Returns the end of the term a non-renewing purchase starts (nil for
    /// other types).
    static func checkOneTimePurchase(
        of product: Product, by customer: String, owned: Int?, at now: Instant
    ) throws(StoreError) -> Instant? {
        switch product.type {
        case .nonConsumable:
            if owned != nil { throw .nonConsumableAlreadyOwned(customer: customer, productId: product.id) }
            return nil
        case .nonRenewing:
            guard let duration = product.duration else { throw .nonRenewingWithoutDuration(product.id) }
            return now.adding(duration)
        case .consumable, .autoRenewable:
            return nil
        }
    }

    /// A one-time purchase's transaction: its id is also its `originalTransactionId`, purchased `now`, no expiry, the
    /// offer's price when the customer redeems one (`Store/SimulatedStore+Offers.swift`), otherwise the product's, in
    /// the product's currency.
    static func oneTimePurchase(
        of product: Product, by customer: String, transactionId: String, offer: SubscriptionOffer?, at now: Instant
    ) -> TransactionRecord {
        TransactionRecord(
            transactionId: transactionId, originalTransactionId: transactionId, webOrderLineItemId: nil,
            customer: customer, productId: product.id, productType: product.type, subscriptionGroupIdentifier: nil,
            purchaseDate: now, originalPurchaseDate: now, expiresDate: nil, ownership: .purchased, reason: .purchase,
            offer: offer, price: offer?.price ?? product.price, currency: product.currency, revocation: nil,
            lastModified: now)
    }

    /// What a restore re-delivers to `customer` (reference §7.2): their non-consumables (bought or shared with
    /// them) that are not revoked, in creation order.
    func restoredNonConsumables(of customer: String) -> [TransactionRecord] {
        transactions.filter { $0.customer == customer && $0.revocation == nil && $0.productType == .nonConsumable }
    }

    /// Apple's full refund of the one-time purchase `index` at `now` with `revocationReason` `reason`
    /// (reference §2.7, S-RR): revoked (REFUND, full), and a non-renewing term ends.
    mutating func refundOneTimeInFull(_ index: Int, reason: Int32, at now: Instant) {
        refundOneTime(index, Revocation(date: now, reason: reason, kind: .refundFull), at: now)
    }
}
