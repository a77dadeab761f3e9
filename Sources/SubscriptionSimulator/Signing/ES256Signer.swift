import SimctlCrypto

/// Signs JWS with ES256 (RFC 7518 §3.4: ECDSA P-256 with SHA-256, the signature as the 64-byte `r || s`) using
/// a ``SigningChain``'s leaf key, with the header Apple's App Store uses: `{"alg":"ES256","x5c":[leaf,
/// intermediate, root]}`, each certificate in standard base64 DER (reference §2.2). Apple's `SignedDataVerifier`
/// accepts these payloads when given the chain's root. Deterministic (RFC 6979 nonces): the same payload gives
/// the same JWS. The header is encoded once, when the signer is made, and so is the SHA-256 state after
/// `base64url(header) "."` (the signing input's constant prefix, mostly the certificate chain): each JWS hashes
/// only its payload (docs/signing.md).
///
/// For test data only: the default chain's keys derive from a public seed.
public struct ES256Signer: PayloadSigner {
    public let chain: SigningChain
    public let header: JSONValue
    public let encodedHeader: String
    /// The leaf key with the hash state after `encodedHeader + "."`.
    let prefixSigner: P256.PrefixSigner

    public init(chain: SigningChain = .default) {
        self.chain = chain
        self.header = .object([
            "alg": .string("ES256"),
            "x5c": .array(chain.certificates.map { .string(Base64URL.encodeStandard($0.derRepresentation)) }),
        ])
        self.encodedHeader = Base64URL.encode(Array(CanonicalJSON.string(header).utf8))
        self.prefixSigner = P256.PrefixSigner(
            key: chain.leafKey, prefix: Array(encodedHeader.utf8) + [UInt8(ascii: ".")])
    }

    public func signature(for signingInput: [UInt8]) -> [UInt8] {
        signingInput.withUnsafeBytes { signature(forSigningInputIn: $0) }
    }

    /// Signs in place (no copy); a signing input that starts with this signer's header hashes only the rest.
    public func signature(forSigningInputIn signingInput: UnsafeRawBufferPointer) -> [UInt8] {
        prefixSigner.signature(for: signingInput).rawRepresentation
    }

    /// ``ES256Signer`` over ``SigningChain/default``, made once.
    public static let defaultSigner = ES256Signer()
}

extension SimulatedEnvironment {
    /// The signer this environment uses unless told otherwise: ``ES256Signer`` with ``SigningChain/default`` for
    /// `Sandbox` and `Production` (where Apple's libraries verify signatures), ``UnsignedTestSigner`` for
    /// `LocalTesting` and `Xcode` (where they skip verification).
    public var defaultSigner: any PayloadSigner {
        switch self {
        case .localTesting, .xcode: return UnsignedTestSigner()
        case .sandbox, .production: return ES256Signer.defaultSigner
        }
    }
}
