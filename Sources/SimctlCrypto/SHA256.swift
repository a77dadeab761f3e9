// SHA-256 (FIPS 180-4, section 6.2). Part of SimctlCrypto: cryptography for simulated test data only.
// It is not hardened for protecting secrets (see P256.swift for what is and is not constant-time); SHA-256 itself
// has no secret-dependent branches or table lookups.

/// SHA-256 as specified by FIPS 180-4: a 32-byte digest of any byte string.
///
/// `SHA256.hash(_:)` hashes a whole message; `SHA256.Hasher` hashes one in pieces.
package enum SHA256 {
    /// The digest length in bytes (32).
    static let byteCount = 32

    /// The SHA-256 digest of `data` (32 bytes).
    package static func hash(_ data: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// An incremental SHA-256 computation: `update` with the message in any number of pieces, then `finalize`.
    struct Hasher: Sendable {
        /// H0...H7 of FIPS 180-4 section 5.3.3, then the running hash value.
        var h0: UInt32 = 0x6a09_e667
        var h1: UInt32 = 0xbb67_ae85
        var h2: UInt32 = 0x3c6e_f372
        var h3: UInt32 = 0xa54f_f53a
        var h4: UInt32 = 0x510e_527f
        var h5: UInt32 = 0x9b05_688c
        var h6: UInt32 = 0x1f83_d9ab
        var h7: UInt32 = 0x5be0_cd19
        /// The bytes of an incomplete block (64 bytes of storage; `pending` of them are in use).
        var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        var pending = 0
        /// Message length so far, in bytes.
        var length: UInt64 = 0

        init() {}

        /// Appends `data` to the message.
        mutating func update(_ data: [UInt8]) {
            data.withUnsafeBytes { update(bytes: $0) }
        }

        /// Appends the bytes of a string's UTF-8 encoding to the message.
        mutating func update(_ text: String) {
            var text = text
            text.withUTF8 { update(bytes: UnsafeRawBufferPointer($0)) }
        }

        /// Appends raw bytes to the message.
        mutating func update(bytes: UnsafeRawBufferPointer) {
            guard var source = bytes.baseAddress, !bytes.isEmpty else { return }
            var remaining = bytes.count
            length &+= UInt64(remaining)
            if pending > 0 {
                let take = min(64 - pending, remaining)
                withUnsafeMutableBytes(of: &block) { buffer in
                    buffer.baseAddress!.advanced(by: pending).copyMemory(from: source, byteCount: take)
                }
                pending += take
                source += take
                remaining -= take
                if pending < 64 { return }
                var copy = block
                withUnsafeBytes(of: &copy) { compress($0.baseAddress!) }
                pending = 0
            }
            while remaining >= 64 {
                compress(source)
                source += 64
                remaining -= 64
            }
            if remaining > 0 {
                withUnsafeMutableBytes(of: &block) { buffer in
                    buffer.baseAddress!.copyMemory(from: source, byteCount: remaining)
                }
                pending = remaining
            }
        }

        /// Pads the message (FIPS 180-4 section 5.1.1) and returns its digest. The hasher is spent afterwards.
        mutating func finalize() -> [UInt8] {
            finish()
            return digestBytes
        }

        /// Pads and processes the last block(s); the digest is then h0...h7.
        mutating func finish() {
            let bitLength = length &* 8
            var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0)
            let padCount = pending < 56 ? 56 - pending : 120 - pending
            withUnsafeMutableBytes(of: &padding) { buffer in
                buffer[0] = 0x80
                for i in 0..<8 { buffer[padCount + i] = UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * UInt64(i))) }
                let savedLength = length
                update(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<(padCount + 8)]))
                length = savedLength
            }
        }

        /// The current hash value as 32 big-endian bytes.
        var digestBytes: [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            out.withUnsafeMutableBytes { storeDigest(into: $0.baseAddress!) }
            return out
        }

        /// Processes one 64-byte block (FIPS 180-4 section 6.2.2).
        mutating func compress(_ block: UnsafeRawPointer) {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                for t in 0..<16 {
                    w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self))
                }
                for t in 16..<64 {
                    let x = w[t - 15]
                    let y = w[t - 2]
                    let sigma0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
                    let sigma1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
                    w[t] = sigma1 &+ w[t - 7] &+ sigma0 &+ w[t - 16]
                }
                var a = h0
                var b = h1
                var c = h2
                var d = h3
                var e = h4
                var f = h5
                var g = h6
                var h = h7
                roundConstants.withUnsafeBufferPointer { k in
                    for t in 0..<64 {
                        let bigSigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                        let choose = (e & f) ^ (~e & g)
                        let t1 = h &+ bigSigma1 &+ choose &+ k[t] &+ w[t]
                        let bigSigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = bigSigma0 &+ majority
                        h = g
                        g = f
                        f = e
                        e = d &+ t1
                        d = c
                        c = b
                        b = a
                        a = t1 &+ t2
                    }
                }
                h0 &+= a
                h1 &+= b
                h2 &+= c
                h3 &+= d
                h4 &+= e
                h5 &+= f
                h6 &+= g
                h7 &+= h
            }
        }
    }
}

@inline(__always)
private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

/// K0...K63 of FIPS 180-4 section 4.2.2.
private let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
]
