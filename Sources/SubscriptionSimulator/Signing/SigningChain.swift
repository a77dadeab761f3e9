import SimctlCrypto

/// The certificates a JWS carries in `x5c` and the leaf's private key: a chain in the shape Apple's App Store
/// signing chain has (reference §2.2), so that Apple's `SignedDataVerifier`, given this chain's root, verifies the
/// simulator's payloads exactly as it verifies the App Store's.
///
/// The shape, as Apple's libraries check it (app-store-server-library `ChainVerifier`: three certificates, an
/// X.509 path to a trusted root under OpenSSL's strict flags, and two marker extensions):
/// - **root**: self-signed CA; BasicConstraints `cA` (critical), KeyUsage keyCertSign and cRLSign (critical),
///   SubjectKeyIdentifier.
/// - **intermediate**: CA with path length 0, the same key usages, Subject and Authority Key Identifiers, and
///   the extension ``appleIntermediateMarker`` (`1.2.840.113635.100.6.2.1`, NULL, not critical).
/// - **leaf**: BasicConstraints without `cA` (critical), KeyUsage digitalSignature (critical), Subject and
///   Authority Key Identifiers, and ``appleLeafMarker`` (`1.2.840.113635.100.6.11.1`, NULL, not critical).
///
/// All keys are P-256 and all signatures ecdsa-with-SHA256. Generated chains are deterministic: keys, serial
/// numbers and signatures (RFC 6979) derive from the CA seed alone, so every scenario and run shares one root.
/// **Test data only**: the seed is public, so anyone can sign as this CA. Trust its root in tests, never in
/// production.
public struct SigningChain: Hashable, Sendable {
    /// The self-signed root: the certificate a verifier is told to trust.
    public let root: Certificate
    /// The CA the root issued; it issued ``leaf``.
    public let intermediate: Certificate
    /// The certificate of the key that signs payloads.
    public let leaf: Certificate
    /// The key that signs payloads; it belongs to ``leaf``.
    package let leafKey: P256.PrivateKey

    /// `x5c` order: leaf, intermediate, root (RFC 7515 §4.1.6).
    public var certificates: [Certificate] { [leaf, intermediate, root] }

    /// One certificate of a chain: its DER and PEM forms, which is what a verifier is given, and the parsed
    /// certificate for the package's own code (``x509``).
    public struct Certificate: Hashable, Sendable {
        /// The parsed certificate.
        package let x509: X509Certificate

        /// Wraps a parsed certificate.
        package init(_ x509: X509Certificate) { self.x509 = x509 }

        /// The whole certificate, DER.
        public var derRepresentation: [UInt8] { x509.derRepresentation }
        /// The `CERTIFICATE` PEM text.
        public var pemRepresentation: String { x509.pemRepresentation }
    }

    /// Marks Apple's intermediate CA ("Apple Worldwide Developer Relations"); Apple's libraries require it.
    package static let appleIntermediateMarker = DER.ObjectIdentifier("1.2.840.113635.100.6.2.1")!
    /// Marks the App Store's payload-signing leaf; Apple's libraries require it.
    package static let appleLeafMarker = DER.ObjectIdentifier("1.2.840.113635.100.6.11.1")!

    /// The documented default CA seed: `simctl-test-ca-1`. Changing it (`--ca-seed`) gives another root.
    public static let defaultCASeed = "simctl-test-ca-1"

    /// The chain every run signs with unless told otherwise (``generate(caSeed:leafNotAfter:ocspURL:)`` with the default
    /// seed); computed once.
    public static let `default`: SigningChain = generate().chain

    /// A chain brought by the user (`simctl run --signing-chain DIR`). Checked: the leaf key belongs to the leaf,
    /// the leaf is signed by the intermediate and the intermediate by the root, and the root signs itself.
    /// Extensions are not checked here: a chain Apple's verifier rejects is a legitimate negative test.
    package init(
        root: X509Certificate, intermediate: X509Certificate, leaf: X509Certificate, leafKey: P256.PrivateKey
    ) throws(SigningChainError) {
        guard leafKey.publicKey == leaf.publicKey else {
            throw SigningChainError("the leaf private key does not belong to the leaf certificate")
        }
        guard leaf.isSigned(by: intermediate.publicKey) else {
            throw SigningChainError("the leaf certificate is not signed by the intermediate's key")
        }
        guard intermediate.isSigned(by: root.publicKey) else {
            throw SigningChainError("the intermediate certificate is not signed by the root's key")
        }
        guard root.isSigned(by: root.publicKey) else {
            throw SigningChainError("the root certificate is not self-signed")
        }
        self.root = Certificate(root)
        self.intermediate = Certificate(intermediate)
        self.leaf = Certificate(leaf)
        self.leafKey = leafKey
    }

    /// Reads a chain from PEM texts: three `CERTIFICATE` blocks and the leaf's `PRIVATE KEY` or `EC PRIVATE KEY`.
    public init(rootPEM: String, intermediatePEM: String, leafPEM: String, leafKeyPEM: String) throws(SigningChainError)
    {
        func certificate(_ text: String, _ name: String) throws(SigningChainError) -> X509Certificate {
            do throws(CertificateError) { return try X509Certificate(pem: text) } catch {
                throw SigningChainError("\(name) certificate: \(error.message)")
            }
        }
        let key: P256.PrivateKey
        do throws(KeyEncodingError) { key = try ECKeyEncoding.privateKey(pem: leafKeyPEM) } catch {
            throw SigningChainError("leaf private key: \(error.message)")
        }
        try self.init(
            root: try certificate(rootPEM, "root"), intermediate: try certificate(intermediatePEM, "intermediate"),
            leaf: try certificate(leafPEM, "leaf"), leafKey: key)
    }

    init(
        unchecked root: X509Certificate, _ intermediate: X509Certificate, _ leaf: X509Certificate,
        _ key: P256.PrivateKey
    ) {
        self.root = Certificate(root)
        self.intermediate = Certificate(intermediate)
        self.leaf = Certificate(leaf)
        self.leafKey = key
    }

    /// A generated chain and all three private keys (the CA keys are for issuing further test certificates).
    public struct Generated: Hashable, Sendable {
        public var chain: SigningChain
        package var rootKey: P256.PrivateKey
        package var intermediateKey: P256.PrivateKey
    }

    /// The first validity instant of generated certificates, 1970-01-01T00:00:00Z: the start of the simulator's
    /// timeline.
    public static let validFrom = Instant(millisecondsSince1970: 0)

    /// Generates the chain for `caSeed` (UTF-8 bytes of the text). Keys are
    /// `P256.PrivateKey(derivedFrom: seed, label: "simctl root" / "simctl intermediate" / "simctl leaf")`, serial
    /// numbers the first 16 bytes of HMAC-SHA-256(seed, "serial " + role) with the top bit cleared and the next
    /// set. Validity runs from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z, covering the whole virtual timeline,
    /// except that `leafNotAfter` ends the leaf's (for expired-certificate tests).
    ///
    /// `ocspURL` (opt-in; `simctl certs export --ocsp-url URL`) adds to the intermediate and the leaf, after their
    /// other extensions, an Authority Information Access extension naming the OCSP responder at that URL (RFC 5280
    /// §4.2.2.1), for verifiers with online checks on (``OCSPResponder``). Keys and serial numbers stay those of
    /// the seed; without it the chain is byte for byte the one it always was.
    public static func generate(
        caSeed: String = defaultCASeed, leafNotAfter: Instant? = nil, ocspURL: String? = nil
    ) -> Generated {
        generate(
            caSeed: caSeed, leafNotAfter: leafNotAfter, leafMarker: appleLeafMarker,
            intermediateMarker: appleIntermediateMarker, ocspURL: ocspURL)
    }

    /// ``generate(caSeed:leafNotAfter:ocspURL:)`` with the markers replaced (for wrong-OID tests).
    package static func generate(
        caSeed: String, leafNotAfter: Instant?, leafMarker: DER.ObjectIdentifier,
        intermediateMarker: DER.ObjectIdentifier, ocspURL: String? = nil
    ) -> Generated {
        let access = ocspURL.map { [X509Certificate.Extension.authorityInformationAccess(ocspURL: $0)] } ?? []
        let seed = Array(caSeed.utf8)
        let rootKey = P256.PrivateKey(derivedFrom: seed, label: "simctl root")
        let intermediateKey = P256.PrivateKey(derivedFrom: seed, label: "simctl intermediate")
        let leafKey = P256.PrivateKey(derivedFrom: seed, label: "simctl leaf")
        func serial(_ role: String) -> [UInt8] {
            var bytes = Array(HMACSHA256.authenticationCode(for: Array("serial \(role)".utf8), key: seed).prefix(16))
            bytes[0] = bytes[0] & 0x7F | 0x40
            return bytes
        }
        let organization = "simctl"
        let unit = "Test data only - not Apple"
        let rootName = DistinguishedName(
            commonName: "simctl Test Root CA", organizationalUnit: unit, organization: organization, country: "US")
        let intermediateName = DistinguishedName(
            commonName: "simctl Test Intermediate CA", organizationalUnit: unit, organization: organization,
            country: "US")
        let leafName = DistinguishedName(
            commonName: "simctl Test App Store Signing", organizationalUnit: unit, organization: organization,
            country: "US")
        let rootID = X509Certificate.keyIdentifier(of: rootKey.publicKey)
        let intermediateID = X509Certificate.keyIdentifier(of: intermediateKey.publicKey)
        let leafID = X509Certificate.keyIdentifier(of: leafKey.publicKey)
        let end = Instant(ASN1Time.noWellDefinedExpiration)
        let root = X509Certificate.Template(
            serialNumber: serial("root"), issuer: rootName, subject: rootName, notBefore: ASN1Time(validFrom),
            notAfter: ASN1Time(end), publicKey: rootKey.publicKey,
            extensions: [
                .basicConstraints(isCA: true),
                .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(rootID),
            ]
        ).issued(by: rootKey)
        let intermediate = X509Certificate.Template(
            serialNumber: serial("intermediate"), issuer: rootName, subject: intermediateName,
            notBefore: ASN1Time(validFrom), notAfter: ASN1Time(end), publicKey: intermediateKey.publicKey,
            extensions: [
                .basicConstraints(isCA: true, pathLength: 0),
                .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(intermediateID),
                .authorityKeyIdentifier(rootID),
                .marker(intermediateMarker),
            ] + access
        ).issued(by: rootKey)
        let leafEnd = leafNotAfter.map { Instant(millisecondsSince1970: $0.millisecondsSince1970 / 1000 * 1000) } ?? end
        let leaf = X509Certificate.Template(
            serialNumber: serial("leaf"), issuer: intermediateName, subject: leafName, notBefore: ASN1Time(validFrom),
            notAfter: ASN1Time(min(max(leafEnd, validFrom), end)), publicKey: leafKey.publicKey,
            extensions: [
                .basicConstraints(isCA: false),
                .keyUsage([.digitalSignature]),
                .subjectKeyIdentifier(leafID),
                .authorityKeyIdentifier(intermediateID),
                .marker(leafMarker),
            ] + access
        ).issued(by: intermediateKey)
        return Generated(
            chain: SigningChain(unchecked: root, intermediate, leaf, leafKey), rootKey: rootKey,
            intermediateKey: intermediateKey)
    }
}

extension X509Certificate.Template {
    /// Signs a template this file built; those always satisfy the reader's rules.
    fileprivate func issued(by key: P256.PrivateKey) -> X509Certificate {
        do { return try signed(by: key) } catch {
            preconditionFailure("a generated certificate does not parse: \(error)")
        }
    }
}

extension ASN1Time {
    /// The certificate time of `instant`, its milliseconds dropped (certificates carry whole seconds).
    init(_ instant: Instant) {
        let c = CalendarMath.components(of: instant)
        self.init(year: c.year, month: c.month, day: c.day, hour: c.hour, minute: c.minute, second: c.second)
    }
}

extension Instant {
    /// The instant a certificate time names.
    init(_ time: ASN1Time) {
        self = CalendarMath.instant(
            year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute,
            second: time.second)
    }
}

/// A chain that cannot be used: unreadable files, or keys and signatures that do not link up.
public struct SigningChainError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
