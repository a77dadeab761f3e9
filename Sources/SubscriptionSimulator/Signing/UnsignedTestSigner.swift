import SimctlCrypto

/// Apple's header shape, `{"alg":"ES256","x5c":[leaf, intermediate, root]}` (reference §2.2, S-HDR), with three
/// fixed placeholder certificates and a deterministic 64-byte placeholder signature (``placeholderSignature(of:)``:
/// a 64-bit hash of the signing input, expanded). **The signature is not valid.** Apple's official libraries skip signature verification only for the
/// `LocalTesting` and `Xcode` environments, so payloads signed this way decode there and nowhere else; use
/// ``ES256Signer`` for `Sandbox` and `Production`.
public struct UnsignedTestSigner: PayloadSigner {
    public init() {}

    /// Placeholder certificate strings (standard base64, as `x5c` requires); not real certificates.
    public static let placeholderCertificates = [
        "U0lNQ1RMLUxFQUYtQ0VSVElGSUNBVEUtTk9ULVJFQUw=",
        "U0lNQ1RMLUlOVEVSTUVESUFURS1DRVJUSUZJQ0FURS1OT1QtUkVBTA==",
        "U0lNQ1RMLVJPT1QtQ0VSVElGSUNBVEUtTk9ULVJFQUw=",
    ]

    public var header: JSONValue {
        .object(["alg": .string("ES256"), "x5c": .array(Self.placeholderCertificates.map(JSONValue.string))])
    }

    /// The header never changes: encoded once (it was 7% of encoding a notification).
    public var encodedHeader: String { Self.encodedHeaderText }
    static let encodedHeaderText = Base64URL.encode(Array(CanonicalJSON.string(UnsignedTestSigner().header).utf8))

    public func signature(for signingInput: [UInt8]) -> [UInt8] {
        signingInput.withUnsafeBytes { Self.placeholderSignature(of: $0) }
    }

    public func signature(forSigningInputIn signingInput: UnsafeRawBufferPointer) -> [UInt8] {
        Self.placeholderSignature(of: signingInput)
    }

    /// The placeholder: deterministic and different for different inputs, and cheap, since every LocalTesting
    /// notification signs about 5 KB across its three JWS. The input is read 8 bytes at a time (little-endian) into
    /// four independent lanes (each `rotate(lane ^ word, 31) × odd constant`), so the multiplications overlap
    /// instead of forming one byte-by-byte chain; the last bytes and the length are mixed in, the lanes folded with
    /// SplitMix64's finalizer, and the 64-bit result expanded to 64 bytes as SplitMix64 of `hash + block` for
    /// blocks 0 to 7, each little-endian.
    static func placeholderSignature(of input: UnsafeRawBufferPointer) -> [UInt8] {
        let multiplier: UInt64 = 0x9FB2_1C65_1E98_DF25
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (
            0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0, 0x082E_FA98_EC4E_6C89
        )
        @inline(__always) func step(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            let x = lane ^ word
            return (x << 31 | x >> 33) &* multiplier
        }
        @inline(__always) func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: input.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        let count = input.count
        var offset = 0
        while offset + 32 <= count {
            lanes.0 = step(lanes.0, word(offset))
            lanes.1 = step(lanes.1, word(offset + 8))
            lanes.2 = step(lanes.2, word(offset + 16))
            lanes.3 = step(lanes.3, word(offset + 24))
            offset += 32
        }
        while offset + 8 <= count {
            lanes.0 = step(lanes.0, word(offset))
            offset += 8
        }
        var last: UInt64 = 0
        for index in offset..<count { last |= UInt64(input[index]) << UInt64(8 * (index - offset)) }
        lanes.1 = step(lanes.1, last)
        var hash = UInt64(count)
        hash = SplitMix64.mix(hash ^ lanes.0)
        hash = SplitMix64.mix(hash ^ lanes.1)
        hash = SplitMix64.mix(hash ^ lanes.2)
        hash = SplitMix64.mix(hash ^ lanes.3)
        return [UInt8](unsafeUninitializedCapacity: 64) { out, initialized in
            for block in 0..<8 {
                let value = SplitMix64.mix(hash &+ UInt64(block))
                for byte in 0..<8 { out[block * 8 + byte] = UInt8(truncatingIfNeeded: value >> UInt64(8 * byte)) }
            }
            initialized = 64
        }
    }
}
