/// Derives every identifier the store hands out from the seed, the epoch and counters: never random, never
/// wall-clock.
///
/// Rule ids-keep-the-whole-seed: every numeric id is `prefix` + the epoch's decimal digits (left-padded with zeros to
/// three; written only when the epoch is not 0) + the seed's decimal digits (left-padded with zeros to six) + a
/// 9-digit counter. The seed is written whole, so two different seeds never share an id (before, seeds of a million
/// and more were folded into six digits: seeds 1000000 and 131734 gave the same ids).
///
/// Rule ids-change-with-the-epoch [assumed]: the epoch (``SimulatedStore/init(app:catalog:start:seed:epoch:)``,
/// `simctl serve`'s reset) gives the same store new identities, so a backend that de-duplicates on ids and UUIDs sees
/// a replay as new data. Epoch 0 writes no epoch digits: its ids are those of a store without an epoch, byte for
/// byte (16 digits for seeds 0–999999). Epochs 1–999 add exactly three digits (19 digits for seeds 0–999999, below
/// 9223372036854775807, the largest signed 64-bit integer, because the prefix is 2, 3 or 7); the length tells epoch 0
/// from the others and the three digits tell the others apart. Larger epochs write all their digits (longer ids,
/// still decimal strings, as for large seeds).
/// - Transaction ids: prefix `2`, counter from 1 (seed 0: `2000000000000001`, `2000000000000002`, ...; seed 0 epoch 1:
///   `2001000000000000001`). Apple's ids are decimal digit strings of 15–16 digits (reference §2.5, §2.8, S-TXID);
///   seeds 0–999999 give exactly 16 digits at epoch 0, seeds up to 999999999 at most 19 (still within a signed 64-bit
///   integer, as servers often store them); larger seeds give longer ids [assumed: Apple documents no length, and
///   ids are strings on the wire].
/// - Web order line item ids: prefix `3`, so they never equal a transaction id.
/// - `appTransactionId`: prefix `7`, the counter being the customer's position (first named is 1): one per Apple
///   Account per app, a different one for each family member (Notifications 2.15, reference §2.5 and the 2025-02
///   changes). Apple's own examples are decimal digit strings (library test resource `appTransaction.json`:
///   `"71134"`); the length here is [assumed].
/// - Notification UUIDs are lowercase RFC 4122 strings with version 4 and variant bits set, built from SplitMix64
///   mixes of (seed, counter), where the counter of epoch `e` is `e * 2^40` + the notification's number: distinct for
///   distinct (epoch, counter) pairs, and epoch 0's are those of a store without an epoch.
package struct IdentifierSource: Sendable {
    package let seed: UInt64
    /// The store's epoch (rule ids-change-with-the-epoch); 0 changes nothing.
    package let epoch: UInt32
    var transactionCounter: UInt64 = 0
    var webOrderCounter: UInt64 = 0
    var uuidCounter: UInt64 = 0

    package init(seed: UInt64, epoch: UInt32 = 0) {
        self.seed = seed
        self.epoch = epoch
    }

    /// `prefix` + seed digits + the counter as 9 digits.
    func identifier(prefix: Character, counter: UInt64) -> String {
        identifier(prefixDigit: prefix.asciiValue!, counter: counter)
    }

    /// The same for any seed (``GeneratedIdentifier``), written straight into the string's storage: ids are made on
    /// every charge, and joining the parts with `+` (five strings, several allocations) was a tenth of the one-year
    /// simbench lifecycle's instructions.
    static func identifier(prefixDigit: UInt8, seed: UInt64, epoch: UInt32 = 0, counter: UInt64) -> String {
        func digits(_ value: UInt64) -> Int {
            var count = 1
            var rest = value / 10
            while rest > 0 {
                count += 1
                rest /= 10
            }
            return count
        }
        let epochCount = epoch == 0 ? 0 : max(3, digits(UInt64(epoch)))
        let seedCount = max(6, digits(seed))
        let count = 1 + epochCount + seedCount + max(9, digits(counter))
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
            write(UInt64(epoch), from: 1, to: 1 + epochCount)
            write(seed, from: 1 + epochCount, to: 1 + epochCount + seedCount)
            write(counter, from: 1 + epochCount + seedCount, to: count)
            return count
        }
    }

    /// The same, with this source's seed and epoch.
    func identifier(prefixDigit: UInt8, counter: UInt64) -> String {
        Self.identifier(prefixDigit: prefixDigit, seed: seed, epoch: epoch, counter: counter)
    }

    package mutating func nextTransactionId() -> String {
        nextTransactionIdentifier().text
    }

    /// The next transaction id as its parts (``nextWebOrderLineItemIdentifier()``): the same digits as
    /// ``nextTransactionId()``, written only when read.
    mutating func nextTransactionIdentifier() -> StoreIdentifier {
        transactionCounter += 1
        return .generated(
            GeneratedIdentifier(
                seed: seed, prefixDigit: UInt8(ascii: "2"), counter: transactionCounter, epoch: epoch))
    }

    package mutating func nextWebOrderLineItemId() -> String {
        nextWebOrderLineItemIdentifier().text
    }

    /// The next web order line item id as its parts: its text is written only when read (a run that never encodes
    /// its transactions never builds these strings).
    mutating func nextWebOrderLineItemIdentifier() -> StoreIdentifier {
        webOrderCounter += 1
        return .generated(
            GeneratedIdentifier(
                seed: seed, prefixDigit: UInt8(ascii: "3"), counter: webOrderCounter, epoch: epoch))
    }

    /// The `appTransactionId` of the customer at `position` (0 for the first customer named): a pure function of the
    /// seed and the position, so it is the same in every transaction and renewal info of that customer.
    package func appTransactionId(forCustomerAt position: Int) -> String {
        identifier(prefixDigit: UInt8(ascii: "7"), counter: UInt64(position) + 1)
    }

    package mutating func nextNotificationUUID() -> NotificationUUID {
        uuidCounter += 1
        let counter = uuidCounter &+ (UInt64(epoch) << 40)
        let high = SplitMix64.mix(seed ^ 0x5349_4D43_544C_5555 &+ counter &* 0x9E37_79B9_7F4A_7C15)
        let low = SplitMix64.mix(high ^ counter ^ (seed << 1))
        // Version 4 in the high nibble of byte 6, variant 10xx in byte 8.
        return NotificationUUID(
            high: (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000,
            low: (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }
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
struct GeneratedIdentifier: Hashable, Sendable {
    var seed: UInt64
    var counter: UInt64
    var prefixDigit: UInt8
    /// After `prefixDigit`, so the value stays 24 bytes.
    var epoch: UInt32

    init(seed: UInt64, prefixDigit: UInt8, counter: UInt64, epoch: UInt32 = 0) {
        self.seed = seed
        self.counter = counter
        self.prefixDigit = prefixDigit
        self.epoch = epoch
    }

    var text: String {
        IdentifierSource.identifier(prefixDigit: prefixDigit, seed: seed, epoch: epoch, counter: counter)
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
        where x.seed == y.seed && x.prefixDigit == y.prefixDigit && x.epoch == y.epoch:
            return x.counter == y.counter
        case (.text(let x), .text(let y)): return x == y
        default: return a.text == b.text
        }
    }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
