import SimctlCrypto

/// A test CA and a TLS server certificate it issued for host names (`simctl certs tls`), so that a TLS terminator
/// (stunnel, nginx) in front of `simctl serve` answers under the names Apple's libraries hard-code
/// (docs/server.md, "Unmodified clients over TLS").
///
/// - **CA**: self-signed, BasicConstraints `cA` with path length 0 (critical), KeyUsage keyCertSign and cRLSign
///   (critical), SubjectKeyIdentifier.
/// - **server**: BasicConstraints without `cA` (critical), KeyUsage digitalSignature (critical), ExtendedKeyUsage
///   serverAuth, SubjectAltName (every name: a `dNSName`, or an `iPAddress` for a dotted IPv4 address), Subject and
///   Authority Key Identifiers; the subject's common name is the first name.
///
/// P-256 keys and ecdsa-with-SHA256 signatures. Deterministic: keys and serial numbers derive from the seed alone (as
/// ``SigningChain/generate(caSeed:leafNotAfter:ocspURL:)``), so the same seed, names and validity give the same files.
/// **Test data only**: the seed is public; trust this CA only where the tests run.
public struct TLSCertificates: Hashable, Sendable {
    public let ca: SigningChain.Certificate
    public let server: SigningChain.Certificate
    package let serverKey: P256.PrivateKey

    /// The names Apple's libraries call: `local-testing-base-url` (Environment.LOCAL_TESTING in the Python and
    /// Node libraries), `api.storekit.apple.com` and `api.storekit-sandbox.apple.com` (reference Appendix E.4).
    public static let defaultNames = [
        "local-testing-base-url", "api.storekit.apple.com", "api.storekit-sandbox.apple.com",
    ]
    /// The documented default seed.
    public static let defaultSeed = "simctl-tls-1"
    /// The default first day of validity, 2026-01-01T00:00:00Z (a fixed date, so the files do not depend on the day
    /// they are made).
    public static let defaultNotBefore = Instant(millisecondsSince1970: 1_767_225_600_000)
    /// The default length of validity, in days.
    public static let defaultDays = 3650

    /// The server's private key, PKCS#8 PEM (`PRIVATE KEY`), as stunnel, nginx and Node read it.
    public var serverKeyPEM: String { ECKeyEncoding.pkcs8PEM(serverKey) }

    /// Why `name` cannot be a subject alternative name, or nil: a DNS name of letters, digits, hyphens and dots (a
    /// leading `*.` allowed), labels of 1 to 63 characters, at most 253 in all; or a dotted IPv4 address.
    public static func problem(with name: String) -> String? {
        if ipv4(name) != nil { return nil }
        let host = name.hasPrefix("*.") ? String(name.dropFirst(2)) : name
        guard !host.isEmpty, name.utf8.count <= 253 else { return "a host name has 1 to 253 characters" }
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard (1...63).contains(label.utf8.count) else { return "each label of a host name has 1 to 63 characters" }
            guard
                label.utf8.allSatisfy({
                    $0 < 0x80
                        && (Character(UnicodeScalar($0)).isLetter
                            || Character(UnicodeScalar($0)).isNumber || $0 == UInt8(ascii: "-"))
                })
            else { return "a host name holds letters, digits, hyphens and dots only" }
            guard label.first != "-", label.last != "-" else {
                return "a label of a host name cannot start or end with '-'"
            }
        }
        return nil
    }

    static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = UInt8(part), part == "\(value)"
            else { return nil }
            octets.append(value)
        }
        return octets
    }

    /// Issues the CA and the server certificate. `names` must be non-empty and each pass ``problem(with:)``; `days`
    /// at least 1 and the end before 10000.
    public static func generate(
        names: [String], seed: String = defaultSeed, notBefore: Instant = defaultNotBefore, days: Int = defaultDays
    ) throws(SigningChainError) -> TLSCertificates {
        guard !names.isEmpty else { throw SigningChainError("a server certificate needs at least one name") }
        for name in names {
            if let problem = problem(with: name) { throw SigningChainError("name '\(name)': \(problem)") }
        }
        let start = Instant(millisecondsSince1970: notBefore.millisecondsSince1970 / 1000 * 1000)
        let end = start.adding(.days(days))
        guard days >= 1, end <= Instant(ASN1Time.noWellDefinedExpiration), start >= SigningChain.validFrom else {
            throw SigningChainError("the validity must lie between 1970 and 9999 and last at least a day")
        }
        let bytes = Array(seed.utf8)
        let caKey = P256.PrivateKey(derivedFrom: bytes, label: "simctl tls ca")
        let serverKey = P256.PrivateKey(derivedFrom: bytes, label: "simctl tls server")
        func serial(_ role: String) -> [UInt8] {
            var serial = Array(HMACSHA256.authenticationCode(for: Array("serial \(role)".utf8), key: bytes).prefix(16))
            serial[0] = serial[0] & 0x7F | 0x40
            return serial
        }
        let unit = "Test data only - not Apple"
        let caName = DistinguishedName(
            commonName: "simctl Test TLS CA", organizationalUnit: unit, organization: "simctl", country: "US")
        let serverName = DistinguishedName(
            commonName: String(names[0].prefix(64)), organizationalUnit: unit, organization: "simctl", country: "US")
        let caID = X509Certificate.keyIdentifier(of: caKey.publicKey)
        let alternativeNames = names.map { name -> X509Certificate.Extension.AlternativeName in
            ipv4(name).map { .ipv4($0) } ?? .dns(name)
        }
        do throws(CertificateError) {
            let ca = try X509Certificate.Template(
                serialNumber: serial("tls ca"), issuer: caName, subject: caName, notBefore: ASN1Time(start),
                notAfter: ASN1Time(end), publicKey: caKey.publicKey,
                extensions: [
                    .basicConstraints(isCA: true, pathLength: 0), .keyUsage([.keyCertSign, .cRLSign]),
                    .subjectKeyIdentifier(caID),
                ]
            ).signed(by: caKey)
            let server = try X509Certificate.Template(
                serialNumber: serial("tls server"), issuer: caName, subject: serverName, notBefore: ASN1Time(start),
                notAfter: ASN1Time(end), publicKey: serverKey.publicKey,
                extensions: [
                    .basicConstraints(isCA: false), .keyUsage([.digitalSignature]),
                    .extendedKeyUsage([X509Certificate.Extension.serverAuth]),
                    .subjectAlternativeNames(alternativeNames),
                    .subjectKeyIdentifier(X509Certificate.keyIdentifier(of: serverKey.publicKey)),
                    .authorityKeyIdentifier(caID),
                ]
            ).signed(by: caKey)
            return TLSCertificates(
                ca: SigningChain.Certificate(ca), server: SigningChain.Certificate(server), serverKey: serverKey)
        } catch {
            throw SigningChainError("a server certificate for these names cannot be made: \(error.message)")
        }
    }
}
