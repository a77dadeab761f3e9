import Testing

@testable import SimctlCrypto

@Suite struct X509CertificateTests {
    @Test func anOpenSSLCertificateIsRead() throws {
        let certificate = try X509Certificate(pem: OpenSSLSamples.certificate)
        #expect(certificate.serialNumber == [0x12, 0x34])
        #expect(certificate.subject.description == "CN=OpenSSL Test CA, O=Example, C=US")
        #expect(certificate.issuer == certificate.subject)
        #expect(certificate.isSigned(by: certificate.publicKey))
        #expect(try certificate.basicConstraints()?.isCA == true)
        #expect(try certificate.keyUsage() == [5, 6])
        #expect(try certificate.subjectKeyIdentifier() == certificate.authorityKeyIdentifier())
        let key = try P256.PrivateKey(rawRepresentation: OpenSSLSamples.scalar)
        #expect(certificate.publicKey == key.publicKey)
    }

    @Test func aChangedByteBreaksTheSignature() throws {
        let certificate = try X509Certificate(pem: OpenSSLSamples.certificate)
        var der = certificate.derRepresentation
        // A byte of the subject's common name ("OpenSSL Test CA"), inside the signed part.
        let index = try #require(der.indices.last { der[$0] == UInt8(ascii: "T") })
        der[index] = UInt8(ascii: "X")
        let changed = try X509Certificate(derRepresentation: der)
        #expect(!changed.isSigned(by: certificate.publicKey))
    }

    func template(extensions: [X509Certificate.Extension]) -> X509Certificate.Template {
        let key = P256.PrivateKey(derivedFrom: [7], label: "t").publicKey
        let name = DistinguishedName(commonName: "T", organization: "O", country: "US")
        return X509Certificate.Template(
            serialNumber: [1], issuer: name, subject: name, notBefore: ASN1Time(year: 1970, month: 1, day: 1),
            notAfter: ASN1Time.noWellDefinedExpiration, publicKey: key, extensions: extensions)
    }

    /// Rebuilds a certificate around a changed `tbsCertificate` (its signature no longer matters to the parser).
    func certificate(tbs: [UInt8]) -> [UInt8] {
        DER.sequence([
            tbs, X509Certificate.signatureAlgorithm, DER.bitString(DER.sequence([DER.integer(1), DER.integer(1)])),
        ])
    }

    @Test func criticalFalseWrittenOutIsRefused() {
        let ext = DER.sequence([
            DER.objectIdentifier(X509Certificate.Extension.subjectKeyIdentifierOID), DER.boolean(false),
            DER.octetString(DER.octetString([1])),
        ])
        let tbs = template(extensions: []).derEncoded
        let patched = replaceExtensions(in: tbs, with: [ext])
        #expect(throws: CertificateError.self) { try X509Certificate(derRepresentation: certificate(tbs: patched)) }
    }

    @Test func duplicateExtensionsAreRefused() {
        let ski = X509Certificate.Extension.subjectKeyIdentifier([1])
        let tbs = template(extensions: [ski, ski]).derEncoded
        #expect(throws: CertificateError.self) { try X509Certificate(derRepresentation: certificate(tbs: tbs)) }
    }

    @Test func aSerialNumberOfZeroIsRefused() {
        var t = template(extensions: [.basicConstraints(isCA: true)])
        t.serialNumber = [0]
        #expect(throws: CertificateError.self) {
            try X509Certificate(derRepresentation: certificate(tbs: t.derEncoded))
        }
    }

    @Test func signingATemplateThatBreaksARuleThrows() {
        var t = template(extensions: [.basicConstraints(isCA: true)])
        t.serialNumber = [UInt8](repeating: 1, count: 21)
        #expect(throws: CertificateError.self) { try t.signed(by: P256.PrivateKey(derivedFrom: [7], label: "t")) }
    }

    @Test func basicConstraintsOmitCAWhenFalse() throws {
        #expect(X509Certificate.Extension.basicConstraints(isCA: false).value == bytes("3000"))
        #expect(
            X509Certificate.Extension.basicConstraints(isCA: true, pathLength: 0).value == bytes("30060101FF020100"))
    }

    /// `tbs` with its `[3]` extensions replaced by `items`.
    func replaceExtensions(in tbs: [UInt8], with items: [[UInt8]]) -> [UInt8] {
        let fields = (try? DERNode.parse(tbs).children()) ?? []
        let kept = fields.filter { $0.tag != DER.Tag.contextConstructed(3) }.map { Array($0.encoded) }
        return DER.sequence(kept + [DER.contextConstructed(3, DER.sequence(items))])
    }
}
