import SimctlCrypto

/// Signs JWS payloads (RFC 7515). Two signers ship: ``ES256Signer`` (real ECDSA P-256 signatures with an
/// Apple-shaped certificate chain, for the `Sandbox` and `Production` environments) and ``UnsignedTestSigner``
/// (Apple's header shape with a placeholder signature, for `LocalTesting` and `Xcode`).
public protocol PayloadSigner: Sendable {
    /// The protected header (`alg`, `x5c`, ...).
    var header: JSONValue { get }
    /// `base64url` of the canonical JSON of ``header``; signers that sign often compute it once.
    var encodedHeader: String { get }
    /// The signature bytes over the signing input `base64url(header).base64url(payload)`.
    func signature(for signingInput: [UInt8]) -> [UInt8]
    /// ``signature(for:)`` over bytes the caller holds (the signing input is written in place, inside the line
    /// being built); by default it copies them and calls ``signature(for:)``.
    func signature(forSigningInputIn signingInput: UnsafeRawBufferPointer) -> [UInt8]
}

extension PayloadSigner {
    public var encodedHeader: String { Base64URL.encode(Array(CanonicalJSON.string(header).utf8)) }

    public func signature(forSigningInputIn signingInput: UnsafeRawBufferPointer) -> [UInt8] {
        signature(for: Array(signingInput))
    }
}
