import SimctlCrypto
import Testing

@testable import SubscriptionSimulator

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
        #expect(chain.root.x509.isSigned(by: chain.root.x509.publicKey))
        #expect(chain.intermediate.x509.isSigned(by: chain.root.x509.publicKey))
        #expect(chain.leaf.x509.isSigned(by: chain.intermediate.x509.publicKey))
        #expect(!chain.leaf.x509.isSigned(by: chain.root.x509.publicKey))
        #expect(chain.leafKey.publicKey == chain.leaf.x509.publicKey)
    }

    @Test func namesChainFromLeafToRoot() {
        #expect(chain.root.x509.issuer == chain.root.x509.subject)
        #expect(chain.intermediate.x509.issuer == chain.root.x509.subject)
        #expect(chain.leaf.x509.issuer == chain.intermediate.x509.subject)
        #expect(Set([chain.root.x509.subject, chain.intermediate.x509.subject, chain.leaf.x509.subject]).count == 3)
    }

    @Test func keyIdentifiersLinkEachCertificateToItsIssuer() throws {
        #expect(
            try chain.root.x509.subjectKeyIdentifier() == X509Certificate.keyIdentifier(of: chain.root.x509.publicKey))
        #expect(try chain.intermediate.x509.authorityKeyIdentifier() == chain.root.x509.subjectKeyIdentifier())
        #expect(try chain.leaf.x509.authorityKeyIdentifier() == chain.intermediate.x509.subjectKeyIdentifier())
        #expect(try chain.leaf.x509.subjectKeyIdentifier()?.count == 20)
    }

    @Test func basicConstraintsAndKeyUsageFollowRFC5280() throws {
        let intermediate = chain.intermediate.x509
        #expect(try chain.root.x509.basicConstraints().map { [$0.isCA ? 1 : 0, Int($0.pathLength ?? -1)] } == [1, -1])
        #expect(try intermediate.basicConstraints().map { [$0.isCA ? 1 : 0, Int($0.pathLength ?? -1)] } == [1, 0])
        #expect(try chain.leaf.x509.basicConstraints()?.isCA == false)
        #expect(try chain.root.x509.keyUsage() == [5, 6])
        #expect(try intermediate.keyUsage() == [5, 6])
        #expect(try chain.leaf.x509.keyUsage() == [0])
        for certificate in chain.certificates {
            #expect(certificate.x509.extension(X509Certificate.Extension.basicConstraintsOID)?.isCritical == true)
            #expect(certificate.x509.extension(X509Certificate.Extension.keyUsageOID)?.isCritical == true)
        }
    }

    @Test func appleMarkersSitOnTheIntermediateAndTheLeafNotCritical() {
        let intermediate = chain.intermediate.x509.extension(SigningChain.appleIntermediateMarker)
        let leaf = chain.leaf.x509.extension(SigningChain.appleLeafMarker)
        #expect(intermediate == .marker(SigningChain.appleIntermediateMarker) && intermediate?.value == [5, 0])
        #expect(leaf == .marker(SigningChain.appleLeafMarker) && leaf?.isCritical == false)
        #expect(chain.leaf.x509.extension(SigningChain.appleIntermediateMarker) == nil)
        #expect(chain.root.x509.extension(SigningChain.appleLeafMarker) == nil)
    }

    @Test func validityCoversTheWholeTimeline() {
        for certificate in chain.certificates {
            #expect(Instant(certificate.x509.notBefore) == Instant(millisecondsSince1970: 0))
            #expect(certificate.x509.notAfter == ASN1Time.noWellDefinedExpiration)
        }
    }

    @Test func certificateTimesDropMilliseconds() {
        let instant = CalendarMath.instant(year: 2026, month: 3, day: 1, millisecond: 999)
        #expect(ASN1Time(instant) == ASN1Time(year: 2026, month: 3, day: 1))
        #expect(Instant(ASN1Time(instant)) == CalendarMath.instant(year: 2026, month: 3, day: 1))
    }

    @Test func serialNumbersArePositiveSixteenOctetsAndDistinct() {
        let serials = chain.certificates.map(\.x509.serialNumber)
        #expect(serials.allSatisfy { $0.count == 16 && $0[0] & 0xC0 == 0x40 })
        #expect(Set(serials).count == 3)
    }

    @Test func theLeafCanBeMadeToExpireAtAChosenInstant() {
        let end = CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9, millisecond: 500)
        let generated = SigningChain.generate(leafNotAfter: end).chain
        #expect(Instant(generated.leaf.x509.notAfter) == CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9))
        #expect(generated.root == chain.root && generated.intermediate == chain.intermediate)
        #expect(generated.leaf.x509.isSigned(by: chain.intermediate.x509.publicKey))
    }

    @Test func aLeafExpiryOutsideRFC5280sRangeIsClampedToIt() {
        let late = SigningChain.generate(leafNotAfter: CalendarMath.instant(year: 10_500, month: 1, day: 1)).chain
        #expect(late.leaf.x509.notAfter == ASN1Time.noWellDefinedExpiration)
        let early = SigningChain.generate(leafNotAfter: Instant(millisecondsSince1970: -86_400_000)).chain
        #expect(Instant(early.leaf.x509.notAfter) == SigningChain.validFrom)
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
                root: chain.root.x509, intermediate: chain.intermediate.x509, leaf: chain.leaf.x509,
                leafKey: other.leafKey)
        }
        #expect(throws: SigningChainError.self) {
            try SigningChain(
                root: other.root.x509, intermediate: chain.intermediate.x509, leaf: chain.leaf.x509,
                leafKey: chain.leafKey)
        }
        #expect(throws: SigningChainError.self) {
            try SigningChain(
                root: chain.root.x509, intermediate: other.intermediate.x509, leaf: chain.leaf.x509,
                leafKey: chain.leafKey)
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
