/// The charge of a subscription (issue 44, item 1): the record of the chain's next transaction, before the customer's
/// account fields are added and it is appended (``SimulatedStore/appendTransaction(_:customerAt:productAt:)``). The
/// chain and the catalogue are read in place: this runs on every renewal (issue 27). The commitment locks are the
/// store's: a charge that starts a new commitment drops its lock
/// (``CommitmentPriceLocks/priceForCharge(ofPeriod:of:inGroup:currency:)``).
extension TransactionLedger {
    /// The record the charge effect (``LifecycleEffect/charge(purchaseDate:expiresDate:offer:reason:)``) of `chain`
    /// appends next, with the product at `productIndex` in `catalog`; `chain`'s transaction indices are set to the
    /// place it will have. `transactionId` and `webOrderLineItem` come from the customer's counters (rule
    /// ids-per-customer); a first purchase's transactionId is its originalTransactionId (reference §2.5, S-TXID).
    @inline(__always)
    func chargeRecord(
        of chain: inout SubscriptionChain, transactionId: StoreIdentifier, webOrderLineItem: StoreIdentifier,
        purchaseDate: Instant, expiresDate: Instant, offer: IntroductoryOffer?, reason: ChargeReason,
        catalog: Catalog, productAt productIndex: Int, locks: inout CommitmentPriceLocks, at now: Instant
    ) -> TransactionRecord {
        let price = offer?.price ?? catalog.products[productIndex].price
        if chain.currentTransactionIndex < 0 { chain.firstTransactionIndex = transactions.endIndex }
        chain.currentTransactionIndex = transactions.endIndex
        // A renewal shares its previous transaction's fields when they still apply (same product; the
        // account fields are checked when the record is appended).
        let box: TransactionRecord.Box
        if let previous = chain.transactionFields, previous.fields.productId == chain.state.productId {
            box = previous
        } else {
            box = TransactionRecord.Box(
                TransactionRecord.Shared(
                    originalTransactionId: chain.originalTransactionId, customer: chain.customer,
                    productId: chain.state.productId, productType: .autoRenewable,
                    subscriptionGroupIdentifier: chain.groupIdentifier,
                    originalPurchaseDate: chain.originalPurchaseDate, ownership: .purchased,
                    currency: catalog.products[productIndex].currency, appTransactionId: "",
                    appAccountToken: nil, storefront: .unitedStates))
        }
        var record = TransactionRecord(
            box: box, transactionIdentifier: transactionId, webOrderLineItem: webOrderLineItem,
            purchaseDate: purchaseDate, expiresDate: expiresDate, reason: reason, offer: offer,
            price: price, revocation: nil, lastModified: now)
        if let commitment = chain.state.commitment {
            // As built, in the product's currency: the monthly plan's price (an offer's in its period) and
            // the whole commitment, 12 x that price, which members' shares keep; the purchaser's are
            // then priced in their storefront (addAccountFields).
            var monthly = catalog.products[productIndex].monthlyCommitment?.monthlyPrice
            // The commitment's own price, as built (members keep it, A-15).
            if !locks.isEmpty,
                let locked = locks.priceForCharge(
                    ofPeriod: commitment.billingPeriodNumber, of: chain.customer, inGroup: chain.groupIdentifier,
                    currency: catalog.products[productIndex].currency)
            {
                monthly = locked
            }
            if offer == nil, let monthly { record.price = monthly }
            record.commitment = TransactionCommitment(
                billingPeriodNumber: commitment.billingPeriodNumber,
                totalBillingPeriods: CommitmentPlan.totalBillingPeriods,
                expiresDate: commitment.expiresDate,
                price: monthly.map(CommitmentPlan.commitmentPrice(monthly:)) ?? .free)
        }
        return record
    }
}
