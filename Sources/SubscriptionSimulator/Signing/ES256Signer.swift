import SimctlCrypto

/// Signs JWS with ES256 (RFC 7518 §3.4: ECDSA P-256 with SHA-256, the signature as the 64-byte `r || s`) using
/// a ``SigningChain``'s leaf key, with the header Apple's App Store uses: `{"alg":"ES256","x5c":[leaf,
/// intermediate, root]}`, each certificate in standard base64 DER (reference §2.2). Apple's `SignedDataVerifier`
/// accepts these payloads when given the chain's root. Deterministic (RFC 6979 nonces): the same payload gives
/// the same JWS. The header is encoded once, when the signer is made.
///
/// For test data only: the default chain's keys derive from a public seed.
public struct ES256Signer: PayloadSigner {
    public let chain: SigningChain
    public let header: JSONValue
    public let encodedHeader: String

    public init(chain: SigningChain = .default) {
        self.chain = chain
        self.header = .object([
            "alg": .string("ES256"),
            "x5c": .array(chain.certificates.map { .string(Base64URL.encodeStandard($0.derRepresentation)) }),
        ])
        self.encodedHeader = Base64URL.encode(Array(CanonicalJSON.string(header).utf8))
    }

    public func signature(for signingInput: [UInt8]) -> [UInt8] {
        chain.leafKey.signature(for: signingInput).rawRepresentation
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
