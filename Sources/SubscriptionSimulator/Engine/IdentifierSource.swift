/// Derives every identifier the store hands out from the seed, the epoch, the customer and that customer's own
/// counters: never random, never wall-clock, and never from a counter shared by all customers, so a customer's ids
/// do not depend on how the other customers' events interleave (what `simctl run --jobs N` needs to give the same
/// bytes for every N).
///
/// Rule ids-keep-the-whole-seed: every transaction and web order line item id is `prefix` + the epoch's decimal
/// digits (left-padded with zeros to three; written only when the epoch is not 0) + the seed's decimal digits
/// (left-padded with zeros to six) + the owner part. The seed is written whole, so two different seeds never share an
/// id (before, seeds of a million and more were folded into six digits: seeds 1000000 and 131734 gave the same ids).
///
/// Rule ids-per-customer: the owner part is `L` (one digit: how many digits the owner's position has, 1–9) + the
/// position's `L` digits + the owner's counter (from 1) left-padded with zeros to `max(4, 8 - L)` digits (more
/// digits when it is larger). The owner of a transaction is the customer who holds it (a family member's shared
/// transaction belongs to the member); the position is the customer's place in the order the store first met them
/// (the scenario's first named customer is 0, as for `appTransactionId`); each customer counts their transaction
/// ids and web order line item ids separately. Ids of one store are unique: the prefix digit tells the kinds apart,
/// the seed and epoch digits are the same for every id of the store, `L` is one digit and says how many position
/// digits follow, so the digits up to the counter name exactly one (kind, customer); the counter takes the rest, and
/// its text is a one-to-one function of its value (exactly the padded width below `10^width`, more digits without a
/// leading zero from there). Positions up to 999,999,999 (a billion customers) fit `L`'s one digit.
///
/// Rule ids-change-with-the-epoch [assumed]: the epoch (``SimulatedStore/init(app:catalog:start:seed:epoch:)``,
/// `simctl serve`'s reset) gives the same store new identities, so a backend that de-duplicates on ids and UUIDs sees
/// a replay as new data. Epoch 0 writes no epoch digits: its ids are those of a store without an epoch, byte for
/// byte. Epochs 1–999 add exactly three digits; larger epochs write all their digits (longer ids, still decimal
/// strings, as for large seeds).
/// - Transaction ids: prefix `2` (seed 0, the first customer's first ids: `2000000100000001`, `2000000100000002`,
///   ...; the eleventh customer's first: `2000000210000001`; seed 0 epoch 1: `2001000000100000001`). Apple's ids are
///   decimal digit strings of 15–16 digits (reference §2.5, §2.8, S-TXID); seeds 0–999999 at epoch 0 give exactly 16
///   digits for the first 10,000 customers while each has fewer than 10,000 ids (17 for positions of five digits,
///   one more per further position digit); with seeds 0–999999 and counters below 10,000, ids stay within a signed
///   64-bit integer (19 digits starting with 2 or 3) for positions below 10^7 at epoch 0 and below 10^4 at epochs
///   1–999 [assumed: Apple documents no length, and ids are strings on the wire].
/// - Web order line item ids: prefix `3`, so they never equal a transaction id.
/// - `appTransactionId`: prefix `7`, then the seed's digits and the customer's position + 1 (first named is 1) as 9
///   digits: one per Apple Account per app, a different one for each family member (Notifications 2.15, reference
///   §2.5 and the 2025-02 changes). Apple's own examples are decimal digit strings (library test resource
///   `appTransaction.json`: `"71134"`); the length here is [assumed].
/// - Notification UUIDs are lowercase RFC 4122 strings with version 4 and variant bits set, built from SplitMix64
///   mixes of (seed, epoch, owner, the owner's notification counter): the owner is the customer the notification is
///   about (its recipient; owner word = position + 1) or, for notifications about the app itself (`TEST`,
///   `RENEWAL_EXTENSION` / `SUMMARY`), the store (owner word 0, which no customer has). The first mix is a bijection
///   of (epoch, owner) for a given seed and the second of the counter given the first, so distinct inputs give
///   distinct 64-bit halves before the version and variant bits (122 bits left, as for random version 4 UUIDs).
package struct IdentifierSource: Sendable {
    package let seed: UInt64
    /// The store's epoch (rule ids-change-with-the-epoch); 0 changes nothing.
    package let epoch: UInt32
    /// The store's own notification counter (rule ids-per-customer: notifications about the app itself); each
    /// customer's counters are in their ``CustomerRecord``.
    var storeNotificationCounter: UInt64 = 0

    package init(seed: UInt64, epoch: UInt32 = 0) {
        self.seed = seed
        self.epoch = epoch
    }

    /// `prefix` + epoch and seed digits + the counter as 9 digits (``appTransactionId(forCustomerAt:)``).
    func identifier(prefix: Character, counter: UInt64) -> String {
        identifier(prefixDigit: prefix.asciiValue!, counter: counter)
    }

    /// The decimal digits of `value` (1 for 0).
    static func digitCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    /// `prefix` + epoch and seed digits + the counter as 9 digits (`owner` nil: ``appTransactionId(forCustomerAt:)``),
    /// or + the owner part of rule ids-per-customer (`owner`: the customer's position). Written straight into the
    /// string's storage: ids are made on every charge, and joining the parts with `+` (five strings, several
    /// allocations) was a tenth of the one-year simbench lifecycle's instructions.
    static func identifier(
        prefixDigit: UInt8, seed: UInt64, epoch: UInt32 = 0, owner: UInt32? = nil, counter: UInt64
    ) -> String {
        let epochCount = epoch == 0 ? 0 : max(3, digitCount(UInt64(epoch)))
        let seedCount = max(6, digitCount(seed))
        let positionCount = owner.map { digitCount(UInt64($0)) } ?? 0
        let ownerCount = owner == nil ? 0 : 1 + positionCount
        let counterWidth = owner == nil ? 9 : max(4, 8 - positionCount)
        let count = 1 + epochCount + seedCount + ownerCount + max(counterWidth, digitCount(counter))
        return String(unsafeUninitializedCapacity: count) { buffer in
            buffer[0] = prefixDigit
            func write(_ value: UInt64, from start: Int, to end: Int) {
                var value = value
                var index = end - 1
                while index >= start {
                    buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                    index -= 1
                }
            }
            var at = 1
            write(UInt64(epoch), from: at, to: at + epochCount)
            at += epochCount
            write(seed, from: at, to: at + seedCount)
            at += seedCount
            if let owner {
                write(UInt64(positionCount), from: at, to: at + 1)
                write(UInt64(owner), from: at + 1, to: at + ownerCount)
                at += ownerCount
            }
            write(counter, from: at, to: count)
            return count
        }
    }

    /// The same, with this source's seed and epoch.
    func identifier(prefixDigit: UInt8, counter: UInt64) -> String {
        Self.identifier(prefixDigit: prefixDigit, seed: seed, epoch: epoch, counter: counter)
    }

    /// The transaction id number `counter` (from 1) of the customer at `position` (rule ids-per-customer).
    package func transactionId(ofCustomerAt position: Int, counter: UInt32) -> String {
        transactionIdentifier(ofCustomerAt: position, counter: counter).text
    }

    /// The same as its parts: the digits are written only when read.
    func transactionIdentifier(ofCustomerAt position: Int, counter: UInt32) -> StoreIdentifier {
        .generated(
            GeneratedIdentifier(
                seed: seed, prefixDigit: UInt8(ascii: "2"), owner: UInt32(position), counter: counter, epoch: epoch))
    }

    /// The web order line item id number `counter` (from 1) of the customer at `position` (rule ids-per-customer).
    package func webOrderLineItemId(ofCustomerAt position: Int, counter: UInt32) -> String {
        webOrderLineItemIdentifier(ofCustomerAt: position, counter: counter).text
    }

    /// The same as its parts: its text is written only when read (a run that never encodes its transactions never
    /// builds these strings).
    func webOrderLineItemIdentifier(ofCustomerAt position: Int, counter: UInt32) -> StoreIdentifier {
        .generated(
            GeneratedIdentifier(
                seed: seed, prefixDigit: UInt8(ascii: "3"), owner: UInt32(position), counter: counter, epoch: epoch))
    }

    /// The `appTransactionId` of the customer at `position` (0 for the first customer named): a pure function of the
    /// seed and the position, so it is the same in every transaction and renewal info of that customer.
    package func appTransactionId(forCustomerAt position: Int) -> String {
        identifier(prefixDigit: UInt8(ascii: "7"), counter: UInt64(position) + 1)
    }

    /// The UUID of notification number `counter` (from 1) about the customer at `position`, or about the app itself
    /// when `position` is nil (rule ids-per-customer).
    package func notificationUUID(ofCustomerAt position: Int?, counter: UInt64) -> NotificationUUID {
        Self.notificationUUID(key: notificationKey(ofCustomerAt: position), counter: counter)
    }

    /// The part of the notification UUIDs about the customer at `position` (nil: the app itself) that does not
    /// depend on the counter: the first mix. Made once per customer (``CustomerRecord/notificationKey``), so each
    /// notification costs the two mixes of the counter only (issue 27).
    func notificationKey(ofCustomerAt position: Int?) -> NotificationKey {
        let owner = position.map { UInt64($0) + 1 } ?? 0
        let ownerWord = owner | (UInt64(epoch) << 40)
        return NotificationKey(
            first: SplitMix64.mix(seed ^ 0x5349_4D43_544C_5555 &+ ownerWord &* 0x9E37_79B9_7F4A_7C15),
            salt: (seed << 1) ^ (ownerWord &* 0x94D0_49BB_1331_11EB))
    }

    /// The UUID of notification number `counter` (from 1) of the owner whose key is `key`.
    static func notificationUUID(key: NotificationKey, counter: UInt64) -> NotificationUUID {
        let high = SplitMix64.mix(key.first &+ counter &* 0xBF58_476D_1CE4_E5B9)
        let low = SplitMix64.mix(high ^ counter ^ key.salt)
        // Version 4 in the high nibble of byte 6, variant 10xx in byte 8.
        return NotificationUUID(
            high: (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000,
            low: (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    /// The next UUID of a notification about the app itself (owner: the store).
    package mutating func nextStoreNotificationUUID() -> NotificationUUID {
        storeNotificationCounter += 1
        return notificationUUID(ofCustomerAt: nil, counter: storeNotificationCounter)
    }
}

/// What a notification UUID owner's UUIDs share (``IdentifierSource/notificationKey(ofCustomerAt:)``): the first
/// SplitMix64 mix of (seed, epoch, owner) and the owner's salt of the low half.
struct NotificationKey: Hashable, Sendable {
    var first: UInt64
    var salt: UInt64
}

/// A notification's `notificationUUID` as its 128 bits; the text (lowercase, RFC 4122 layout) is written only when
/// asked for, so a run that never encodes its notifications never builds these strings.
public struct NotificationUUID: Hashable, Sendable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`, lowercase.
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            func write(_ word: UInt64) {
                var shift = 60
                while shift >= 0 {
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let digit = UInt8(truncatingIfNeeded: (word >> UInt64(shift)) & 0xF)
                    buffer[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    position += 1
                    shift -= 4
                }
            }
            write(high)
            write(low)
            return 36
        }
    }
}

/// An id made by ``IdentifierSource`` (rule ids-keep-the-whole-seed), kept as its parts: the digits are written only
/// when read.
///
/// The stored properties are declared in layout order: `prefixDigit` before `epoch` leaves three bytes of padding
/// inside the 24 bytes, which ``StoreIdentifier`` uses for its case, as before the owner was added. With `prefixDigit`
/// last (21 bytes, no padding) the enum needed a tag byte after it, and every copy of a ``TransactionRecord`` (two
/// identifiers; one per notification) packed and unpacked the odd-sized fields: about 46 more instructions per
/// notification (issue 27).
struct GeneratedIdentifier: Hashable, Sendable {
    var seed: UInt64
    /// The owner's counter: 32 bits (four billion ids per customer) keep the value within 24 bytes.
    var counter: UInt32
    /// The owner's position (rule ids-per-customer), or `UInt32.max` for an id without an owner part.
    var owner: UInt32
    var prefixDigit: UInt8
    var epoch: UInt32

    init(seed: UInt64, prefixDigit: UInt8, owner: UInt32? = nil, counter: UInt32, epoch: UInt32 = 0) {
        self.seed = seed
        self.counter = counter
        self.prefixDigit = prefixDigit
        self.epoch = epoch
        self.owner = owner ?? .max
    }

    var text: String {
        IdentifierSource.identifier(
            prefixDigit: prefixDigit, seed: seed, epoch: epoch, owner: owner == .max ? nil : owner,
            counter: UInt64(counter))
    }
}

/// An identifier field of a record: made by the store (its parts) or set as text. Equal when the texts are equal.
enum StoreIdentifier: Hashable, Sendable {
    case generated(GeneratedIdentifier)
    case text(String)

    var text: String {
        switch self {
        case .generated(let id): return id.text
        case .text(let text): return text
        }
    }

    static func == (a: StoreIdentifier, b: StoreIdentifier) -> Bool {
        switch (a, b) {
        case (.generated(let x), .generated(let y))
        where x.seed == y.seed && x.prefixDigit == y.prefixDigit && x.epoch == y.epoch && x.owner == y.owner:
            return x.counter == y.counter
        case (.text(let x), .text(let y)): return x == y
        default: return a.text == b.text
        }
    }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
