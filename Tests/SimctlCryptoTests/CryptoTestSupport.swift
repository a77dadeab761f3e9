import Foundation

/// Hex helpers for the SimctlCrypto tests.
enum Hex {
    /// Bytes of a hexadecimal string (spaces ignored); nil when it is not hex.
    static func bytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// Bytes of a hex literal known to be valid (test constants).
    static func literal(_ text: String) -> [UInt8] { bytes(text)! }

    static func string(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// The committed test vectors, read by path beside this file (Package.swift excludes the folder from the target's
/// sources).
enum CryptoVectors {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }
}

/// Seeded test inputs: SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014),
/// so these tests need nothing outside SimctlCrypto and every run sees the same inputs. Ranges are mapped by
/// modulo; the bias does not matter for test inputs.
struct TestRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An integer in `range`, which must span fewer than 2^63 values.
    mutating func nextInt(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}
