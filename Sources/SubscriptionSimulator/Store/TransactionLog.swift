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
