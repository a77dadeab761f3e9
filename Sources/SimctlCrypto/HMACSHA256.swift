// HMAC with SHA-256 (RFC 2104, FIPS 198-1). Part of SimctlCrypto: cryptography for simulated test data only.

/// HMAC-SHA-256 (RFC 2104): a 32-byte message authentication code.
package enum HMACSHA256 {
    /// The HMAC-SHA-256 of `message` under `key` (32 bytes). Keys longer than the 64-byte block are hashed first.
    package static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var state = key.withUnsafeBytes { KeyedState(key: $0) }
        message.withUnsafeBytes { state.inner.update(bytes: $0) }
        return state.finalize()
    }

    /// The two hashers of RFC 2104 with the padded key already absorbed: inner (key XOR ipad) and outer
    /// (key XOR opad). Copying the state reuses the key's work for another message.
    struct KeyedState: Sendable {
        var inner = SHA256.Hasher()
        var outer = SHA256.Hasher()

        init(key: UnsafeRawBufferPointer) {
            var padded: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &padded) { block in
                if key.count > 64 {
                    var hasher = SHA256.Hasher()
                    hasher.update(bytes: key)
                    hasher.finish()
                    hasher.storeDigest(into: block.baseAddress!)
                } else if let base = key.baseAddress {
                    block.baseAddress!.copyMemory(from: base, byteCount: key.count)
                }
            }
            let ipad: UInt64 = 0x3636_3636_3636_3636
            let opad: UInt64 = 0x5c5c_5c5c_5c5c_5c5c
            var innerBlock = padded
            var outerBlock = padded
            withUnsafeMutableBytes(of: &innerBlock) { buffer in
                let words = buffer.bindMemory(to: UInt64.self)
                for i in 0..<8 { words[i] ^= ipad }
            }
            withUnsafeMutableBytes(of: &outerBlock) { buffer in
                let words = buffer.bindMemory(to: UInt64.self)
                for i in 0..<8 { words[i] ^= opad }
            }
            withUnsafeBytes(of: &innerBlock) { inner.update(bytes: $0) }
            withUnsafeBytes(of: &outerBlock) { outer.update(bytes: $0) }
        }

        /// Completes the MAC of the message given to `inner`, writing the 32 bytes to `destination`.
        mutating func finish(into destination: UnsafeMutableRawPointer) {
            inner.finish()
            var innerDigest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &innerDigest) { inner.storeDigest(into: $0.baseAddress!) }
            withUnsafeBytes(of: &innerDigest) { outer.update(bytes: $0) }
            outer.finish()
            outer.storeDigest(into: destination)
        }

        mutating func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            out.withUnsafeMutableBytes { finish(into: $0.baseAddress!) }
            return out
        }
    }
}

extension SHA256.Hasher {
    /// Writes the current hash value as 32 big-endian bytes.
    func storeDigest(into destination: UnsafeMutableRawPointer) {
        var words = state
        withUnsafeBytes(of: &words) { source in
            for i in 0..<8 {
                let word = source.load(fromByteOffset: 4 * i, as: UInt32.self)
                destination.storeBytes(of: word.bigEndian, toByteOffset: 4 * i, as: UInt32.self)
            }
        }
    }
}
