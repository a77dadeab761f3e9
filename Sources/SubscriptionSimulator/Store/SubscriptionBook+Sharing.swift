/// The purchaser's per-subscription "Share with Family" switch and its rules (reference §4.3, §4.4). Who receives
/// a share is the ``FamilyBook``'s; the facade (`Store/SimulatedStore+Family.swift`) ends or offers the shares.
extension SubscriptionBook {
    /// **stop-sharing-needs-sharing-on** for the purchaser `customer`'s subscription `key` to `productId`: refused
    /// when its sharing is off already; switches it off (members then lose it, reference §4.4, Appendix A-6).
    mutating func stopSharing(_ key: ChainID, customer: String, productId: String) throws(StoreError) {
        guard chains[key.index].sharingOn else {
            throw .family(.sharingAlreadyOff(customer: customer, productId: productId))
        }
        setSharing(false, of: key)
    }

    /// **start-sharing-needs-sharing-off** for the purchaser `customer`'s subscription `key` to `productId`: refused
    /// when its sharing is on already; switches it on (members get it at once, reference §4.4).
    mutating func startSharing(_ key: ChainID, customer: String, productId: String) throws(StoreError) {
        guard !chains[key.index].sharingOn else {
            throw .family(.sharingAlreadyOn(customer: customer, productId: productId))
        }
        setSharing(true, of: key)
    }
}
