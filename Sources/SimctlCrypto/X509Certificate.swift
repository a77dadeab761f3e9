/// An X.509 v3 certificate (RFC 5280 §4.1) with a P-256 key, signed with ecdsa-with-SHA256: the only kind the
/// simulator makes and reads. Parsing is strict DER (see ``DER``) plus RFC 5280's structural rules: version 3,
/// a positive serial number of at most 20 octets, the same signature algorithm inside and outside the
/// `tbsCertificate`, no duplicate extensions, and `critical` omitted when false. For test data only.
package struct X509Certificate: Hashable, Sendable {
    /// The whole certificate, DER.
    package let derRepresentation: [UInt8]
    /// The signed part, DER (what ``signature`` covers).
    let tbsCertificate: [UInt8]
    /// The serial number's magnitude, big-endian, without a sign octet.
    package let serialNumber: [UInt8]
    package let issuer: DistinguishedName
    package let subject: DistinguishedName
    package let notBefore: ASN1Time
    package let notAfter: ASN1Time
    package let publicKey: P256.PublicKey
    let extensions: [Extension]
    let signature: ECDSASignature

    /// `ecdsa-with-SHA256` (RFC 5758 §3.2; its AlgorithmIdentifier has no parameters).
    static let ecdsaWithSHA256 = DER.ObjectIdentifier("1.2.840.10045.4.3.2")!

    /// One extension (RFC 5280 §4.1, `Extension`): its OID, criticality and the DER inside `extnValue`.
    package struct Extension: Hashable, Sendable {
        var oid: DER.ObjectIdentifier
        package var isCritical: Bool
        package var value: [UInt8]

        init(oid: DER.ObjectIdentifier, isCritical: Bool, value: [UInt8]) {
            self.oid = oid
            self.isCritical = isCritical
            self.value = value
        }

        var derEncoded: [UInt8] {
            var fields = [DER.objectIdentifier(oid)]
            if isCritical { fields.append(DER.boolean(true)) }
            fields.append(DER.octetString(value))
            return DER.sequence(fields)
        }

        package static let basicConstraintsOID = DER.ObjectIdentifier("2.5.29.19")!
        package static let keyUsageOID = DER.ObjectIdentifier("2.5.29.15")!
        static let subjectKeyIdentifierOID = DER.ObjectIdentifier("2.5.29.14")!
        static let authorityKeyIdentifierOID = DER.ObjectIdentifier("2.5.29.35")!

        /// BasicConstraints (RFC 5280 §4.2.1.9), critical as the RFC requires for CAs: `cA` is omitted when
        /// false (its DEFAULT), `pathLenConstraint` only for CAs.
        package static func basicConstraints(isCA: Bool, pathLength: Int? = nil) -> Extension {
            var fields: [[UInt8]] = []
            if isCA { fields.append(DER.boolean(true)) }
            if isCA, let pathLength { fields.append(DER.integer(Int64(pathLength))) }
            return Extension(oid: basicConstraintsOID, isCritical: true, value: DER.sequence(fields))
        }

        /// KeyUsage (RFC 5280 §4.2.1.3), critical; see ``KeyUsage`` for the bit numbers.
        package static func keyUsage(_ bits: [KeyUsage]) -> Extension {
            Extension(oid: keyUsageOID, isCritical: true, value: DER.namedBits(bits.map(\.rawValue)))
        }

        /// SubjectKeyIdentifier (RFC 5280 §4.2.1.2), not critical.
        package static func subjectKeyIdentifier(_ identifier: [UInt8]) -> Extension {
            Extension(oid: subjectKeyIdentifierOID, isCritical: false, value: DER.octetString(identifier))
        }

        /// AuthorityKeyIdentifier with `[0] keyIdentifier` only (RFC 5280 §4.2.1.1), not critical.
        package static func authorityKeyIdentifier(_ identifier: [UInt8]) -> Extension {
            Extension(
                oid: authorityKeyIdentifierOID, isCritical: false,
                value: DER.sequence([DER.tlv(DER.Tag.contextPrimitive(0), identifier)]))
        }

        /// An extension whose presence is its meaning, with a NULL value, not critical: how Apple marks its
        /// intermediate (`1.2.840.113635.100.6.2.1`) and its App Store signing leaf (`1.2.840.113635.100.6.11.1`).
        package static func marker(_ oid: DER.ObjectIdentifier) -> Extension {
            Extension(oid: oid, isCritical: false, value: DER.null())
        }
    }

    /// KeyUsage bits (RFC 5280 §4.2.1.3).
    package enum KeyUsage: Int, Sendable, CaseIterable {
        case digitalSignature = 0
        case keyCertSign = 5
        case cRLSign = 6
    }

    /// The key identifier RFC 7093 §2 method 1 describes: the leftmost 160 bits of the SHA-256 of the
    /// subjectPublicKey bits (the uncompressed point).
    package static func keyIdentifier(of key: P256.PublicKey) -> [UInt8] {
        Array(SHA256.hash(key.x963Representation).prefix(20))
    }

    // MARK: - Issuing

    /// What a certificate says, before it is signed. `notBefore` and `notAfter` must lie in 1950-9999, the years
    /// RFC 5280 times can express.
    package struct Template: Hashable, Sendable {
        var serialNumber: [UInt8]
        var issuer: DistinguishedName
        var subject: DistinguishedName
        var notBefore: ASN1Time
        var notAfter: ASN1Time
        var publicKey: P256.PublicKey
        var extensions: [Extension]

        package init(
            serialNumber: [UInt8], issuer: DistinguishedName, subject: DistinguishedName, notBefore: ASN1Time,
            notAfter: ASN1Time, publicKey: P256.PublicKey, extensions: [Extension]
        ) {
            self.serialNumber = serialNumber
            self.issuer = issuer
            self.subject = subject
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.publicKey = publicKey
            self.extensions = extensions
        }

        /// The `tbsCertificate` DER.
        var derEncoded: [UInt8] {
            DER.sequence([
                DER.contextConstructed(0, DER.integer(2)),
                DER.unsignedInteger(serialNumber),
                X509Certificate.signatureAlgorithm,
                issuer.derEncoded,
                DER.sequence([notBefore.derEncoded, notAfter.derEncoded]),
                subject.derEncoded,
                ECKeyEncoding.subjectPublicKeyInfo(publicKey),
                DER.contextConstructed(3, DER.sequence(extensions.map(\.derEncoded))),
            ])
        }

        /// The certificate signed by `issuerKey` (deterministic: RFC 6979 nonces). Fails when the template breaks a
        /// rule the reader enforces (a serial number that is zero or longer than 20 octets, a duplicate extension).
        package func signed(by issuerKey: P256.PrivateKey) throws(CertificateError) -> X509Certificate {
            let tbs = derEncoded
            let signature = issuerKey.signature(for: tbs)
            let der = DER.sequence([
                tbs, X509Certificate.signatureAlgorithm, DER.bitString(signature.derRepresentation),
            ])
            return try X509Certificate(derRepresentation: der)
        }
    }

    static var signatureAlgorithm: [UInt8] { DER.sequence([DER.objectIdentifier(ecdsaWithSHA256)]) }

    // MARK: - Reading

    /// Parses a DER certificate strictly (see the type's documentation).
    package init(derRepresentation der: [UInt8]) throws(CertificateError) {
        do throws(DERError) {
            let outer = try DERNode.parse(der).sequence("Certificate")
            guard outer.count == 3 else {
                throw DERError(
                    "Certificate: expected tbsCertificate, signatureAlgorithm, signature; found \(outer.count)")
            }
            try X509Certificate.checkSignatureAlgorithm(outer[1], "signatureAlgorithm")
            let signatureDER = try outer[2].bitStringBytes("signatureValue")
            do { signature = try ECDSASignature(derRepresentation: signatureDER) } catch {
                throw DERError("signatureValue is not a DER ECDSA signature: \(error)")
            }
            let tbs = try outer[0].sequence("tbsCertificate")
            var index = 0
            func next(_ what: String) throws(DERError) -> DERNode {
                guard index < tbs.count else { throw DERError("tbsCertificate: \(what) is missing") }
                index += 1
                return tbs[index - 1]
            }
            let versionNode = try next("version")
            guard versionNode.tag == DER.Tag.contextConstructed(0) else {
                throw DERError("tbsCertificate: expected version [0] v3; version 1 certificates are not read")
            }
            let versionFields = try versionNode.children()
            guard versionFields.count == 1, try versionFields[0].int64("version") == 2 else {
                throw DERError("tbsCertificate: version must be v3 (2) (RFC 5280 §4.1.2.1)")
            }
            let serialBytes = try next("serialNumber").integerBytes("serialNumber")
            guard serialBytes[0] & 0x80 == 0, serialBytes.contains(where: { $0 != 0 }) else {
                throw DERError("serialNumber must be positive (RFC 5280 §4.1.2.2)")
            }
            guard serialBytes.count <= 20 else {
                throw DERError("serialNumber has \(serialBytes.count) octets; at most 20 (RFC 5280 §4.1.2.2)")
            }
            serialNumber = serialBytes[0] == 0 ? Array(serialBytes.dropFirst()) : serialBytes
            try X509Certificate.checkSignatureAlgorithm(try next("signature"), "tbsCertificate.signature")
            guard outer[1].encoded.elementsEqual(tbs[2].encoded) else {
                throw DERError("signatureAlgorithm differs from tbsCertificate.signature (RFC 5280 §4.1.1.2)")
            }
            issuer = try DistinguishedName(node: try next("issuer"), "issuer")
            let validity = try next("validity").sequence("validity")
            guard validity.count == 2 else {
                throw DERError("validity has notBefore and notAfter, found \(validity.count)")
            }
            notBefore = try ASN1Time(node: validity[0], "notBefore")
            notAfter = try ASN1Time(node: validity[1], "notAfter")
            subject = try DistinguishedName(node: try next("subject"), "subject")
            let keyNode = try next("subjectPublicKeyInfo")
            do throws(KeyEncodingError) { publicKey = try ECKeyEncoding.publicKey(subjectPublicKeyInfo: keyNode) } catch
            {
                throw DERError(error.message)
            }
            var found: [Extension] = []
            while index < tbs.count {
                let node = try next("extensions")
                switch node.tag {
                case DER.Tag.contextPrimitive(1), DER.Tag.contextPrimitive(2),
                    DER.Tag.contextConstructed(1), DER.Tag.contextConstructed(2):
                    throw DERError(
                        "issuerUniqueID and subjectUniqueID are not read (RFC 5280 §4.1.2.8: should not be used)")
                case DER.Tag.contextConstructed(3):
                    guard index == tbs.count else { throw DERError("tbsCertificate: fields follow the extensions") }
                    let wrapped = try node.children()
                    guard wrapped.count == 1 else { throw DERError("extensions [3] holds one SEQUENCE") }
                    let list = try wrapped[0].sequence("extensions")
                    guard !list.isEmpty else { throw DERError("extensions must not be empty (RFC 5280 §4.1)") }
                    for item in list {
                        let fields = try item.sequence("Extension")
                        guard fields.count == 2 || fields.count == 3 else {
                            throw DERError("Extension has 2 or 3 fields, found \(fields.count)")
                        }
                        let oid = try fields[0].objectIdentifier("extnID")
                        var critical = false
                        if fields.count == 3 {
                            critical = try fields[1].boolean("critical")
                            guard critical else {
                                throw DERError(
                                    "extension \(oid): critical FALSE must be omitted (DER DEFAULT, X.690 §11.5)")
                            }
                        }
                        let value = try fields[fields.count - 1].octetString("extnValue")
                        guard !found.contains(where: { $0.oid == oid }) else {
                            throw DERError("extension \(oid) appears twice (RFC 5280 §4.2)")
                        }
                        found.append(Extension(oid: oid, isCritical: critical, value: value))
                    }
                default:
                    throw DERError("tbsCertificate: unexpected field with tag 0x\(DERNode.hex(node.tag))")
                }
            }
            extensions = found
            tbsCertificate = Array(outer[0].encoded)
            derRepresentation = der
        } catch { throw CertificateError(error.message) }
    }

    /// Reads one `CERTIFICATE` PEM block.
    package init(pem text: String) throws(CertificateError) {
        let block: PEM.Block
        do throws(PEMError) { block = try PEM.decodeSingle(text, labels: ["CERTIFICATE"]) } catch {
            throw CertificateError(error.message)
        }
        try self.init(derRepresentation: block.derBytes)
    }

    static func checkSignatureAlgorithm(_ node: DERNode, _ what: String) throws(DERError) {
        let fields = try node.sequence(what)
        guard fields.count == 1, try fields[0].objectIdentifier(what) == ecdsaWithSHA256 else {
            throw DERError(
                "\(what): expected ecdsa-with-SHA256 (\(ecdsaWithSHA256)) without parameters (RFC 5758 §3.2)")
        }
    }

    /// The `CERTIFICATE` PEM text.
    package var pemRepresentation: String { PEM.encode(label: "CERTIFICATE", derBytes: derRepresentation) }

    /// Whether `key` made this certificate's signature.
    package func isSigned(by key: P256.PublicKey) -> Bool {
        key.isValidSignature(signature, for: tbsCertificate)
    }

    package func `extension`(_ oid: DER.ObjectIdentifier) -> Extension? { extensions.first { $0.oid == oid } }

    /// BasicConstraints' `cA` and `pathLenConstraint`; `nil` when the extension is absent.
    package func basicConstraints() throws(CertificateError) -> (isCA: Bool, pathLength: Int64?)? {
        guard let ext = `extension`(Extension.basicConstraintsOID) else { return nil }
        do throws(DERError) {
            let fields = try DERNode.parse(ext.value).sequence("BasicConstraints")
            var rest = fields[...]
            var isCA = false
            if let first = rest.first, first.tag == DER.Tag.boolean {
                isCA = try first.boolean("cA")
                guard isCA else { throw DERError("BasicConstraints: cA FALSE must be omitted (DER DEFAULT)") }
                rest = rest.dropFirst()
            }
            var pathLength: Int64?
            if let next = rest.first {
                pathLength = try next.int64("pathLenConstraint")
                rest = rest.dropFirst()
            }
            guard rest.isEmpty else { throw DERError("BasicConstraints has extra fields") }
            return (isCA, pathLength)
        } catch { throw CertificateError(error.message) }
    }

    /// The KeyUsage bits set; `nil` when the extension is absent.
    package func keyUsage() throws(CertificateError) -> Set<Int>? {
        guard let ext = `extension`(Extension.keyUsageOID) else { return nil }
        do throws(DERError) { return try DERNode.parse(ext.value).namedBits("KeyUsage") } catch {
            throw CertificateError(error.message)
        }
    }

    package func subjectKeyIdentifier() throws(CertificateError) -> [UInt8]? {
        guard let ext = `extension`(Extension.subjectKeyIdentifierOID) else { return nil }
        do throws(DERError) { return try DERNode.parse(ext.value).octetString("SubjectKeyIdentifier") } catch {
            throw CertificateError(error.message)
        }
    }

    package func authorityKeyIdentifier() throws(CertificateError) -> [UInt8]? {
        guard let ext = `extension`(Extension.authorityKeyIdentifierOID) else { return nil }
        do throws(DERError) {
            let fields = try DERNode.parse(ext.value).sequence("AuthorityKeyIdentifier")
            guard let first = fields.first, first.tag == DER.Tag.contextPrimitive(0) else { return nil }
            return Array(first.contents)
        } catch { throw CertificateError(error.message) }
    }
}

/// A Name (RFC 5280 §4.1.2.4): a sequence of one-attribute RDNs. Country is a PrintableString (RFC 5280
/// Appendix A), the other attributes UTF8String (RFC 5280 §4.1.2.6 for new certificates).
package struct DistinguishedName: Hashable, Sendable, CustomStringConvertible {
    struct Attribute: Hashable, Sendable {
        var oid: DER.ObjectIdentifier
        var value: String
    }

    static let countryName = DER.ObjectIdentifier("2.5.4.6")!
    static let organizationName = DER.ObjectIdentifier("2.5.4.10")!
    static let organizationalUnitName = DER.ObjectIdentifier("2.5.4.11")!
    static let commonName = DER.ObjectIdentifier("2.5.4.3")!

    let attributes: [Attribute]
    let derEncoded: [UInt8]

    /// A name in the usual order: C, O, OU, CN. `country` must use PrintableString's characters (a two-letter code).
    package init(commonName: String, organizationalUnit: String? = nil, organization: String, country: String) {
        var list = [Attribute(oid: Self.countryName, value: country)]
        list.append(Attribute(oid: Self.organizationName, value: organization))
        if let organizationalUnit {
            list.append(Attribute(oid: Self.organizationalUnitName, value: organizationalUnit))
        }
        list.append(Attribute(oid: Self.commonName, value: commonName))
        attributes = list
        derEncoded = DER.sequence(
            list.map { attribute in
                let value =
                    attribute.oid == Self.countryName
                    ? DER.printableString(attribute.value) : DER.utf8String(attribute.value)
                return DER.set([DER.sequence([DER.objectIdentifier(attribute.oid), value])])
            })
    }

    init(node: DERNode, _ what: String) throws(DERError) {
        var list: [Attribute] = []
        for rdn in try node.sequence(what) {
            let members = try rdn.expect(DER.Tag.set, "\(what) RDN").children()
            guard !members.isEmpty else { throw DERError("\(what): an RDN must not be empty") }
            for (index, member) in members.enumerated() {
                if index > 0, !members[index - 1].encoded.lexicographicallyPrecedes(member.encoded) {
                    throw DERError("\(what): SET OF elements are not in DER order (X.690 §11.6)")
                }
                let fields = try member.sequence("\(what) attribute")
                guard fields.count == 2 else { throw DERError("\(what): an attribute has a type and a value") }
                list.append(
                    Attribute(
                        oid: try fields[0].objectIdentifier("\(what) attribute type"),
                        value: try fields[1].string("\(what) attribute value")))
            }
        }
        attributes = list
        derEncoded = Array(node.encoded)
    }

    /// `CN=..., OU=..., O=..., C=...` (most specific first, as RFC 4514 writes names).
    package var description: String {
        let short: [DER.ObjectIdentifier: String] = [
            Self.countryName: "C", Self.organizationName: "O", Self.organizationalUnitName: "OU", Self.commonName: "CN",
        ]
        return attributes.reversed().map { "\(short[$0.oid] ?? $0.oid.description)=\($0.value)" }.joined(
            separator: ", ")
    }
}

/// A certificate that cannot be read or does not have the shape required.
package struct CertificateError: Error, Hashable, Sendable, CustomStringConvertible {
    package var message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}
