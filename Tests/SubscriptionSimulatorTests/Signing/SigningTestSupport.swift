import Foundation

/// Hex helpers for the Signing tests.
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

/// The committed test vectors (Package.swift excludes the folder from the target's sources).
enum SigningVectors {
    static let folder = PackagePaths.root.appendingPathComponent("Tests/SubscriptionSimulatorTests/Signing/Vectors")

    static func text(_ name: String) throws -> String {
        try PackagePaths.read(folder.appendingPathComponent(name))
    }
}
