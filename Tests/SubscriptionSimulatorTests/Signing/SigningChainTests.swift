import Testing
@testable import SubscriptionSimulator

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
            serialNumber: [1], issuer: name, subject: name, notBefore: Instant(millisecondsSince1970: 0),
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

@Suite struct SigningChainTests {
    let chain = SigningChain.default

    @Test func theDefaultChainIsTheDefaultSeedsChain() {
        #expect(SigningChain.defaultCASeed == "simctl-test-ca-1")
        #expect(SigningChain.generate(caSeed: "simctl-test-ca-1").chain == chain)
    }

    @Test func generationIsDeterministicAndSeedDependent() {
        #expect(SigningChain.generate(caSeed: "team").chain == SigningChain.generate(caSeed: "team").chain)
        #expect(SigningChain.generate(caSeed: "team").chain.root != chain.root)
    }

    @Test func eachCertificateIsSignedByItsIssuer() {
        #expect(chain.root.isSigned(by: chain.root.publicKey))
        #expect(chain.intermediate.isSigned(by: chain.root.publicKey))
        #expect(chain.leaf.isSigned(by: chain.intermediate.publicKey))
        #expect(!chain.leaf.isSigned(by: chain.root.publicKey))
        #expect(chain.leafKey.publicKey == chain.leaf.publicKey)
    }

    @Test func namesChainFromLeafToRoot() {
        #expect(chain.root.issuer == chain.root.subject)
        #expect(chain.intermediate.issuer == chain.root.subject)
        #expect(chain.leaf.issuer == chain.intermediate.subject)
        #expect(Set([chain.root.subject, chain.intermediate.subject, chain.leaf.subject]).count == 3)
    }

    @Test func keyIdentifiersLinkEachCertificateToItsIssuer() throws {
        #expect(try chain.root.subjectKeyIdentifier() == X509Certificate.keyIdentifier(of: chain.root.publicKey))
        #expect(try chain.intermediate.authorityKeyIdentifier() == chain.root.subjectKeyIdentifier())
        #expect(try chain.leaf.authorityKeyIdentifier() == chain.intermediate.subjectKeyIdentifier())
        #expect(try chain.leaf.subjectKeyIdentifier()?.count == 20)
    }

    @Test func basicConstraintsAndKeyUsageFollowRFC5280() throws {
        #expect(try chain.root.basicConstraints().map { [$0.isCA ? 1 : 0, Int($0.pathLength ?? -1)] } == [1, -1])
        #expect(
            try chain.intermediate.basicConstraints().map { [$0.isCA ? 1 : 0, Int($0.pathLength ?? -1)] } == [1, 0])
        #expect(try chain.leaf.basicConstraints()?.isCA == false)
        #expect(try chain.root.keyUsage() == [5, 6])
        #expect(try chain.intermediate.keyUsage() == [5, 6])
        #expect(try chain.leaf.keyUsage() == [0])
        for certificate in chain.certificates {
            #expect(certificate.extension(X509Certificate.Extension.basicConstraintsOID)?.isCritical == true)
            #expect(certificate.extension(X509Certificate.Extension.keyUsageOID)?.isCritical == true)
        }
    }

    @Test func appleMarkersSitOnTheIntermediateAndTheLeafNotCritical() {
        let intermediate = chain.intermediate.extension(SigningChain.appleIntermediateMarker)
        let leaf = chain.leaf.extension(SigningChain.appleLeafMarker)
        #expect(intermediate == .marker(SigningChain.appleIntermediateMarker) && intermediate?.value == [5, 0])
        #expect(leaf == .marker(SigningChain.appleLeafMarker) && leaf?.isCritical == false)
        #expect(chain.leaf.extension(SigningChain.appleIntermediateMarker) == nil)
        #expect(chain.root.extension(SigningChain.appleLeafMarker) == nil)
    }

    @Test func validityCoversTheWholeTimeline() {
        for certificate in chain.certificates {
            #expect(certificate.notBefore == Instant(millisecondsSince1970: 0))
            #expect(certificate.notAfter == ASN1Time.noWellDefinedExpiration)
        }
    }

    @Test func serialNumbersArePositiveSixteenOctetsAndDistinct() {
        let serials = chain.certificates.map(\.serialNumber)
        #expect(serials.allSatisfy { $0.count == 16 && $0[0] & 0xC0 == 0x40 })
        #expect(Set(serials).count == 3)
    }

    @Test func theLeafCanBeMadeToExpireAtAChosenInstant() {
        let end = CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9, millisecond: 500)
        let generated = SigningChain.generate(leafNotAfter: end).chain
        #expect(generated.leaf.notAfter == CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9))
        #expect(generated.root == chain.root && generated.intermediate == chain.intermediate)
        #expect(generated.leaf.isSigned(by: chain.intermediate.publicKey))
    }

    @Test func aLeafExpiryOutsideRFC5280sRangeIsClampedToIt() {
        let late = SigningChain.generate(leafNotAfter: CalendarMath.instant(year: 10_500, month: 1, day: 1)).chain
        #expect(late.leaf.notAfter == ASN1Time.noWellDefinedExpiration)
        let early = SigningChain.generate(leafNotAfter: Instant(millisecondsSince1970: -86_400_000)).chain
        #expect(early.leaf.notAfter == SigningChain.validFrom)
    }

    @Test func aChainReadFromPEMEqualsTheOneWritten() throws {
        let read = try SigningChain(
            rootPEM: chain.root.pemRepresentation, intermediatePEM: chain.intermediate.pemRepresentation,
            leafPEM: chain.leaf.pemRepresentation, leafKeyPEM: ECKeyEncoding.pkcs8PEM(chain.leafKey))
        #expect(read == chain)
    }

    @Test func aChainWhoseKeysDoNotLinkUpIsRefused() {
        let other = SigningChain.generate(caSeed: "other").chain
        #expect(throws: SigningChainError.self) {
            try SigningChain(
                root: chain.root, intermediate: chain.intermediate, leaf: chain.leaf, leafKey: other.leafKey)
        }
        #expect(throws: SigningChainError.self) {
            try SigningChain(
                root: other.root, intermediate: chain.intermediate, leaf: chain.leaf, leafKey: chain.leafKey)
        }
        #expect(throws: SigningChainError.self) {
            try SigningChain(
                root: chain.root, intermediate: other.intermediate, leaf: chain.leaf, leafKey: chain.leafKey)
        }
    }
}

@Suite struct SigningDocsTests {
    @Test func theDocumentedRootFingerprintIsTheDefaultRoots() throws {
        let digits = Array("0123456789ABCDEF")
        let fingerprint = SHA256.hash(SigningChain.default.root.derRepresentation).map {
            String([digits[Int($0 >> 4)], digits[Int($0 & 0xF)]])
        }.joined(separator: ":")
        let doc = try PackagePaths.read(PackagePaths.docs.appendingPathComponent("signing.md"))
        #expect(doc.contains("`\(fingerprint)`"), "docs/signing.md should give the fingerprint \(fingerprint)")
        #expect(doc.contains("`\(SigningChain.defaultCASeed)`"))
    }
}
