/// The catalogue's sale status: the products the developer took off sale (``SimulatedStore/removeFromSale(_:)``,
/// ``SimulatedStore/restoreToSale(_:)``). Off sale, a product cannot be bought and its subscriptions' renewals fail
/// (``LifecycleContext/productForSale``, reference §5.17).
struct SaleStatus: Hashable, Sendable {
    /// Products taken off sale.
    private(set) var removed: Set<String> = []

    /// Whether `productId` is on sale. Most runs take nothing off sale: no hashing of the product id then.
    @inline(__always)
    func isForSale(_ productId: String) -> Bool { removed.isEmpty || !removed.contains(productId) }

    /// A product off sale cannot be bought: `productNotForSale`.
    func checkForSale(_ productId: String) throws(StoreError) {
        if removed.contains(productId) { throw .productNotForSale(productId) }
    }

    /// Takes `productId` off sale; `alreadyRemovedFromSale` when it is off sale already.
    mutating func remove(_ productId: String) throws(StoreError) {
        guard removed.insert(productId).inserted else { throw .alreadyRemovedFromSale(productId) }
    }

    /// Puts `productId` back on sale; `alreadyOnSale` when it is on sale.
    mutating func restore(_ productId: String) throws(StoreError) {
        guard removed.remove(productId) != nil else { throw .alreadyOnSale(productId) }
    }
}
