/// The extensions of test certificates for servers (`simctl certs tls`): subject alternative names and extended key
/// usage.
extension X509Certificate.Extension {
    static let subjectAlternativeNameOID = DER.ObjectIdentifier("2.5.29.17")!
    static let extendedKeyUsageOID = DER.ObjectIdentifier("2.5.29.37")!
    /// `id-kp-serverAuth` (RFC 5280 §4.2.1.12).
    package static let serverAuth = DER.ObjectIdentifier("1.3.6.1.5.5.7.3.1")!

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
}
