// SHA-256 (FIPS 180-4, section 6.2). Part of SimctlCrypto: cryptography for simulated test data only.
// It is not hardened for protecting secrets (see P256.swift for what is and is not constant-time); SHA-256 itself
// has no secret-dependent branches or table lookups.

import CSHA256

/// SHA-256 as specified by FIPS 180-4: a 32-byte digest of any byte string.
///
/// `SHA256.hash(_:)` hashes a whole message; `SHA256.Hasher` hashes one in pieces; `SHA256.Prefix` holds the state
/// after a constant prefix, so messages that share it hash only the rest. The compression function is the C target
/// CSHA256: the CPU's SHA instructions where present (x86-64 SHA-NI, ARMv8 SHA2), else on x86-64 the message
/// schedule in vectors (AVX-512VL, AVX2) or the portable C built for BMI2, portable C otherwise.
package enum SHA256 {
    /// The digest length in bytes (32).
    static let byteCount = 32

    /// The SHA-256 digest of `data` (32 bytes).
    package static func hash(_ data: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// A compression function of the C target: `portable` runs everywhere; the others where the CPU has them.
    package enum Engine: Int32, Sendable, CaseIterable {
        case portable = 0
        case x86SHAExtensions = 1
        case armv8SHA2 = 2
        /// The portable C compiled for x86-64 BMI2 (`rorx`): where SHA-NI is missing but BMI2 is not.
        case x86BMI2 = 3
        /// Scalar rounds with the message schedule four words at a time in 128-bit vectors, built for AVX2 and BMI2:
        /// where SHA-NI is missing.
        case x86AVX2 = 4
        /// The same built for AVX-512VL (one-instruction vector rotations): where SHA-NI is missing.
        case x86AVX512VL = 5

        /// The fastest engine this CPU runs (detected once).
        package static let best = Engine(rawValue: csha256_best_engine()) ?? .portable

        /// Whether this CPU runs the engine.
        package var isAvailable: Bool { csha256_engine_available(rawValue) != 0 }
    }

    /// The hash state after a constant prefix (a JWS's `base64url(header) + "."`, the same for every payload a signer
    /// signs): computed once, copied for each message, so a message that starts with the prefix costs only the
    /// blocks after it. The digest is exactly SHA-256 of the whole message.
    package struct Prefix: Sendable {
        /// The prefix's bytes (to recognise messages that start with them).
        package let bytes: [UInt8]
        /// The state after `bytes`: whole blocks compressed, the rest pending.
        let state: Hasher

        package init(_ bytes: [UInt8], engine: Engine = .best) {
            self.bytes = bytes
            var hasher = Hasher(engine: engine)
            hasher.update(bytes)
            state = hasher
        }

        /// Whether `message` starts with the prefix.
        package func isPrefix(of message: UnsafeRawBufferPointer) -> Bool {
            guard message.count >= bytes.count else { return false }
            return bytes.withUnsafeBytes { prefix in
                var offset = 0
                while offset + 8 <= prefix.count {
                    if prefix.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        != message.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    {
                        return false
                    }
                    offset += 8
                }
                while offset < prefix.count {
                    if prefix[offset] != message[offset] { return false }
                    offset += 1
                }
                return true
            }
        }

        /// A hasher that has absorbed `message`, which must start with the prefix: only the bytes after it are hashed.
        func hasher(continuingWith message: UnsafeRawBufferPointer) -> Hasher {
            var hasher = state
            hasher.update(bytes: UnsafeRawBufferPointer(rebasing: message[bytes.count...]))
            return hasher
        }

        /// SHA-256 of `message` (32 bytes), using the stored state when it starts with the prefix.
        package func hash(_ message: UnsafeRawBufferPointer) -> [UInt8] {
            var hasher: Hasher
            if isPrefix(of: message) {
                hasher = self.hasher(continuingWith: message)
            } else {
                hasher = Hasher(engine: state.engine)
                hasher.update(bytes: message)
            }
            return hasher.finalize()
        }
    }

    /// An incremental SHA-256 computation: `update` with the message in any number of pieces, then `finalize`.
    package struct Hasher: Sendable {
        /// H0...H7 of FIPS 180-4 section 5.3.3, then the running hash value.
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
        )
        /// The bytes of an incomplete block (64 bytes of storage; `pending` of them are in use).
        var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        var pending = 0
        /// Message length so far, in bytes.
        var length: UInt64 = 0
        /// The compression function.
        let engine: Engine

        init() { engine = .best }

        /// A hasher that compresses with `engine` (tests force the portable one); `engine` must be available.
        package init(engine: Engine) {
            precondition(engine.isAvailable, "SHA-256 engine \(engine) does not run on this CPU")
            self.engine = engine
        }

        /// Appends `data` to the message.
        package mutating func update(_ data: [UInt8]) {
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
                withUnsafeBytes(of: &copy) { compress($0.baseAddress!, blocks: 1) }
                pending = 0
            }
            if remaining >= 64 {
                let blocks = remaining / 64
                compress(source, blocks: blocks)
                source += 64 * blocks
                remaining -= 64 * blocks
            }
            if remaining > 0 {
                withUnsafeMutableBytes(of: &block) { buffer in
                    buffer.baseAddress!.copyMemory(from: source, byteCount: remaining)
                }
                pending = remaining
            }
        }

        /// Pads the message (FIPS 180-4 section 5.1.1) and returns its digest. The hasher is spent afterwards.
        package mutating func finalize() -> [UInt8] {
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

        /// Processes whole 64-byte blocks (FIPS 180-4 section 6.2.2) with the C target's compression function.
        @inline(__always)
        mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
            let engine = engine.rawValue
            withUnsafeMutableBytes(of: &state) { words in
                csha256_compress(
                    engine, words.baseAddress!.assumingMemoryBound(to: UInt32.self),
                    data.assumingMemoryBound(to: UInt8.self), blocks)
            }
        }
    }
}
