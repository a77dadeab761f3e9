/// Derives every identifier the store hands out from the seed and counters: never random, never wall-clock.
///
/// - Transaction ids are 16-digit decimal strings, `2` + 6 digits from the seed + 9-digit counter, starting at
///   counter 1 (seed 0: `2000000000000001`, `2000000000000002`, ...). Apple's ids are decimal digit strings of this
///   length (reference §2.8, §2.9).
/// - Web order line item ids use the same seed digits with prefix `3`, so they never equal a transaction id.
/// - Notification UUIDs are lowercase RFC 4122 strings with version 4 and variant bits set, built from SplitMix64
///   mixes of (seed, counter): distinct for distinct counters.
public struct IdentifierSource: Sendable {
    public let seed: UInt64
    var transactionCounter: UInt64 = 0
    var webOrderCounter: UInt64 = 0
    var uuidCounter: UInt64 = 0

    public init(seed: UInt64) {
        self.seed = seed
    }

    /// Six digits derived from the seed (the seed itself when it is small, so ids stay readable).
    var seedDigits: UInt64 { seed < 1_000_000 ? seed : SplitMix64.mix(seed) % 1_000_000 }

    public mutating func nextTransactionId() -> String {
        transactionCounter += 1
        return String(2_000_000_000_000_000 + seedDigits * 1_000_000_000 + transactionCounter)
    }

    public mutating func nextWebOrderLineItemId() -> String {
        webOrderCounter += 1
        return String(3_000_000_000_000_000 + seedDigits * 1_000_000_000 + webOrderCounter)
    }

    public mutating func nextNotificationUUID() -> NotificationUUID {
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
