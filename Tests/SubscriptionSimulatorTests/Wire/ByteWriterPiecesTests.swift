import Testing
@testable import SubscriptionSimulator

/// The small pieces the canonical byte writer is built from agree with the obvious definitions on every edge.
@Suite struct ByteWriterPiecesTests {
    @Test func decimalDigitsAreStringOfTheValue() {
        var values: [Int64] = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, Int64.max, Int64.min, Int64.min + 1, -1, -10]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power, -(power - 1)]
        }
        values += [1_767_225_600_000, 1_767_225_600_123, -1_767_225_600_001]
        for value in values {
            var out: [UInt8] = []
            CanonicalJSONBytes.appendDecimal(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
    }

    @Test func escapingIsNeededExactlyForControlCharactersQuotesAndBackslashes() {
        // Every byte value at every position of strings 1 to 20 bytes long (the word-at-a-time part and the tail).
        for length in 1...20 {
            for position in 0..<length {
                for byte in UInt8(0)...UInt8(255) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    let expected = byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                    let found = bytes.withUnsafeBufferPointer { CanonicalJSON.needsEscaping($0) }
                    #expect(found == expected, "byte \(byte) at \(position) of \(length)")
                }
            }
        }
        // Neighbours of the special values in every byte of a word, and bytes with the high bit set.
        let mixed: [UInt8] = [0x1F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF, 0xC3, 0xA9, 0x41]
        #expect(!mixed.dropFirst().withUnsafeBufferPointer { CanonicalJSON.needsEscaping($0) })
        #expect(mixed.withUnsafeBufferPointer { CanonicalJSON.needsEscaping($0) })
    }
}
