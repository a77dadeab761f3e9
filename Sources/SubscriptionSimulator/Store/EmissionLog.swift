/// What the store has emitted: notifications, entitlement changes, and the device-side facts placed among the
/// notifications (restores, app openings) that the device view reads; with how much of it the store keeps
/// (``StoreRetention``).
///
/// Invariants (``isConsistent``): `restoredNotifications` names notifications in `notifications`; the positions of
/// `restores` and `appOpens` never decrease and, while the store keeps its history, are at most
/// `notifications.count` (with ``StoreRetention/liveState`` the notifications before them may be discarded); while it
/// keeps its history and notes the order (`notesOrder`), `notificationOrder` and `changeOrder` have one entry per
/// notification and per change (a live-state store's sink may take the records before ``discard()`` empties both).
struct EmissionLog: Hashable, Sendable {
    /// How much of what it emits the store keeps.
    private(set) var retention = StoreRetention.everything
    /// Every notification, in the order sent.
    private(set) var notifications: [SentNotification] = []
    /// Every change of any customer's entitlements, in order.
    private(set) var entitlementChanges: [EntitlementChange] = []
    /// The ``OrderKey`` of each notification and each change, by index (rule order-key): its instant, the order group
    /// of its customer (``CustomerRecord/eventGroup``; 0 for a notification about the app itself) and its sequence,
    /// so that a reader can order the records without reading them or looking names up.
    /// Stamped only with `notesOrder` (``SimulatedStore/stampOrderKeys()``): any other store would fill two more
    /// arrays that nothing reads (callgrind: about 2,800 instructions per lifecycle, most of them the arrays' growth).
    private(set) var notificationOrder: [OrderKey] = []
    private(set) var changeOrder: [OrderKey] = []
    /// Order keys stamped so far (the next one's ``OrderKey/sequence``).
    private(set) var stamped = 0
    /// Whether ``notificationOrder`` and ``changeOrder`` are noted; set before the store emits anything.
    private(set) var notesOrder = false
    /// Restores of purchases on customers' devices, for the device view (`Store/DeviceView.swift`),
    /// which is otherwise derived from the notifications when asked for.
    private(set) var restores: [RestoreRecord] = []
    /// Notifications (by index) whose transaction reached the device through a restore.
    private(set) var restoredNotifications: Set<Int> = []
    /// Every time a customer opened the app, for the device view's billing-issue messages.
    private(set) var appOpens: [AppOpenRecord] = []

    /// How many notifications and entitlement changes the log may hold before ``SimulatedStore/advance(to:)``
    /// pauses between two events to let them be handed on (a streamed run sets it; by default it never pauses).
    private(set) var handOverAt = Int.max

    /// Notifications and entitlement changes held (not handed on yet, with ``StoreRetention/liveState``).
    var heldCount: Int { notifications.count + entitlementChanges.count }

    /// Appends a notification (`restored`: its transaction reached the device through a restore).
    mutating func append(_ notification: consuming SentNotification, group: UInt32, restored: Bool = false) {
        if restored { restoredNotifications.insert(notifications.count) }
        if notesOrder {
            notificationOrder.append(
                OrderKey(instant: notification.instant.millisecondsSince1970, group: group, sequence: stamped))
            stamped += 1
        }
        notifications.append(notification)
    }

    /// Appends an entitlement change of a customer of event group `group`.
    mutating func append(_ change: consuming EntitlementChange, group: UInt32) {
        if notesOrder {
            changeOrder.append(OrderKey(instant: change.instant.millisecondsSince1970, group: group, sequence: stamped))
            stamped += 1
        }
        entitlementChanges.append(change)
    }

    /// Keeps `retention` of what is emitted from now on.
    mutating func keep(_ retention: StoreRetention) { self.retention = retention }

    /// Notes ``notificationOrder`` and ``changeOrder`` from now on (before anything is emitted).
    mutating func noteOrder() { notesOrder = true }

    /// Pauses ``SimulatedStore/advance(to:)`` once `count` records are held (``handOverAt``).
    mutating func handOver(at count: Int) { handOverAt = count }

    /// Hands the notifications and entitlement changes held to `receive`, which may take the arrays (the caller then
    /// calls ``discard()``).
    @inline(__always)
    mutating func handOn(_ receive: (inout [SentNotification], inout [EntitlementChange]) -> Void) {
        receive(&notifications, &entitlementChanges)
    }

    /// Room for `count` notifications.
    mutating func reserveCapacity(_ count: Int) { notifications.reserveCapacity(count) }

    /// The last notification appended is a `CONSUMPTION_REQUEST` for `reason`.
    mutating func noteConsumptionRequestReason(_ reason: ConsumptionRequestReason?) {
        notifications[notifications.count - 1].consumptionRequestReason = reason
    }

    /// A customer restored purchases on their device (placed after the notifications sent so far).
    mutating func recordRestore(at instant: Instant, customer: String, transactions: [TransactionRecord]) {
        restores.append(
            RestoreRecord(
                position: notifications.count, instant: instant, customer: customer, transactions: transactions))
    }

    /// A customer opened the app (placed after the notifications sent so far).
    mutating func recordAppOpen(at instant: Instant, customer: String, billingIssues: [String]) {
        appOpens.append(
            AppOpenRecord(
                position: notifications.count, instant: instant, customer: customer, billingIssues: billingIssues))
    }

    /// Whether the store keeps its history (``StoreRetention/everything``).
    var keepsHistory: Bool { retention == .everything }

    /// Stops with a clear message when `feature` needs history this log does not keep.
    func requireHistory(_ feature: @autoclosure () -> String) {
        precondition(
            keepsHistory,
            "\(feature()) reads the store's history, which a store with retention .liveState does not keep; "
                + "create the store with retention .everything (the default)")
    }

    /// Forgets the notifications and entitlement changes sent so far (the caller has handed them on).
    mutating func discard() {
        notifications.removeAll(keepingCapacity: true)
        entitlementChanges.removeAll(keepingCapacity: true)
        notificationOrder.removeAll(keepingCapacity: true)
        changeOrder.removeAll(keepingCapacity: true)
        restoredNotifications.removeAll()
    }

    /// Notifications sent to one customer, in order.
    func notifications(for customer: String) -> [SentNotification] {
        notifications.filter { $0.recipient == customer }
    }

    /// What the customer was entitled to at `instant`: the products of their last entitlement change at or before it.
    func entitlements(of customer: String, at instant: Instant) -> [String] {
        entitlementChanges.last(where: { $0.customer == customer && $0.instant <= instant })?.products ?? []
    }

    /// The status the last notification about the customer's `productId` at or before `instant` carried.
    func status(of productId: String, for customer: String, at instant: Instant) -> SubscriptionPhase? {
        notifications.last(where: {
            $0.recipient == customer && $0.transaction?.productId == productId && $0.instant <= instant
                && $0.status != nil
        })?.status
    }

    /// Whether the invariants in the type's documentation hold.
    var isConsistent: Bool {
        let restorePositions = restores.map(\.position)
        let openPositions = appOpens.map(\.position)
        return restoredNotifications.allSatisfy { notifications.indices.contains($0) }
            && restorePositions == restorePositions.sorted() && openPositions == openPositions.sorted()
            && (!keepsHistory
                || (restorePositions.last ?? 0) <= notifications.count
                    && (openPositions.last ?? 0) <= notifications.count
                    && (!notesOrder
                        || notificationOrder.count == notifications.count
                            && changeOrder.count == entitlementChanges.count))
            && (notesOrder || notificationOrder.isEmpty && changeOrder.isEmpty)
    }
}
