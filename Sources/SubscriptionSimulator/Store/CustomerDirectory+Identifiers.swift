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

    /// Who pays for `chain`: its purchaser for a member's share (``SubscriptionChain/purchaserPosition``), its
    /// customer otherwise (whose storefront prices it).
    @inline(__always)
    func purchaser(of chain: SubscriptionChain) -> String {
        chain.purchaserPosition >= 0 ? names[chain.purchaserPosition] : chain.customer
    }
}
