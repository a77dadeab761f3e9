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
}
