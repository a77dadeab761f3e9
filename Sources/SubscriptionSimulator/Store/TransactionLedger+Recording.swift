extension TransactionLedger {
    /// Records a transaction of the customer at `position` at `now` (the one place every transaction goes through):
    /// checks its dates (rule transaction-dates-in-order, ``TransactionRecord/hasConsistentDates``; `seed` names the
    /// run in the message), indexes a one-time purchase by customer in `directory`, sets the customer's account fields
    /// once (storefront, price in it, `appTransactionId`, `appAccountToken`: ``AccountFields``) and puts it last in the
    /// modification order. `productAt`: the product's place in the catalogue when the caller knows it. Returns the
    /// record's shared fields. Always inlined into ``SimulatedStore/appendTransaction(_:customerAt:productAt:)``, as it
    /// was written there (issue 27).
    @inline(__always)
    mutating func record(
        _ record: consuming TransactionRecord, customerAt position: Int, productAt product: Int?,
        directory: inout CustomerDirectory, serverRequests: ServerRequestRecords, locks: CommitmentPriceLocks,
        catalog: Catalog, defaultStorefront: Storefront, seed: UInt64, at now: Instant
    ) -> TransactionRecord.Box {
        assert(
            record.hasConsistentDates,
            "transaction \(record.transactionId) of \(record.customer) breaks rule transaction-dates-in-order: "
                + "originalPurchaseDate \(record.originalPurchaseDate), purchaseDate \(record.purchaseDate), "
                + "expiresDate \(record.expiresDate.map(\.description) ?? "none") (seed \(seed))")
        if record.productType != .autoRenewable {
            directory.addOneTimePurchase(transactions.endIndex, toCustomerAt: position)
        }
        // The record is the caller's, consumed: changed in place and moved into the ledger, never copied (a copy
        // retains its shared fields and identifiers).
        AccountFields.add(
            to: &record, customerAt: position, productAt: product, directory: directory,
            serverRequests: serverRequests, locks: locks, catalog: catalog, defaultStorefront: defaultStorefront)
        return append(record, at: now)
    }

    /// With ``StoreRetention/liveState``: drops the superseded renewals (``keepOnly(_:)``) once they are half as many
    /// as the live ones and more than 4,096 (the window's storage, kept between compactions, is then half the live
    /// transactions' size), so on average each new transaction moves two live ones. A transaction is live
    /// while a chain of `book` names it as its current one, it is a one-time purchase (those grow with the scenario's
    /// actions, not with time), or a refund request names it (a chain's first transaction is needed only as an index).
    mutating func dropSupersededRenewals(book: SubscriptionBook) {
        guard transactions.windowCount > max(4096, transactions.pinnedCount / 2) else { return }
        var live: [Int] = []
        live.reserveCapacity(book.chains.count + refundRequests.count)
        // By index: a chain is large, and copying each out would retain every string in it.
        for index in book.chains.indices where book.chains[index].currentTransactionIndex >= 0 {
            live.append(book.chains[index].currentTransactionIndex)
        }
        for request in refundRequests { live.append(request.transactionIndex) }
        keepOnly(live)
    }
}
