/// What the store keeps per customer for the lookups it makes on every event.
struct CustomerRecord: Hashable, Sendable {
    /// Subscription chains, in creation order.
    var chains: [ChainID] = []
    /// Transaction indices of one-time purchases, in creation order.
    var oneTimePurchases: [Int] = []
    /// What the customer is entitled to now: product ids, sorted.
    var entitlements: [String] = []
    /// The customer's `appTransactionId`, made once when the customer is registered (every transaction and renewal
    /// info carries it).
    var appTransactionId = ""
    /// Charges to the customer's payment method fail (``SimulatedStore/failBilling(for:)`` until
    /// ``SimulatedStore/fixBilling(for:)``): read on every renewal, so kept here rather than in a set of names.
    var paymentFails = false
    /// How many transaction ids, web order line item ids and notification UUIDs the customer has been given (rule
    /// ids-per-customer in `Engine/IdentifierSource.swift`): their ids depend on these, never on other customers.
    var transactionIds: UInt32 = 0
    var webOrderLineItemIds: UInt32 = 0
    var notificationUUIDs: UInt32 = 0
    /// The group that orders the customer's store events among others of one instant and priority, and that their
    /// records' order keys carry (``OrderKey/group``): given by whoever made the store, else 0.
    var eventGroup: UInt32 = 0
    /// The position the customer's ids are made from (rule ids-per-customer): their place in the order the store
    /// first met them, or, in the store of one part of a partitioned run, their place in the scenario's customers
    /// (so a part makes the one-job run's ids while it holds only its own customers; issue 27). Fits the padding
    /// before `notificationKey`, so a record is no larger.
    var idPosition: UInt32 = 0
    /// What the customer's notification UUIDs share, made once when the customer is registered.
    var notificationKey = NotificationKey(first: 0, salt: 0)

    /// The next transaction id counter (rule ids-per-customer).
    mutating func countTransactionId() -> UInt32 {
        transactionIds += 1
        return transactionIds
    }

    /// The next web order line item id counter.
    mutating func countWebOrderLineItemId() -> UInt32 {
        webOrderLineItemIds += 1
        return webOrderLineItemIds
    }

    /// The customer's next notification UUID.
    mutating func nextNotificationUUID() -> NotificationUUID {
        notificationUUIDs += 1
        return IdentifierSource.notificationUUID(key: notificationKey, counter: UInt64(notificationUUIDs))
    }
}

/// The store's customers: who they are, in the order they were first named, what the store looks up about each on
/// every event (``CustomerRecord``), their Apple Account fields (storefront, app account token) and whose
/// entitlements wait to be re-derived.
///
/// A customer's position here (in `names`) is the store's own index; the position their ids are made from is
/// their record's ``CustomerRecord/idPosition``: the same unless customers are registered at positions of their own
/// (``register(_:idPosition:ids:)``, the store of one part of a partitioned run).
///
/// Invariants (``isConsistent``): `names`, `records` and `positions` describe the same customers: `names` has no
/// repeats, `records.count == names.count`, and `positions[names[i]] == i` for every `i`; every position in
/// `toRefresh` is a valid one; no two records have the same `idPosition`, and each is below `nextIdPosition`.
struct CustomerDirectory: Hashable, Sendable {
    /// Customers in the order they were first named.
    private(set) var names: [String] = []
    /// Each customer's position in `names`.
    private(set) var positions: [String: Int] = [:]
    /// The id position a customer registered without one of their own gets: one past the highest given so far (or
    /// than ``reserveIdPositions(below:)`` says). Equal to `names.count` while every customer has their own position.
    private(set) var nextIdPosition = 0
    /// What the store looks up about each customer, by position in `names`.
    private(set) var records: [CustomerRecord] = []
    /// Positions of customers whose entitlements may have changed since the last refresh (repeats allowed).
    private(set) var toRefresh: [Int] = []
    /// Customers with a storefront of their own; the others are in the app's default storefront.
    private(set) var storefronts: [String: Storefront] = [:]
    /// The `appAccountToken` each customer's app supplied with their latest purchase that carried one.
    private(set) var appAccountTokens: [String: String] = [:]

    /// The customer's position in `names`, registering them if new: their ids are made from `idPosition` (nil:
    /// ``nextIdPosition``, which is their position in `names` unless customers were registered at positions of their
    /// own). An `idPosition` must not be one another customer has.
    mutating func register(_ name: String, idPosition: Int? = nil, ids: inout IdentifierSource) -> Int {
        if let position = positions[name] { return position }
        let position = names.count
        let idPosition = idPosition ?? nextIdPosition
        nextIdPosition = max(nextIdPosition, idPosition + 1)
        names.append(name)
        records.append(
            CustomerRecord(
                appTransactionId: ids.appTransactionId(forCustomerAt: idPosition), idPosition: UInt32(idPosition),
                notificationKey: ids.notificationKey(ofCustomerAt: idPosition)))
        positions[name] = position
        return position
    }

    /// Customers registered from now on without an id position of their own get one at or above `count`: the store of
    /// one part of a partitioned run keeps the scenario's positions for the customers of the other parts.
    mutating func reserveIdPositions(below count: Int) {
        nextIdPosition = max(nextIdPosition, count)
    }

    /// Marks a registered customer's entitlements for re-derivation at the next refresh.
    mutating func needsRefresh(_ name: String) {
        if let position = positions[name] { toRefresh.append(position) }
    }

    // MARK: - Changes to one customer (by position in `names`)

    /// The next transaction id counter of the customer at `position` (rule ids-per-customer): read and written in one
    /// access to the record (issue 27).
    @inline(__always)
    mutating func countTransactionId(ofCustomerAt position: Int) -> UInt32 {
        records[position].countTransactionId()
    }

    /// The next web order line item id counter of the customer at `position` (rule ids-per-customer).
    @inline(__always)
    mutating func countWebOrderLineItemId(ofCustomerAt position: Int) -> UInt32 {
        records[position].countWebOrderLineItemId()
    }

    /// The next notification UUID of the customer at `position` (rule ids-per-customer).
    @inline(__always)
    mutating func nextNotificationUUID(ofCustomerAt position: Int) -> NotificationUUID {
        records[position].nextNotificationUUID()
    }

    /// Gives each customer, by id position (``CustomerRecord/idPosition``), the event group `groups` holds for it
    /// (``CustomerRecord/eventGroup``); customers beyond `groups` keep theirs.
    mutating func setEventGroups(_ groups: [UInt32]) {
        for position in records.indices {
            let idPosition = Int(records[position].idPosition)
            if idPosition < groups.count { records[position].eventGroup = groups[idPosition] }
        }
    }

    /// Charges to the payment method of the customer at `position` fail (`true`) or work (`false`) from now on.
    mutating func setPaymentFails(_ fails: Bool, ofCustomerAt position: Int) {
        records[position].paymentFails = fails
    }

    /// A chain of the customer at `position` was created (``SubscriptionBook/append(_:customerAt:)``).
    mutating func addChain(_ key: ChainID, toCustomerAt position: Int) {
        records[position].chains.append(key)
    }

    /// A one-time purchase of the customer at `position` was recorded at transaction index `index`.
    mutating func addOneTimePurchase(_ index: Int, toCustomerAt position: Int) {
        records[position].oneTimePurchases.append(index)
    }

    /// The customer at `position` is entitled to `products` (sorted) from now on.
    mutating func setEntitlements(_ products: [String], ofCustomerAt position: Int) {
        records[position].entitlements = products
    }

    /// Puts a customer in a storefront of their own.
    mutating func setStorefront(_ storefront: Storefront, for name: String) {
        storefronts[name] = storefront
    }

    /// Sets (or, with `nil`, removes) the `appAccountToken` the customer's transactions carry; returns the previous one.
    @discardableResult
    mutating func setAppAccountToken(_ token: String?, for name: String) -> String? {
        let previous = appAccountTokens[name]
        appAccountTokens[name] = token
        return previous
    }

    // MARK: - Entitlement refreshes

    /// Marks the customer at `position` for re-derivation at the next refresh.
    @inline(__always)
    mutating func needsRefresh(ofCustomerAt position: Int) {
        toRefresh.append(position)
    }

    /// Puts the customers waiting for a refresh in the order they were first named (repeats stay, side by side).
    mutating func sortRefreshes() {
        if toRefresh.count > 1 { toRefresh.sort() }
    }

    /// The refresh is done: no customer waits for one.
    mutating func clearRefreshes() {
        toRefresh.removeAll(keepingCapacity: true)
    }

    /// The customer's subscription chains, in creation order (none for an unknown customer).
    func chains(of name: String) -> [ChainID] {
        positions[name].map { records[$0].chains } ?? []
    }

    /// Room for `count` customers.
    mutating func reserveCapacity(_ count: Int) {
        names.reserveCapacity(count)
        records.reserveCapacity(count)
        positions.reserveCapacity(count)
    }

    /// Whether the invariants in the type's documentation hold.
    var isConsistent: Bool {
        records.count == names.count && positions.count == names.count
            && names.indices.allSatisfy { positions[names[$0]] == $0 }
            && toRefresh.allSatisfy { names.indices.contains($0) }
            && Set(records.map(\.idPosition)).count == records.count
            && records.allSatisfy { Int($0.idPosition) < nextIdPosition }
    }
}
