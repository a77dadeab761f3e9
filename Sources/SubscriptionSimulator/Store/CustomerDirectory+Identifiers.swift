/// The identifiers a customer's records carry (issue 44, item 1): rule **ids-per-customer**
/// (`Engine/IdentifierSource.swift`), each id made from the customer's own counter and ``CustomerRecord/idPosition``,
/// so a customer's ids do not depend on what happens to others. The ``IdentifierSource`` is the store's, passed in.
extension CustomerDirectory {
    /// The next transaction id of the customer at `position`. The counter is read and written in one access to the
    /// customer's record (issue 27); the id position is read after.
    @inline(__always)
    mutating func nextTransactionIdentifier(ofCustomerAt position: Int, ids: IdentifierSource) -> StoreIdentifier {
        let counter = countTransactionId(ofCustomerAt: position)
        return ids.transactionIdentifier(ofCustomerAt: Int(records[position].idPosition), counter: counter)
    }

    /// The next web order line item id of the customer at `position` (made from their id position).
    @inline(__always)
    mutating func nextWebOrderLineItemIdentifier(ofCustomerAt position: Int, ids: IdentifierSource)
        -> StoreIdentifier
    {
        let counter = countWebOrderLineItemId(ofCustomerAt: position)
        return ids.webOrderLineItemIdentifier(ofCustomerAt: Int(records[position].idPosition), counter: counter)
    }

    /// The ids of `chain`'s next charge, held by the chain's customer at `position` (rule ids-per-customer): its
    /// transaction id (a first purchase's is its originalTransactionId, reference §2.5, S-TXID; a later one the
    /// customer's next) and the customer's next web order line item id.
    @inline(__always)
    mutating func chargeIdentifiers(of chain: SubscriptionChain, customerAt position: Int, ids: IdentifierSource)
        -> (transaction: StoreIdentifier, webOrderLineItem: StoreIdentifier)
    {
        let transaction: StoreIdentifier =
            chain.currentTransactionIndex < 0
            ? .text(chain.originalTransactionId) : nextTransactionIdentifier(ofCustomerAt: position, ids: ids)
        return (transaction, nextWebOrderLineItemIdentifier(ofCustomerAt: position, ids: ids))
    }

    /// Who pays for `chain`: its purchaser for a member's share (``SubscriptionChain/purchaserPosition``), its
    /// customer otherwise (whose storefront prices it).
    @inline(__always)
    func purchaser(of chain: SubscriptionChain) -> String {
        chain.purchaserPosition >= 0 ? names[chain.purchaserPosition] : chain.customer
    }
}
