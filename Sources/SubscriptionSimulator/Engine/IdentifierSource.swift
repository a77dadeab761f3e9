/// Derives every identifier the store hands out from the seed and counters: never random, never wall-clock.
///
/// Rule ids-keep-the-whole-seed: every numeric id is `prefix` + the seed's decimal digits (left-padded with zeros to
/// six) + a 9-digit counter. The seed is written whole, so two different seeds never share an id (before, seeds of
/// a million and more were folded into six digits: seeds 1000000 and 131734 gave the same ids).
/// - Transaction ids: prefix `2`, counter from 1 (seed 0: `2000000000000001`, `2000000000000002`, ...). Apple's ids
///   are decimal digit strings of 15–16 digits (reference §2.5, §2.8, S-TXID); seeds 0–999999 give exactly 16
///   digits, seeds up to 999999999 at most 19 (still within a signed 64-bit integer, as servers often store them);
///   larger seeds give longer ids [assumed: Apple documents no length, and ids are strings on the wire].
/// - Web order line item ids: prefix `3`, so they never equal a transaction id.
/// - `appTransactionId`: prefix `7`, the counter being the customer's position (first named is 1): one per Apple
///   Account per app, a different one for each family member (Notifications 2.15, reference §2.5 and the 2025-02
///   changes). Apple's own examples are decimal digit strings (library test resource `appTransaction.json`:
///   `"71134"`); the length here is [assumed].
/// - Notification UUIDs are lowercase RFC 4122 strings with version 4 and variant bits set, built from SplitMix64
///   mixes of (seed, counter): distinct for distinct counters.
package struct IdentifierSource: Sendable {
    package let seed: UInt64
    var transactionCounter: UInt64 = 0
    var webOrderCounter: UInt64 = 0
    var uuidCounter: UInt64 = 0

    package init(seed: UInt64) {
        self.seed = seed
    }

    /// `prefix` + seed digits + the counter as 9 digits.
    func identifier(prefix: Character, counter: UInt64) -> String {
        identifier(prefixDigit: prefix.asciiValue!, counter: counter)
    }

    /// The same for any seed (``GeneratedIdentifier``), written straight into the string's storage: ids are made on
    /// every charge, and joining the parts with `+` (five strings, several allocations) was a tenth of the one-year
    /// simbench lifecycle's instructions.
    static func identifier(prefixDigit: UInt8, seed: UInt64, counter: UInt64) -> String {
        func digits(_ value: UInt64) -> Int {
            var count = 1
            var rest = value / 10
            while rest > 0 {
                count += 1
                rest /= 10
            }
            return count
        }
        let seedCount = max(6, digits(seed))
        let count = 1 + seedCount + max(9, digits(counter))
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
            write(seed, from: 1, to: 1 + seedCount)
            write(counter, from: 1 + seedCount, to: count)
            return count
        }
    }

    /// The same, with this source's seed.
    func identifier(prefixDigit: UInt8, counter: UInt64) -> String {
        Self.identifier(prefixDigit: prefixDigit, seed: seed, counter: counter)
    }

    package mutating func nextTransactionId() -> String {
        nextTransactionIdentifier().text
    }

    /// The next transaction id as its parts (``nextWebOrderLineItemIdentifier()``): the same digits as
    /// ``nextTransactionId()``, written only when read.
    mutating func nextTransactionIdentifier() -> StoreIdentifier {
        transactionCounter += 1
        return .generated(GeneratedIdentifier(seed: seed, prefixDigit: UInt8(ascii: "2"), counter: transactionCounter))
    }

    package mutating func nextWebOrderLineItemId() -> String {
        nextWebOrderLineItemIdentifier().text
    }

    /// The next web order line item id as its parts: its text is written only when read (a run that never encodes
    /// its transactions never builds these strings).
    mutating func nextWebOrderLineItemIdentifier() -> StoreIdentifier {
        webOrderCounter += 1
        return .generated(GeneratedIdentifier(seed: seed, prefixDigit: UInt8(ascii: "3"), counter: webOrderCounter))
    }

    /// The `appTransactionId` of the customer at `position` (0 for the first customer named): a pure function of the
    /// seed and the position, so it is the same in every transaction and renewal info of that customer.
    package func appTransactionId(forCustomerAt position: Int) -> String {
        identifier(prefixDigit: UInt8(ascii: "7"), counter: UInt64(position) + 1)
    }

    package mutating func nextNotificationUUID() -> NotificationUUID {
        uuidCounter += 1
        let high = SplitMix64.mix(seed ^ 0x5349_4D43_544C_5555 &+ uuidCounter &* 0x9E37_79B9_7F4A_7C15)
        let low = SplitMix64.mix(high ^ uuidCounter ^ (seed << 1))
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
    var prefixDigit: UInt8
    var counter: UInt64

    var text: String { IdentifierSource.identifier(prefixDigit: prefixDigit, seed: seed, counter: counter) }
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
        case (.generated(let x), .generated(let y)) where x.seed == y.seed && x.prefixDigit == y.prefixDigit:
            return x.counter == y.counter
        case (.text(let x), .text(let y)): return x == y
        default: return a.text == b.text
        }
    }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
