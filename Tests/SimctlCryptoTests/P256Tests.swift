import Testing

@testable import SimctlCrypto

/// RFC 6979 appendix A.2.5: ECDSA on P-256 with SHA-256 and deterministic nonces.
@Suite struct RFC6979Tests {
    static let privateKey = Hex.literal("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")
    static let publicKey = Hex.literal(
        "04" + "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"
            + "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299")

    @Test func publicKeyOfTheA25PrivateKey() throws {
        let key = try P256.PrivateKey(rawRepresentation: Self.privateKey)
        #expect(key.publicKey.x963Representation == Self.publicKey)
        #expect(key.rawRepresentation == Self.privateKey)
    }

    @Test(arguments: [
        (
            "sample",
            "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"
                + "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"
        ),
        (
            "test",
            "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367"
                + "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"
        ),
    ])
    func sha256SignatureByteForByte(message: String, rs: String) throws {
        let key = try P256.PrivateKey(rawRepresentation: Self.privateKey)
        let signature = key.signature(for: Array(message.utf8))
        #expect(signature.rawRepresentation == Hex.literal(rs))
        #expect(key.publicKey.isValidSignature(signature, for: Array(message.utf8)))
        let viaDigest = key.signature(forDigest: SHA256.hash(Array(message.utf8)))
        #expect(viaDigest == signature)
    }
}

/// Signing and verification on keys derived from seeds, and what verification must reject.
@Suite struct ECDSARoundTripTests {
    static let order = Hex.literal("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    /// 40 keys from seeds, 5 messages each of 0 to 200 bytes: every signature verifies, and signing is
    /// deterministic (the same key and message give the same bytes).
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func signaturesOfSeededKeysVerify(seed: UInt64) {
        var random = TestRandom(seed: seed)
        for index in 0..<10 {
            let key = P256.PrivateKey(derivedFrom: [UInt8(seed)], label: "round trip \(index)")
            for _ in 0..<5 {
                let message = (0..<random.nextInt(in: 0...200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                let signature = key.signature(for: message)
                #expect(key.publicKey.isValidSignature(signature, for: message), "seed \(seed), key \(index)")
                #expect(key.signature(for: message) == signature, "seed \(seed), key \(index)")
            }
        }
    }

    @Test func alteredMessageFails() {
        let key = P256.PrivateKey(derivedFrom: [7], label: "tamper")
        let message = Array("the payload".utf8)
        let signature = key.signature(for: message)
        for index in message.indices {
            var altered = message
            altered[index] ^= 0x01
            #expect(!key.publicKey.isValidSignature(signature, for: altered), "byte \(index) flipped")
        }
        #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
        #expect(!key.publicKey.isValidSignature(signature, for: Array(message.dropLast())))
    }

    @Test func alteredSignatureFails() throws {
        let key = P256.PrivateKey(derivedFrom: [7], label: "tamper")
        let message = Array("the payload".utf8)
        let raw = key.signature(for: message).rawRepresentation
        for index in raw.indices {
            var altered = raw
            altered[index] ^= 0x80
            let signature = try ECDSASignature(rawRepresentation: altered)
            #expect(!key.publicKey.isValidSignature(signature, for: message), "byte \(index) flipped")
        }
    }

    @Test func signatureByAnotherKeyFails() {
        let message = Array("the payload".utf8)
        let signature = P256.PrivateKey(derivedFrom: [7], label: "signer").signature(for: message)
        let other = P256.PrivateKey(derivedFrom: [7], label: "someone else")
        #expect(!other.publicKey.isValidSignature(signature, for: message))
    }

    /// r and s must lie in [1, n-1] (FIPS 186-5 section 6.4.2 step 1): 0 and n are rejected, also when
    /// s = n + s' would be equivalent modulo n.
    @Test func outOfRangeRAndSAreRejected() throws {
        let key = P256.PrivateKey(derivedFrom: [7], label: "range")
        let message = Array("m".utf8)
        let raw = key.signature(for: message).rawRepresentation
        let r = Array(raw[0..<32])
        let s = Array(raw[32..<64])
        let zero = [UInt8](repeating: 0, count: 32)
        for (name, candidate) in [
            ("r = 0", zero + s), ("s = 0", r + zero), ("r = n", Self.order + s), ("s = n", r + Self.order),
            ("r = s = 0", zero + zero), ("all ones", [UInt8](repeating: 0xff, count: 64)),
        ] {
            let signature = try ECDSASignature(rawRepresentation: candidate)
            #expect(!key.publicKey.isValidSignature(signature, for: message), "\(name)")
        }
    }

    /// The ES256 form (RFC 7518 section 3.4) and DER carry the same r and s.
    @Test func rawAndDERFormsRoundTrip() throws {
        for index in 0..<20 {
            let key = P256.PrivateKey(derivedFrom: [9], label: "forms \(index)")
            let signature = key.signature(for: [UInt8(index)])
            #expect(try ECDSASignature(rawRepresentation: signature.rawRepresentation) == signature)
            #expect(try ECDSASignature(derRepresentation: signature.derRepresentation) == signature)
            #expect(signature.rawRepresentation.count == 64)
        }
    }
}

@Suite struct P256KeyTests {
    static let gx = "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
    static let gy = "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"

    @Test func privateKeyOneHasTheGeneratorAsPublicKey() throws {
        let one = try P256.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [1])
        #expect(Hex.string(one.publicKey.x963Representation) == "04" + Self.gx + Self.gy)
    }

    /// (n - 1) G = -G: same x, y = p - Gy.
    @Test func privateKeyNMinusOneHasMinusGeneratorAsPublicKey() throws {
        let key = try P256.PrivateKey(
            rawRepresentation: Hex.literal("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550"))
        #expect(
            Hex.string(key.publicKey.x963Representation)
                == "04" + Self.gx + "b01cbd1c01e58065711814b583f061e9d431cca994cea1313449bf97c840ae0a")
    }

    @Test(arguments: [
        ("zero", String(repeating: "00", count: 32)),
        ("n", "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"),
        ("n + 1", "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632552"),
        ("2^256 - 1", String(repeating: "ff", count: 32)),
        ("31 bytes", String(repeating: "01", count: 31)),
        ("33 bytes", String(repeating: "01", count: 33)),
    ])
    func privateKeyOutsideOneToNMinusOneIsRejected(name: String, hex: String) {
        #expect(throws: CryptoFormatError.self, "\(name)") { try P256.PrivateKey(rawRepresentation: Hex.literal(hex)) }
    }

    @Test func publicKeyRoundTripsThroughX963() throws {
        let key = P256.PrivateKey(derivedFrom: [5], label: "x963")
        let decoded = try P256.PublicKey(x963Representation: key.publicKey.x963Representation)
        #expect(decoded == key.publicKey)
    }

    @Test(arguments: [
        ("compressed prefix", "02" + gx + gy),
        ("hybrid prefix", "06" + gx + gy),
        ("64 bytes", gx + gy),
        ("x = p", "04" + "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff" + gy),
        ("y = p + Gy mod 2^256", "04" + gx + "4fe342e3fe1a7f9b8ee7eb4a7c0f9e162bce33586b315ecdcbb6406837bf51f4"),
        ("not on the curve", "04" + gx + "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f6"),
        ("origin", "04" + String(repeating: "00", count: 64)),
    ])
    func invalidPublicKeyIsRejected(name: String, hex: String) {
        #expect(throws: CryptoFormatError.self, "\(name)") {
            try P256.PublicKey(x963Representation: Hex.literal(hex))
        }
    }

    /// The documented derivation, pinned: HMAC-SHA-256(seed, "simctl P-256 private key" || 0x00 || len(seed) ||
    /// len(label) || label || counter). The value was computed independently with Python's hmac module (and its public key with
    /// Python's cryptography); fixtures pinned by teams depend on it never changing.
    @Test func derivedKeyIsPinned() {
        let key = P256.PrivateKey(derivedFrom: [1, 2, 3], label: "root")
        #expect(Hex.string(key.rawRepresentation) == "3bbb802cc0feabd3f155661e771ac4508d52d0b19175918ce84540aba47d99f0")
        #expect(
            Hex.string(key.publicKey.x963Representation)
                == "0430fdbae60fe3757189e7e6f79382ee959a661bbf8b4db1651c75a4b336fa6fad"
                + "5f7e667ac03ec8309e2b0343fa230368f53423f0d6e81829943ec50eed80ef3f")
    }

    @Test func derivedKeysDependOnSeedAndLabel() {
        let base = P256.PrivateKey(derivedFrom: [1], label: "a")
        #expect(P256.PrivateKey(derivedFrom: [1], label: "a") == base)
        #expect(P256.PrivateKey(derivedFrom: [2], label: "a") != base)
        #expect(P256.PrivateKey(derivedFrom: [1], label: "b") != base)
        // HMAC pads keys with zeros; the seed's length in the message keeps these two apart.
        #expect(P256.PrivateKey(derivedFrom: [1, 0], label: "a") != base)
    }
}

/// The strict DER reader of ECDSASignature: only X.690 DER of SEQUENCE { INTEGER r, INTEGER s }.
@Suite struct ECDSASignatureDERTests {
    static let r = "00" + "ef" + String(repeating: "11", count: 31)  // high bit set: needs the leading zero
    static let s = "01" + String(repeating: "22", count: 31)

    @Test func minimalEncodingIsAcceptedAndReproduced() throws {
        let der = Hex.literal("3045" + "0221" + Self.r + "0220" + Self.s)
        let signature = try ECDSASignature(derRepresentation: der)
        #expect(signature.derRepresentation == der)
        #expect(Hex.string(signature.rawRepresentation) == String(Self.r.dropFirst(2)) + Self.s)
    }

    @Test func smallIntegersUseShortEncodings() throws {
        let signature = try ECDSASignature(
            rawRepresentation: [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [0x80])
        #expect(Hex.string(signature.derRepresentation) == "3007020101020200" + "80")
    }

    static func cat(_ parts: String...) -> String { parts.joined() }

    static let malformed: [(name: String, hex: String)] = [
        ("long-form sequence length", cat("308145", "0221", r, "0220", s)),
        ("indefinite length", cat("3080", "0221", r, "0220", s, "0000")),
        ("length one too long", cat("3046", "0221", r, "0220", s)),
        ("length one too short", cat("3044", "0221", r, "0220", s)),
        ("trailing byte", cat("3045", "0221", r, "0220", s, "00")),
        ("missing leading zero (negative r)", cat("3044", "0220", String(r.dropFirst(2)), "0220", s)),
        ("redundant leading zero", cat("3046", "0221", "00", s, "0220", s)),
        ("long-form integer length", cat("3046", "028121", r, "0220", s)),
        ("wrong integer tag", cat("3045", "0321", r, "0220", s)),
        ("wrong sequence tag", cat("3145", "0221", r, "0220", s)),
        ("empty integer", cat("3024", "0200", "0220", s)),
        ("integer of 33 significant bytes", cat("3046", "0222", "0001", String(r.dropFirst(2)), "0220", s)),
        ("one integer only", cat("3023", "0221", r)),
        ("three integers", cat("3048", "0221", r, "0220", s, "020101")),
        ("empty input", cat("")),
    ]

    @Test(arguments: malformed)
    func nonCanonicalDERIsRejected(name: String, hex: String) {
        #expect(throws: CryptoFormatError.self, "\(name)") {
            try ECDSASignature(derRepresentation: Hex.literal(hex))
        }
    }

    @Test(arguments: [0, 63, 65])
    func rawFormOfWrongLengthIsRejected(count: Int) {
        #expect(throws: CryptoFormatError.self) {
            try ECDSASignature(rawRepresentation: [UInt8](repeating: 1, count: count))
        }
    }
}

/// Montgomery arithmetic checked against slower, independent routes.
@Suite struct P256ArithmeticTests {
    @Test(arguments: ["p", "n"])
    func binaryInverseMatchesFermatInverse(modulusName: String) {
        let modulus = modulusName == "p" ? MontgomeryModulus.p : MontgomeryModulus.n
        var random = TestRandom(seed: 11)
        for _ in 0..<200 {
            let value = modulus.reduce(
                UInt256(l0: random.next(), l1: random.next(), l2: random.next(), l3: random.next()))
            if value.isZero { continue }
            let inverse = modulus.inverse(value)
            #expect(inverse == modulus.inverseByExponentiation(value))
            #expect(modulus.multiply(value, inverse) == modulus.one)
        }
        #expect(modulus.inverse(.zero) == .zero)
        // Edges of the plain inverse: 1, 2, m - 1 (its own inverse), a power of two and a value of all-ones limbs.
        let m = modulus.m
        let edges = [
            UInt256.one, UInt256(l0: 2, l1: 0, l2: 0, l3: 0), UInt256(l0: m.l0 - 1, l1: m.l1, l2: m.l2, l3: m.l3),
            UInt256(l0: 0, l1: 0, l2: 0, l3: 1 << 63), UInt256(l0: .max, l1: .max, l2: .max, l3: 0),
        ]
        for value in edges {
            let inverse = modulus.plainInverse(value)
            #expect(inverse.isLess(than: m))
            #expect(modulus.multiply(modulus.toMontgomery(value), modulus.toMontgomery(inverse)) == modulus.one)
        }
        #expect(modulus.plainInverse(edges[2]) == edges[2])
    }

    /// The affine x alone (what signing uses) equals the full affine conversion's.
    @Test func affineXMatchesAffine() {
        var random = TestRandom(seed: 15)
        for _ in 0..<30 {
            let k = MontgomeryModulus.n.reduce(
                UInt256(l0: random.next(), l1: random.next(), l2: random.next(), l3: random.next()))
            let point = P256Curve.multiplyGenerator(k)
            #expect(point.affineX() == point.affine()?.x)
        }
        #expect(JacobianPoint.infinity.affineX() == nil)
    }

    /// The C target's affine x of k G (what signing uses) equals the Swift table sum's, for random scalars and for
    /// the edges: small scalars, n - 1 and n - 2, scalars with zero and 0xff bytes, n itself (the last addition
    /// meets the opposite point: the point at infinity) and zero; with every engine this CPU runs.
    @Test(arguments: P256Curve.Engine.allCases.filter(\.isAvailable))
    func generatorMultipleXInCMatchesSwift(engine: P256Curve.Engine) {
        let n = MontgomeryModulus.n.m
        var scalars: [UInt256] = [
            .one, UInt256(l0: 2, l1: 0, l2: 0, l3: 0), UInt256(l0: 255, l1: 0, l2: 0, l3: 0),
            UInt256(l0: 256, l1: 0, l2: 0, l3: 0), UInt256(l0: 0, l1: 0, l2: 0, l3: 1 << 56),
            UInt256(l0: n.l0 - 1, l1: n.l1, l2: n.l2, l3: n.l3), UInt256(l0: n.l0 - 2, l1: n.l1, l2: n.l2, l3: n.l3),
            UInt256(l0: 0x00ff_00ff_00ff_00ff, l1: 0xff00_ff00_ff00_ff00, l2: 0, l3: 0x00ff_ffff_ffff_ffff),
        ]
        var random = TestRandom(seed: 16)
        for _ in 0..<200 {
            scalars.append(
                MontgomeryModulus.n.reduce(
                    UInt256(l0: random.next(), l1: random.next(), l2: random.next(), l3: random.next())))
        }
        for k in scalars {
            let expected = P256Curve.multiplyGenerator(k).affineX().map { MontgomeryModulus.p.fromMontgomery($0) }
            #expect(P256Curve.generatorMultipleX(k, engine: engine) == expected, "k = \(k)")
        }
        #expect(P256Curve.generatorMultipleX(n, engine: engine) == nil, "n G is the point at infinity")
        #expect(P256Curve.generatorMultipleX(.zero, engine: engine) == nil)
    }

    @Test(arguments: ["p", "n"])
    func montgomeryFormRoundTrips(modulusName: String) {
        let modulus = modulusName == "p" ? MontgomeryModulus.p : MontgomeryModulus.n
        var random = TestRandom(seed: 12)
        for _ in 0..<200 {
            let value = modulus.reduce(
                UInt256(l0: random.next(), l1: random.next(), l2: random.next(), l3: random.next()))
            #expect(modulus.fromMontgomery(modulus.toMontgomery(value)) == value)
        }
        #expect(modulus.toMontgomery(.one) == modulus.one)
    }

    /// k G by the fixed-base table equals k G by the generic width-5 NAF multiplication.
    @Test func fixedBaseAndVariableBaseMultiplicationAgree() {
        var random = TestRandom(seed: 13)
        for _ in 0..<30 {
            let k = MontgomeryModulus.n.reduce(
                UInt256(l0: random.next(), l1: random.next(), l2: random.next(), l3: random.next()))
            let fixed = P256Curve.multiplyGenerator(k).affine()
            let variable = P256Curve.multiply(P256Curve.generator, by: k).affine()
            #expect(fixed == variable)
        }
        #expect(P256Curve.multiplyGenerator(MontgomeryModulus.n.m).isInfinity, "n G is the point at infinity")
    }
}
