/// The subscription reads a refund needs (issue 44, item 1): which chain a refunded, requested or reversed
/// transaction belongs to, and whether it is that chain's current transaction (then the refund runs through the
/// lifecycle table and ends the subscription; reference §5.14, S-F774755). The store facade asks the book and the
/// ledger, then runs the table or revokes the transaction alone.
extension SubscriptionBook {
    /// The chain of `record`'s customer in the group of `product` (the record's product in the catalogue) when `record`
    /// is an auto-renewable subscription's transaction; `nil` otherwise. Its renewal info and status are the ones a
    /// notification about any of the chain's transactions carries (S-F774755).
    func chain(of record: TransactionRecord, product: Product?) -> ChainID? {
        guard record.productType == .autoRenewable, let group = product?.group else { return nil }
        return chain(of: record.customer, inGroup: group)
    }

    /// The chain (as ``chain(of:product:)``) whose current transaction is `record`, at `index` in the ledger; `nil`
    /// for an earlier period's transaction or a one-time purchase, which a refund revokes alone.
    /// A refund of a subscription's current transaction ends it (status 5, members get `REVOKE`); a refund of an
    /// earlier period leaves the subscription as it is: the status and renewal info stay those of the current period
    /// (reference §5.14, S-F774755: `signedTransactionInfo` is the transaction concerned) and members receive
    /// nothing, their access being unchanged **[assumed]**.
    func chain(currentAt index: Int, of record: TransactionRecord, product: Product?) -> ChainID? {
        guard let key = chain(of: record, product: product), chains[key.index].currentTransactionIndex == index else {
            return nil
        }
        return key
    }

    /// ``chain(currentAt:of:product:)`` for transaction `index` of `ledger`, its product read in `catalog`.
    func chain(currentAt index: Int, in ledger: TransactionLedger, catalog: Catalog) -> ChainID? {
        let record = ledger.transactions[index]
        return chain(currentAt: index, of: record, product: catalog[record.productId])
    }

    /// The chain whose current transaction is `index` (``chain(currentAt:in:catalog:)``) when it is revoked: a
    /// reversal of that refund runs through the lifecycle table, and the subscription is active again until its
    /// unchanged `expiresDate` (rule refund-reversal-restores-access); `nil` when the reversal is the transaction's
    /// alone.
    func revokedChain(currentAt index: Int, in ledger: TransactionLedger, catalog: Catalog) -> ChainID? {
        guard let key = chain(currentAt: index, in: ledger, catalog: catalog), chains[key.index].state.phase == .revoked
        else { return nil }
        return key
    }
}
