// P-256 ECDSA keys, ES256 signing with deterministic nonces (RFC 6979) and verification (FIPS 186-5 section 6.4).
//
// FOR TEST DATA ONLY. SimctlCrypto exists so simctl can sign simulated App Store payloads with keys derived
// from a published seed; those keys protect nothing. The code is NOT constant-time: table lookups are indexed by
// secret nonce digits, additions are skipped for zero digits, inversion is a variable-time binary extended Euclidean
// algorithm, and exceptional cases branch. Anyone who can time or observe the process may learn the keys. Do not
// use it to protect secrets; use CryptoKit, swift-crypto or OpenSSL.
//
// Determinism: a signature depends only on the key and the message (RFC 6979 section 3.2 with HMAC-SHA-256), so
// the same scenario and seed always produce byte-identical signatures.
//
// Correctness is checked by FIPS 180-4 and RFC 4231 vectors, RFC 6979 A.2.5 signatures byte for byte, all of
// Wycheproof's ecdsa_secp256r1_sha256 vectors, NIST CAVP SigVer [P-256,SHA-256] (Tests/SimctlCryptoTests), and in
// CI by Python's `cryptography` (1,000 signatures each way; Tests/Conformance/crypto_crosscheck.py). Speed:
// `simbench signing`.

/// The NIST P-256 curve (secp256r1): ECDSA keys and signatures, as ES256 (RFC 7518 section 3.4) uses them.
package enum P256 {
    /// A P-256 private key: a scalar d in [1, n-1], with its public key d * G.
    package struct PrivateKey: Sendable, Hashable {
        /// d, a plain (not Montgomery) 256-bit integer.
        let scalar: UInt256
        /// The public key d * G.
        package let publicKey: PublicKey

        init(validScalar: UInt256) {
            scalar = validScalar
            let point = P256Curve.multiplyGenerator(validScalar).affine()!
            publicKey = PublicKey(point: point)
        }

        /// A key from its 32-byte big-endian scalar, which must lie in [1, n-1].
        init(rawRepresentation: [UInt8]) throws {
            guard rawRepresentation.count == 32 else {
                throw CryptoFormatError(
                    "a P-256 private key is 32 bytes (a big-endian scalar); found \(rawRepresentation.count) bytes")
            }
            let value = UInt256(bigEndian: rawRepresentation)
            guard !value.isZero, value.isLess(than: MontgomeryModulus.n.m) else {
                throw CryptoFormatError(
                    "a P-256 private key must lie in [1, n-1], n the group order; found 0 or a value >= n")
            }
            self.init(validScalar: value)
        }

        /// A deterministic key derived from `seed` and `label`, so one seed yields many independent keys.
        ///
        /// Derivation (simctl's own, stable across versions): for counter = 0, 1, 2, ... the candidate is
        /// HMAC-SHA-256(key: seed, message: "simctl P-256 private key" || 0x00 || len(seed) || len(label) || label
        /// || counter), with the lengths (in bytes; the label as UTF-8) and the counter as 4-byte big-endian
        /// integers. The seed's length is in the message because HMAC pads short keys with zeros: without it the
        /// seeds [1] and [1, 0] would give the same key. The first candidate that, read as a big-endian integer,
        /// lies in [1, n-1] is the scalar (rejection sampling; a candidate is rejected with probability below 2^-32).
        package init(derivedFrom seed: [UInt8], label: String) {
            let labelBytes = Array(label.utf8)
            var counter: UInt32 = 0
            while true {
                var message = Array("simctl P-256 private key".utf8) + [0]
                message += bigEndianBytes(UInt32(truncatingIfNeeded: seed.count))
                message += bigEndianBytes(UInt32(truncatingIfNeeded: labelBytes.count))
                message += labelBytes
                message += bigEndianBytes(counter)
                let candidate = UInt256(bigEndian: HMACSHA256.authenticationCode(for: message, key: seed))
                if !candidate.isZero, candidate.isLess(than: MontgomeryModulus.n.m) {
                    self.init(validScalar: candidate)
                    return
                }
                counter &+= 1
            }
        }

        /// The 32-byte big-endian scalar.
        var rawRepresentation: [UInt8] { scalar.bigEndianBytes }

        /// The ES256 signature of `message`: SHA-256, then ECDSA with the RFC 6979 nonce.
        package func signature(for message: [UInt8]) -> ECDSASignature {
            var hasher = SHA256.Hasher()
            hasher.update(message)
            hasher.finish()
            var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &digest) { hasher.storeDigest(into: $0.baseAddress!) }
            return withUnsafeBytes(of: &digest) { signature(digestBytes: $0) }
        }

        /// The ECDSA signature of a message digest (its leftmost 256 bits are used, RFC 6979 bits2int), with the
        /// RFC 6979 nonce computed with HMAC-SHA-256.
        func signature(forDigest digest: [UInt8]) -> ECDSASignature {
            digest.withUnsafeBytes { signature(digestBytes: $0) }
        }

        func signature(digestBytes: UnsafeRawBufferPointer) -> ECDSASignature {
            let order = MontgomeryModulus.n
            let e = order.reduce(bitsToInteger(digestBytes))
            var nonces = RFC6979Nonces(privateKey: scalar, reducedDigest: e)
            while true {
                let k = nonces.next()
                guard let x = P256Curve.generatorMultipleX(k) else { continue }
                let r = order.reduce(x)
                if r.isZero { continue }
                let rd = order.multiply(order.toMontgomery(r), scalar)
                let kInverse = order.inverse(order.toMontgomery(k))
                let s = order.multiply(kInverse, order.add(e, rd))
                if s.isZero { continue }
                return ECDSASignature(r: r, s: s)
            }
        }
    }

    /// ES256 over messages that all begin with the same bytes: a JWS signing input `base64url(header) "."
    /// base64url(payload)`, whose header part is constant for a signer. The SHA-256 state after the prefix (the
    /// "midstate") is computed once, when the signer is made, and each message hashes only what follows it. The
    /// signature is exactly `key.signature(for: message)`; a message that does not start with the prefix is hashed
    /// whole.
    package struct PrefixSigner: Sendable {
        package let key: PrivateKey
        package let prefix: SHA256.Prefix

        package init(key: PrivateKey, prefix: [UInt8], engine: SHA256.Engine = .best) {
            self.key = key
            self.prefix = SHA256.Prefix(prefix, engine: engine)
        }

        /// The ES256 signature of `message` (prefix included).
        package func signature(for message: UnsafeRawBufferPointer) -> ECDSASignature {
            var hasher: SHA256.Hasher
            if prefix.isPrefix(of: message) {
                hasher = prefix.hasher(continuingWith: message)
            } else {
                hasher = SHA256.Hasher(engine: prefix.state.engine)
                hasher.update(bytes: message)
            }
            hasher.finish()
            var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &digest) { hasher.storeDigest(into: $0.baseAddress!) }
            return withUnsafeBytes(of: &digest) { key.signature(digestBytes: $0) }
        }
    }

    /// A P-256 public key: a point of the curve other than the point at infinity.
    package struct PublicKey: Sendable, Hashable {
        /// The point, affine, coordinates in Montgomery form.
        let point: AffinePoint

        init(point: AffinePoint) {
            self.point = point
        }

        /// A key from its uncompressed ANSI X9.63 / SEC 1 encoding: 0x04 || X || Y, 65 bytes. The coordinates must
        /// be below p and the point must be on the curve (SEC 1 section 3.2.2.1; the cofactor is 1).
        package init(x963Representation: [UInt8]) throws {
            guard x963Representation.count == 65 else {
                throw CryptoFormatError(
                    "an uncompressed P-256 public key is 65 bytes (0x04 || X || Y); "
                        + "found \(x963Representation.count) bytes")
            }
            guard x963Representation[0] == 0x04 else {
                throw CryptoFormatError(
                    "an uncompressed P-256 public key starts with 0x04; found 0x"
                        + String(x963Representation[0], radix: 16))
            }
            let field = MontgomeryModulus.p
            let (x, y) = x963Representation.withUnsafeBytes {
                (
                    UInt256(bigEndian: UnsafeRawBufferPointer(rebasing: $0[1..<33])),
                    UInt256(bigEndian: UnsafeRawBufferPointer(rebasing: $0[33..<65]))
                )
            }
            guard x.isLess(than: field.m), y.isLess(than: field.m) else {
                throw CryptoFormatError("a P-256 public key coordinate is not below the field prime p")
            }
            let point = AffinePoint(x: field.toMontgomery(x), y: field.toMontgomery(y))
            guard P256Curve.isOnCurve(point) else {
                throw CryptoFormatError("the P-256 public key is not a point of the curve (y^2 != x^3 - 3x + b)")
            }
            self.point = point
        }

        /// 0x04 || X || Y (65 bytes).
        package var x963Representation: [UInt8] {
            let field = MontgomeryModulus.p
            var out = [UInt8](repeating: 4, count: 65)
            out.withUnsafeMutableBytes {
                field.fromMontgomery(point.x).store(bigEndianInto: $0.baseAddress! + 1)
                field.fromMontgomery(point.y).store(bigEndianInto: $0.baseAddress! + 33)
            }
            return out
        }

        /// Whether `signature` is a valid ES256 signature of `message` (SHA-256, then ECDSA verification).
        package func isValidSignature(_ signature: ECDSASignature, for message: [UInt8]) -> Bool {
            var hasher = SHA256.Hasher()
            hasher.update(message)
            hasher.finish()
            var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &digest) { hasher.storeDigest(into: $0.baseAddress!) }
            return withUnsafeBytes(of: &digest) { isValidSignature(signature, digestBytes: $0) }
        }

        /// Whether `signature` is a valid ECDSA signature of the digest (leftmost 256 bits used). Rejects r or s
        /// outside [1, n-1] and a sum u1 G + u2 Q at infinity (FIPS 186-5 section 6.4.2).
        func isValidSignature(_ signature: ECDSASignature, forDigest digest: [UInt8]) -> Bool {
            digest.withUnsafeBytes { isValidSignature(signature, digestBytes: $0) }
        }

        func isValidSignature(_ signature: ECDSASignature, digestBytes: UnsafeRawBufferPointer) -> Bool {
            let order = MontgomeryModulus.n
            let r = signature.r
            let s = signature.s
            guard !r.isZero, r.isLess(than: order.m), !s.isZero, s.isLess(than: order.m) else { return false }
            let e = order.reduce(bitsToInteger(digestBytes))
            let w = order.inverse(order.toMontgomery(s))
            let u1 = order.multiply(w, e)
            let u2 = order.multiply(w, r)
            let sum = P256Curve.multiplyGenerator(u1).adding(P256Curve.multiply(point, by: u2))
            guard let affine = sum.affine() else { return false }
            return order.reduce(MontgomeryModulus.p.fromMontgomery(affine.x)) == r
        }
    }
}

/// bits2int of RFC 6979 section 2.3.2 for qlen = 256: the leftmost 256 bits of the digest as an integer (shorter
/// digests are read as they are).
func bitsToInteger(_ digest: UnsafeRawBufferPointer) -> UInt256 {
    if digest.count >= 32 { return UInt256(bigEndian: UnsafeRawBufferPointer(rebasing: digest[0..<32])) }
    var padded: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    withUnsafeMutableBytes(of: &padded) { buffer in
        if let base = digest.baseAddress {
            buffer.baseAddress!.advanced(by: 32 - digest.count).copyMemory(from: base, byteCount: digest.count)
        }
    }
    return withUnsafeBytes(of: &padded) { UInt256(bigEndian: $0) }
}

private func bigEndianBytes(_ value: UInt32) -> [UInt8] {
    [
        UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
        UInt8(truncatingIfNeeded: value),
    ]
}

/// The nonce generator of RFC 6979 section 3.2 for P-256 with HMAC-SHA-256 (qlen = hlen = 256), steps b to h.
struct RFC6979Nonces {
    private var key: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // K
    private var value: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // V
    private var keyed: HMACSHA256.KeyedState
    private var started = false

    init(privateKey: UInt256, reducedDigest: UInt256) {
        var x: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var h: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &x) { privateKey.store(bigEndianInto: $0.baseAddress!) }
        withUnsafeMutableBytes(of: &h) { reducedDigest.store(bigEndianInto: $0.baseAddress!) }
        let ones: UInt64 = 0x0101_0101_0101_0101
        value = (ones, ones, ones, ones)  // step b
        keyed = Self.zeroKeyed  // step c: K = 0x00...
        for separator: UInt8 in [0, 1] {  // steps d-e and f-g
            var state = keyed
            withUnsafeBytes(of: &value) { state.inner.update(bytes: $0) }
            withUnsafeBytes(of: separator) { state.inner.update(bytes: $0) }
            withUnsafeBytes(of: &x) { state.inner.update(bytes: $0) }
            withUnsafeBytes(of: &h) { state.inner.update(bytes: $0) }
            withUnsafeMutableBytes(of: &key) { state.finish(into: $0.baseAddress!) }
            rekeyAndAdvance()
        }
    }

    /// The HMAC state of step c's key, 32 zero bytes: the same for every signature, so its two compressions (the
    /// padded key's inner and outer blocks) are made once.
    private static let zeroKeyed: HMACSHA256.KeyedState = {
        var zero: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeBytes(of: &zero) { HMACSHA256.KeyedState(key: $0) }
    }()

    /// keyed = HMAC state for K; V = HMAC_K(V).
    private mutating func rekeyAndAdvance() {
        keyed = withUnsafeBytes(of: &key) { HMACSHA256.KeyedState(key: $0) }
        advanceValue()
    }

    private mutating func advanceValue() {
        var state = keyed
        withUnsafeBytes(of: &value) { state.inner.update(bytes: $0) }
        withUnsafeMutableBytes(of: &value) { state.finish(into: $0.baseAddress!) }
    }

    /// The next candidate k in [1, n-1] (step h; after the first, K = HMAC_K(V || 0x00), V = HMAC_K(V) first).
    mutating func next() -> UInt256 {
        while true {
            if started {
                var state = keyed
                withUnsafeBytes(of: &value) { state.inner.update(bytes: $0) }
                withUnsafeBytes(of: UInt8(0)) { state.inner.update(bytes: $0) }
                withUnsafeMutableBytes(of: &key) { state.finish(into: $0.baseAddress!) }
                rekeyAndAdvance()
            }
            started = true
            advanceValue()
            let k = withUnsafeBytes(of: &value) { UInt256(bigEndian: $0) }
            if !k.isZero, k.isLess(than: MontgomeryModulus.n.m) { return k }
        }
    }
}

/// A key or signature encoding the Signing primitives could not accept: what was found and what was expected.
struct CryptoFormatError: Error, Equatable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
