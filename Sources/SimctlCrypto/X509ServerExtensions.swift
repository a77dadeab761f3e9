/// The extensions of test certificates for servers (`simctl certs tls`) and for an OCSP responder: subject
/// alternative names, extended key usage, and the Authority Information Access that names an OCSP responder.
extension X509Certificate.Extension {
    static let subjectAlternativeNameOID = DER.ObjectIdentifier("2.5.29.17")!
    static let extendedKeyUsageOID = DER.ObjectIdentifier("2.5.29.37")!
    static let authorityInformationAccessOID = DER.ObjectIdentifier("1.3.6.1.5.5.7.1.1")!
    /// `id-ad-ocsp` (RFC 5280 §4.2.2.1).
    static let ocspAccessMethod = DER.ObjectIdentifier("1.3.6.1.5.5.7.48.1")!
    /// `id-kp-serverAuth` (RFC 5280 §4.2.1.12).
    package static let serverAuth = DER.ObjectIdentifier("1.3.6.1.5.5.7.3.1")!
    /// `id-kp-OCSPSigning` (RFC 6960 §4.2.2.2).
    package static let ocspSigning = DER.ObjectIdentifier("1.3.6.1.5.5.7.3.9")!

    /// One subject alternative name (RFC 5280 §4.2.1.6): a `dNSName` (`[2] IA5String`) or an `iPAddress`
    /// (`[7] OCTET STRING`, four octets for IPv4).
    package enum AlternativeName: Hashable, Sendable {
        case dns(String)
        case ipv4([UInt8])
    }

    /// SubjectAltName (RFC 5280 §4.2.1.6), not critical (the subject is not empty).
    package static func subjectAlternativeNames(_ names: [AlternativeName]) -> Self {
        let entries = names.map { name -> [UInt8] in
            switch name {
            case .dns(let host): return DER.tlv(DER.Tag.contextPrimitive(2), Array(host.utf8))
            case .ipv4(let octets): return DER.tlv(DER.Tag.contextPrimitive(7), octets)
            }
        }
        return Self(oid: subjectAlternativeNameOID, isCritical: false, value: DER.sequence(entries))
    }

    /// ExtendedKeyUsage (RFC 5280 §4.2.1.12), not critical.
    package static func extendedKeyUsage(_ purposes: [DER.ObjectIdentifier]) -> Self {
        Self(oid: extendedKeyUsageOID, isCritical: false, value: DER.sequence(purposes.map(DER.objectIdentifier)))
    }

    /// Authority Information Access with one `id-ad-ocsp` access location, a URI (`[6] IA5String`), not critical
    /// (RFC 5280 §4.2.2.1): where a verifier asks whether the certificate is revoked.
    package static func ocspResponder(_ url: String) -> Self {
        let location = DER.tlv(DER.Tag.contextPrimitive(6), Array(url.utf8))
        return Self(
            oid: authorityInformationAccessOID, isCritical: false,
            value: DER.sequence([DER.sequence([DER.objectIdentifier(ocspAccessMethod), location])]))
    }
}
