/// How much of what it has emitted a ``SimulatedStore`` keeps (docs/streaming.md).
///
/// The store's logs (every notification, every entitlement change, every transaction of every renewal) grow with the
/// length of a run; a streaming run (``ScenarioRunner/stream(_:retention:into:)``) hands them to its output as the
/// clock advances and needs none of them afterwards.
public enum StoreRetention: Hashable, Sendable {
    /// Everything stays readable: the default, for tests and for the read views that look back in time.
    case everything
    /// Only live state: ``SimulatedStore/discardEmitted()`` drops the notifications and entitlement changes already
    /// handed on, and the transactions nothing points at any more (a subscription's superseded renewals). What is
    /// kept then is bounded by the customers and their subscriptions, not by the run's length.
    ///
    /// Features that read history need ``everything`` and stop with a precondition naming this option when used
    /// without it: ``SimulatedStore/notifications(for:)``, ``SimulatedStore/transactions(for:)``,
    /// ``SimulatedStore/status(of:for:at:)`` and ``SimulatedStore/entitlements(for:at:)`` for past instants,
    /// ``SimulatedStore/deviceEvents(for:)``, the Server API history reads, refunds and refund requests naming a
    /// transaction by number, and ``SimulatedStore/paidDaysOfService(for:inGroupOf:)``.
    case liveState
}

extension SimulatedStore {
    /// A store that keeps only what `retention` says (``StoreRetention``).
    public init(
        app: AppConfiguration, catalog: Catalog, start: Instant, seed: UInt64 = 0, epoch: UInt32 = 0,
        retention: StoreRetention
    ) {
        self.init(app: app, catalog: catalog, start: start, seed: seed, epoch: epoch)
        emissions.keep(retention)
    }

    /// Stops with a clear message when `feature` needs history this store does not keep (``StoreRetention``).
    func requireHistory(_ feature: @autoclosure () -> String) {
        precondition(
            emissions.keepsHistory,
            "\(feature()) reads the store's history, which a store with retention .liveState does not keep; "
                + "create the store with retention .everything (the default)")
    }

    /// With ``StoreRetention/liveState``: forgets the notifications and entitlement changes sent so far (the caller
    /// has handed them on) and the transactions nothing refers to any more. With ``StoreRetention/everything``:
    /// nothing.
    public mutating func discardEmitted() {
        guard emissions.retention == .liveState else { return }
        emissions.discard()
        // A transaction is live while a chain names it as its current one, it is a one-time purchase (those grow
        // with the scenario's actions, not with time), or a refund request names it (a chain's first transaction
        // is needed only as an index). The rest are superseded renewals: dropped once they are half as many as the
        // live ones (the window's storage, kept between compactions, is then half the live transactions' size), so on
        // average each new transaction moves two live ones.
        guard ledger.transactions.windowCount > max(4096, ledger.transactions.pinnedCount / 2) else { return }
        var live: [Int] = []
        live.reserveCapacity(subscriptionBook.chains.count + ledger.refundRequests.count)
        // By index: a chain is large, and copying each out would retain every string in it.
        for index in subscriptionBook.chains.indices where subscriptionBook.chains[index].currentTransactionIndex >= 0 {
            live.append(subscriptionBook.chains[index].currentTransactionIndex)
        }
        for request in ledger.refundRequests { live.append(request.transactionIndex) }
        ledger.keepOnly(live)
    }

    /// Pauses ``advance(to:)`` once `count` notifications and entitlement changes are held, for the caller to hand
    /// them on (a streamed run's store; by default it never pauses).
    package mutating func handOver(at count: Int) { emissions.handOver(at: count) }

    /// Hands the notifications and entitlement changes held to `receive`, which may take the arrays (the caller then
    /// calls ``discardEmitted()``).
    @inline(__always)
    package mutating func handOn(_ receive: (inout [SentNotification], inout [EntitlementChange]) -> Void) {
        emissions.handOn(receive)
    }

    // MARK: - Order keys (rule order-key, `Engine/OrderKey.swift`)

    /// Stamps an ``OrderKey`` on every notification and entitlement change from now on; called before the store emits
    /// anything.
    package mutating func stampOrderKeys() { emissions.noteOrder() }

    /// Whether the store stamps order keys (``stampOrderKeys()``).
    package var stampsOrderKeys: Bool { emissions.notesOrder }

    /// The order keys of the notifications held, from the one at `start` on.
    package func notificationOrderKeys(from start: Int) -> ArraySlice<OrderKey> {
        emissions.notificationOrder[start...]
    }

    /// The order keys of the entitlement changes held, from the one at `start` on.
    package func changeOrderKeys(from start: Int) -> ArraySlice<OrderKey> { emissions.changeOrder[start...] }

    /// Room for `customers` customers and `subscriptions` subscriptions (``ScenarioRunner`` passes the scenario's
    /// customers and purchases), so that in a large run the store's arrays are allocated once rather than grown by
    /// doubling, which leaves up to half of them unused. Only memory: more customers or subscriptions than reserved
    /// still work.
    public mutating func reserveCapacity(customers: Int, subscriptions: Int) {
        directory.reserveCapacity(customers)
        subscriptionBook.reserveCapacity(subscriptions)
    }

    /// The instant of the next store event, if any.
    public var nextEventInstant: Instant? { scheduler.nextEventInstant() }
}

/// The store's transactions by creation index. With ``StoreRetention/everything`` it is a plain array (every index
/// from 0); with ``StoreRetention/liveState`` the older part keeps only the live transactions (reachable by index,
/// not by iteration) and the collection is the recent window from ``startIndex``.
public struct TransactionLog: RandomAccessCollection, MutableCollection, Sendable {
    /// The window: transactions `base ..< base + window.count`. Optional only so that ``keepOnly(_:orNotAutoRenewable:)``
    /// can move records out (a record holds a dozen strings; copying one retains each): every element is non-nil
    /// outside it.
    var window: [TransactionRecord?] = []
    var base = 0
    /// Live transactions before `base`: indices ascending, records alongside.
    var pinnedIndices: [Int] = []
    var pinnedRecords: [TransactionRecord?] = []

    public init() {}

    public var startIndex: Int { base }
    /// One past the last transaction ever recorded: the index the next one gets.
    public var endIndex: Int { base + window.count }

    public subscript(position: Int) -> TransactionRecord {
        // Always inlined: every notification copies its record out of the log, and as a call the copy went through
        // two more memcpy of the record (issue 27).
        @inline(__always) get {
            if position >= base { return window[position - base]! }
            return pinnedRecords[pinnedSlot(position)]!
        }
        set {
            if position >= base {
                window[position - base] = newValue
            } else {
                pinnedRecords[pinnedSlot(position)] = newValue
            }
        }
        // In place: `transactions[i].field = x` would otherwise copy the whole record out and back.
        _modify {
            if position >= base {
                yield &window[position - base]!
            } else {
                yield &pinnedRecords[pinnedSlot(position)]!
            }
        }
    }

    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    mutating func append(_ record: consuming TransactionRecord) { window.append(record) }

    mutating func reserveCapacity(_ n: Int) { window.reserveCapacity(n) }

    var windowCount: Int { window.count }
    /// Transactions held: the window and the live ones before it.
    var retainedCount: Int { window.count + pinnedIndices.count }
    var pinnedCount: Int { pinnedIndices.count }

    func pinnedSlot(_ position: Int) -> Int {
        var low = 0
        var high = pinnedIndices.count
        while low < high {
            let mid = (low + high) / 2
            if pinnedIndices[mid] < position { low = mid + 1 } else { high = mid }
        }
        precondition(
            low < pinnedIndices.count && pinnedIndices[low] == position,
            "transaction #\(position) was dropped by StoreRetention.liveState; it is no longer live")
        return low
    }

    /// Keeps the transactions whose index is in `live` (any order, repeats allowed), plus, when
    /// `orNotAutoRenewable`, every one-time purchase; the window becomes empty. In place: the live transactions
    /// before the window move down within the pinned arrays, and the window's live ones are moved after them, so
    /// compacting needs no second copy of the live transactions. The live indices are marked in a bit set (one bit
    /// per transaction ever made, for the time of the call) rather than sorted.
    mutating func keepOnly(_ live: [Int], orNotAutoRenewable: Bool) {
        let end = endIndex
        var marks = [UInt64](repeating: 0, count: end / 64 + 1)
        for index in live where index >= 0 && index < end { marks[index >> 6] |= 1 << UInt64(index & 63) }
        func isLive(_ index: Int) -> Bool { marks[index >> 6] & (1 << UInt64(index & 63)) != 0 }
        // Product types are read in place through `?.`: unwrapping a record would copy it, retaining its strings.
        // Pinned transactions, in index order: kept ones move down to `kept`; slots `kept ..< slot` hold nil.
        var kept = 0
        for slot in pinnedIndices.indices {
            let index = pinnedIndices[slot]
            guard isLive(index) || (orNotAutoRenewable && pinnedRecords[slot]?.productType != .autoRenewable) else {
                pinnedRecords[slot] = nil  // dropped: its strings are released here
                continue
            }
            if kept != slot {
                pinnedIndices[kept] = index
                // Moved through a local (`swapAt` would copy the record, retaining each of its strings).
                var moved: TransactionRecord? = nil
                swap(&moved, &pinnedRecords[slot])
                swap(&moved, &pinnedRecords[kept])  // slot `kept` held nil
            }
            kept += 1
        }
        pinnedIndices.removeLast(pinnedIndices.count - kept)
        pinnedRecords.removeLast(pinnedRecords.count - kept)
        // The window's live transactions, moved out in index order after the pinned ones.
        for offset in window.indices
        where isLive(base + offset) || (orNotAutoRenewable && window[offset]?.productType != .autoRenewable) {
            var moved: TransactionRecord? = nil
            swap(&moved, &window[offset])
            pinnedIndices.append(base + offset)
            pinnedRecords.append(moved)
        }
        base = end
        window.removeAll(keepingCapacity: true)
    }
}
