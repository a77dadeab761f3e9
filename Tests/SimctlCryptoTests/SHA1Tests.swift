import Foundation
import Testing

@testable import SimctlCrypto

/// FIPS 180-4 SHA-1 examples (NIST "Cryptographic Standards and Guidelines: Examples with Intermediate Values",
/// SHA1.pdf; the empty message and the 896-bit message from the NIST SHA test vectors).
@Suite struct SHA1Tests {
    static let vectors: [(message: String, digest: String)] = [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259"
        ),
    ]

    @Test(arguments: vectors.indices)
    func fipsExampleDigests(index: Int) {
        let vector = Self.vectors[index]
        #expect(Hex.string(SHA1.hash(Array(vector.message.utf8))) == vector.digest)
    }

    @Test func oneMillionLetterADigest() {
        #expect(
            Hex.string(SHA1.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// Messages whose padding crosses a block boundary (55, 56, 63, 64 and 65 bytes) give 20-byte digests that differ.
    @Test func paddingBoundaries() {
        let digests = [55, 56, 63, 64, 65].map { SHA1.hash([UInt8](repeating: 0x61, count: $0)) }
        #expect(digests.allSatisfy { $0.count == 20 })
        #expect(Set(digests.map(Hex.string)).count == 5)
    }
}
