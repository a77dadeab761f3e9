import Foundation
import Testing

@testable import SimctlCrypto

/// FIPS 180-4 SHA-256 examples (NIST "Cryptographic Standards and Guidelines: Examples with Intermediate Values",
/// SHA256.pdf and SHA2_Additional.pdf).
@Suite struct SHA256Tests {
    static let vectors: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test(arguments: vectors.indices)
    func fipsExampleDigests(index: Int) {
        let vector = Self.vectors[index]
        #expect(Hex.string(SHA256.hash(Array(vector.message.utf8))) == vector.digest)
    }

    @Test func oneMillionLetterADigest() {
        #expect(
            Hex.string(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Splitting the message at every point around the block and padding boundaries gives the one-shot digest.
    @Test func incrementalHashingMatchesOneShotAtEverySplit() {
        let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 200] {
            let whole = SHA256.hash(Array(message[0..<length]))
            for split in 0...length {
                var hasher = SHA256.Hasher()
                hasher.update(Array(message[0..<split]))
                hasher.update(Array(message[split..<length]))
                #expect(hasher.finalize() == whole, "length \(length), split at \(split)")
            }
        }
    }

    /// The engines this CPU runs: the portable C one always, the SHA-instruction one where present.
    static let engines = SHA256.Engine.allCases.filter(\.isAvailable)

    /// NIST CAVP's byte-oriented SHA-256 vectors (SHAVS): every record of SHA256ShortMsg.rsp (0 to 64 bytes) and
    /// SHA256LongMsg.rsp (163 to 6,400 bytes), with each engine, hashed in one piece and in two.
    @Test(arguments: engines)
    func cavpShortAndLongMessageVectors(engine: SHA256.Engine) throws {
        var count = 0
        for file in ["SHA256ShortMsg.rsp", "SHA256LongMsg.rsp"] {
            for record in try Self.cavpRecords(file) {
                var whole = SHA256.Hasher(engine: engine)
                whole.update(record.message)
                #expect(Hex.string(whole.finalize()) == record.digest, "\(file) Len = \(record.message.count * 8)")
                var split = SHA256.Hasher(engine: engine)
                let cut = record.message.count * 2 / 5
                split.update(Array(record.message[..<cut]))
                split.update(Array(record.message[cut...]))
                #expect(Hex.string(split.finalize()) == record.digest, "\(file) Len = \(record.message.count * 8)")
                count += 1
            }
        }
        #expect(count == 65 + 64)
    }

    /// The portable C engine, forced, on the FIPS examples and the million a's (whatever the CPU would pick).
    @Test func portableEngineForcedMatchesFIPSExamples() {
        for vector in Self.vectors {
            var hasher = SHA256.Hasher(engine: .portable)
            hasher.update(Array(vector.message.utf8))
            #expect(Hex.string(hasher.finalize()) == vector.digest)
        }
        var hasher = SHA256.Hasher(engine: .portable)
        hasher.update([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(Hex.string(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// The best engine is available: the SHA-instruction one exactly when the CPU reports those, else the vector
    /// schedule's AVX-512VL build, its AVX2 build, the BMI2 build, the portable one, the first the CPU runs.
    @Test func bestEngineIsAvailable() {
        #expect(SHA256.Engine.best.isAvailable)
        #expect(SHA256.Engine.portable.isAvailable)
        if SHA256.Engine.x86SHAExtensions.isAvailable || SHA256.Engine.armv8SHA2.isAvailable {
            #expect(SHA256.Engine.best == .x86SHAExtensions || SHA256.Engine.best == .armv8SHA2)
        } else if SHA256.Engine.x86AVX512VL.isAvailable {
            #expect(SHA256.Engine.best == .x86AVX512VL)
            #expect(SHA256.Engine.x86AVX2.isAvailable)
        } else if SHA256.Engine.x86AVX2.isAvailable {
            #expect(SHA256.Engine.best == .x86AVX2)
        } else if SHA256.Engine.x86BMI2.isAvailable {
            #expect(SHA256.Engine.best == .x86BMI2)
        } else {
            #expect(SHA256.Engine.best == .portable)
        }
    }

    /// A prefix state (midstate) continued with the rest of the message gives the digest of the whole, for prefixes
    /// around the block boundaries and messages that do not start with the prefix (hashed whole).
    @Test(arguments: engines)
    func prefixStateGivesTheWholeMessagesDigest(engine: SHA256.Engine) {
        let message = (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 5) }
        for prefixLength in [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 300] {
            let prefix = SHA256.Prefix(Array(message[..<prefixLength]), engine: engine)
            for length in [prefixLength, prefixLength + 1, prefixLength + 64, 400] where length <= 400 {
                let whole = Array(message[..<length])
                let digest = whole.withUnsafeBytes { prefix.hash($0) }
                #expect(digest == SHA256.hash(whole), "prefix \(prefixLength), length \(length)")
            }
            if prefixLength > 0 {
                var other = message
                other[prefixLength - 1] ^= 1
                #expect(!other.withUnsafeBytes { prefix.isPrefix(of: $0) })
                #expect(other.withUnsafeBytes { prefix.hash($0) } == SHA256.hash(other))
                let short = Array(message[..<(prefixLength - 1)])
                #expect(short.withUnsafeBytes { prefix.hash($0) } == SHA256.hash(short))
            }
        }
    }

    /// Records (message, digest) of a CAVP SHAVS byte-oriented `.rsp` file in Vectors/.
    static func cavpRecords(_ file: String) throws -> [(message: [UInt8], digest: String)] {
        var records: [(message: [UInt8], digest: String)] = []
        var length: Int?
        var message: [UInt8]?
        for line in try CryptoVectors.text(file).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "Len": length = Int(parts[1])
            case "Msg": message = Hex.bytes(parts[1])
            case "MD":
                let bytes = try #require(message)
                let bits = try #require(length)
                records.append((Array(bytes.prefix(bits / 8)), parts[1]))
            default: break
            }
        }
        return records
    }
}
