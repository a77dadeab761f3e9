extension CustomerDirectory {
    /// Re-derives the entitlements of every customer marked since the last refresh (``toRefresh``), in the order
    /// customers were first named, each once, and logs each change in `emissions` at `now` with the customer's event
    /// group (``EntitlementModel``: derived from `book`'s subscriptions and `ledger`'s one-time purchases, never
    /// toggled; every change comes with a notification to that customer, or with the end of a non-renewing term).
    mutating func refreshEntitlements(
        book: SubscriptionBook, ledger: TransactionLedger, emissions: inout EmissionLog, at now: Instant
    ) {
        guard !toRefresh.isEmpty else { return }
        sortRefreshes()
        var previous = -1
        for position in toRefresh where position != previous {
            previous = position
            if EntitlementModel.unchanged(ofCustomerAt: position, directory: self, book: book) { continue }
            let products = EntitlementModel.derived(
                ofCustomerAt: position, directory: self, book: book, ledger: ledger, at: now)
            if records[position].entitlements != products {
                setEntitlements(products, ofCustomerAt: position)
                emissions.append(
                    EntitlementChange(instant: now, customer: names[position], products: products),
                    group: records[position].eventGroup)
            }
        }
        clearRefreshes()
    }
}
