import Foundation
import Testing

@testable import SimctlCrypto

/// OCSP messages (RFC 6960) and the Authority Information Access extension (RFC 5280 §4.2.2.1): round trips, exact
/// encodings, and the strict reading of requests. Python's `cryptography` reads the responses in CI
/// (Tests/Conformance/ocsp_check.sh).
@Suite struct OCSPTests {
    static let caKey = P256.PrivateKey(derivedFrom: Array("ocsp tests".utf8), label: "ca")
    static let otherKey = P256.PrivateKey(derivedFrom: Array("ocsp tests".utf8), label: "other")
    static let leafKey = P256.PrivateKey(derivedFrom: Array("ocsp tests".utf8), label: "leaf")
    static let caName = DistinguishedName(commonName: "OCSP Test CA", organization: "simctl", country: "US")
    static let url = "http://127.0.0.1:8788/ocsp"

    static func certificate(
        serial: [UInt8], issuer: DistinguishedName, subject: DistinguishedName, key: P256.PublicKey,
        signer: P256.PrivateKey, extensions: [X509Certificate.Extension]
    ) -> X509Certificate {
        try! X509Certificate.Template(
            serialNumber: serial, issuer: issuer, subject: subject,
            notBefore: ASN1Time(year: 2020, month: 1, day: 1), notAfter: ASN1Time(year: 2040, month: 1, day: 1),
            publicKey: key, extensions: extensions
        ).signed(by: signer)
    }

    static let ca = certificate(
        serial: [0x01], issuer: caName, subject: caName, key: caKey.publicKey, signer: caKey,
        extensions: [.basicConstraints(isCA: true)])
    static let leaf = certificate(
        serial: [0x42, 0x10], issuer: caName,
        subject: DistinguishedName(commonName: "OCSP Test Leaf", organization: "simctl", country: "US"),
        key: leafKey.publicKey, signer: caKey,
        extensions: [.basicConstraints(isCA: false), .authorityInformationAccess(ocspURL: url)])

    // MARK: - Authority Information Access

    @Test func authorityInformationAccessNamesTheResponder() throws {
        #expect(try Self.leaf.ocspURLs() == [Self.url])
        #expect(try Self.ca.ocspURLs() == [])
        let ext = try #require(Self.leaf.extension(X509Certificate.Extension.authorityInformationAccessOID))
        #expect(!ext.isCritical)
        // SEQUENCE { SEQUENCE { OID 1.3.6.1.5.5.7.48.1, [6] "http://127.0.0.1:8788/ocsp" } }
        #expect(
            Hex.string(ext.value)
                == "302830260608 2b06010505073001 861a".replacingOccurrences(of: " ", with: "")
                + Hex.string(Array(Self.url.utf8)))
    }

    // MARK: - CertID

    @Test(arguments: OCSP.HashAlgorithm.allCases)
    func certIDNamesTheCertificateAndItsIssuer(algorithm: OCSP.HashAlgorithm) throws {
        let id = OCSP.CertID(certificate: Self.leaf, issuer: Self.ca, algorithm: algorithm)
        #expect(id.names(Self.leaf, issuedBy: Self.ca))
        #expect(!id.names(Self.ca, issuedBy: Self.ca))
        let stranger = Self.certificate(
            serial: [0x01], issuer: Self.caName, subject: Self.caName, key: Self.otherKey.publicKey,
            signer: Self.otherKey, extensions: [.basicConstraints(isCA: true)])
        #expect(!id.isIssued(by: stranger))
        #expect(id.issuerKeyHash.count == (algorithm == .sha1 ? 20 : 32))
        // Read back from its DER, it is the same CertID.
        let request = OCSP.Request(certIDs: [id])
        #expect(try OCSP.Request(derRepresentation: request.derRepresentation).certIDs == [id])
    }

    // MARK: - Requests

    @Test func requestWithNonceRoundTrips() throws {
        let id = OCSP.CertID(certificate: Self.leaf, issuer: Self.ca, algorithm: .sha256)
        let nonce = DER.octetString([UInt8](repeating: 7, count: 16))
        let request = OCSP.Request(certIDs: [id, id], nonce: nonce)
        let read = try OCSP.Request(derRepresentation: request.derRepresentation)
        #expect(read == request)
    }

    static let idDER = OCSP.CertID(certificate: leaf, issuer: ca, algorithm: .sha256).encoded

    /// Each malformed request, with the words its error names.
    static let malformed: [(name: String, der: [UInt8], expected: String)] = [
        ("empty", [], "expected a DER value"),
        ("not a sequence", [0x04, 0x00], "OCSPRequest"),
        ("trailing bytes", DER.sequence([DER.sequence([DER.sequence([DER.sequence([idDER])])])]) + [0], "follow"),
        ("empty request list", DER.sequence([DER.sequence([DER.sequence([])])]), "requestList is empty"),
        (
            "too many requests",
            DER.sequence([DER.sequence([DER.sequence(Array(repeating: DER.sequence([idDER]), count: 17))])]),
            "at most 16"
        ),
        (
            "version v1 written out",
            DER.sequence([
                DER.sequence([DER.contextConstructed(0, DER.integer(0)), DER.sequence([DER.sequence([idDER])])])
            ]),
            "DEFAULT"
        ),
        (
            "long nonce",
            DER.sequence([
                DER.sequence([
                    DER.sequence([DER.sequence([idDER])]),
                    DER.contextConstructed(
                        2,
                        DER.sequence([
                            OCSP.extensionDER(OCSP.nonceOID, DER.octetString([UInt8](repeating: 1, count: 33)))
                        ])),
                ])
            ]), "1 to 32"
        ),
        (
            "unknown critical extension",
            DER.sequence([
                DER.sequence([
                    DER.sequence([DER.sequence([idDER])]),
                    DER.contextConstructed(
                        2,
                        DER.sequence([
                            DER.sequence([
                                DER.objectIdentifier(DER.ObjectIdentifier("1.2.3.4")!), DER.boolean(true),
                                DER.octetString([0x05, 0x00]),
                            ])
                        ])),
                ])
            ]), "critical"
        ),
        (
            "serial number of 21 octets",
            DER.sequence([
                DER.sequence([
                    DER.sequence([
                        DER.sequence([
                            DER.sequence([
                                DER.sequence([DER.objectIdentifier(OCSP.HashAlgorithm.sha256.oid)]),
                                DER.octetString([1]), DER.octetString([2]),
                                DER.unsignedInteger([UInt8](repeating: 0x11, count: 21)),
                            ])
                        ])
                    ])
                ])
            ]), "at most 20"
        ),
        (
            "cut short", Array(DER.sequence([DER.sequence([DER.sequence([DER.sequence([idDER])])])]).dropLast(3)),
            "remain"
        ),
    ]

    @Test(arguments: malformed.indices)
    func malformedRequestsAreRefusedWithTheirReason(index: Int) {
        let item = Self.malformed[index]
        #expect(throws: OCSPError.self, "\(item.name)") { try OCSP.Request(derRepresentation: item.der) }
        do {
            _ = try OCSP.Request(derRepresentation: item.der)
        } catch {
            #expect(error.message.hasPrefix("malformed OCSP request: "), "\(item.name)")
            #expect(error.message.contains(item.expected), "\(item.name): \(error.message)")
        }
    }

    // MARK: - Responses

    @Test func unsuccessfulResponseIsTheStatusAlone() throws {
        #expect(OCSP.unsuccessfulResponse(.malformedRequest) == [0x30, 0x03, 0x0A, 0x01, 0x01])
        #expect(try OCSP.Response(derRepresentation: OCSP.unsuccessfulResponse(.unauthorized)).status == .unauthorized)
    }

    @Test func basicResponseRoundTripsAndIsSignedByTheSigner() throws {
        let id = OCSP.CertID(certificate: Self.leaf, issuer: Self.ca, algorithm: .sha1)
        let time = ASN1Time(year: 2026, month: 12, day: 2, hour: 11, minute: 50, second: 7)
        let next = ASN1Time(year: 2026, month: 12, day: 2, hour: 12, minute: 50, second: 7)
        let nonce = DER.octetString([9, 8, 7])
        let responses = [
            OCSP.SingleResponse(certID: id, status: .good, thisUpdate: time, nextUpdate: next),
            OCSP.SingleResponse(
                certID: id, status: .revoked(time: ASN1Time(year: 2026, month: 1, day: 1), reason: .keyCompromise),
                thisUpdate: time, nextUpdate: nil),
            OCSP.SingleResponse(certID: id, status: .unknown, thisUpdate: time, nextUpdate: next),
        ]
        let der = OCSP.basicResponse(producedAt: time, responses: responses, nonce: nonce, signer: Self.caKey)
        // Deterministic: the same inputs give the same bytes.
        #expect(der == OCSP.basicResponse(producedAt: time, responses: responses, nonce: nonce, signer: Self.caKey))
        let read = try OCSP.Response(derRepresentation: der)
        #expect(read.status == .successful)
        #expect(read.responderKeyHash == SHA1.hash(Self.caKey.publicKey.x963Representation))
        #expect(read.producedAt == "20261202115007Z")
        #expect(read.responses.map(\.status) == ["good", "revoked", "unknown"])
        #expect(read.responses.map(\.thisUpdate) == Array(repeating: "20261202115007Z", count: 3))
        #expect(read.responses.map(\.nextUpdate) == ["20261202125007Z", nil, "20261202125007Z"])
        #expect(read.responses.allSatisfy { $0.certID == id })
        #expect(read.nonce == nonce)
        #expect(read.isSigned(by: Self.caKey.publicKey))
        #expect(!read.isSigned(by: Self.otherKey.publicKey))
    }

    @Test func revokedStatusEncodesTimeAndReason() {
        let revoked = OCSP.CertStatus.revoked(time: ASN1Time(year: 2026, month: 1, day: 1), reason: .keyCompromise)
        // [1] { GeneralizedTime "20260101000000Z", [0] { ENUMERATED 1 } }
        #expect(
            Hex.string(revoked.derEncoded)
                == "a116180f" + Hex.string(Array("20260101000000Z".utf8)) + "a0030a0101")
        #expect(OCSP.CertStatus.good.derEncoded == [0x80, 0x00])
        #expect(OCSP.CertStatus.unknown.derEncoded == [0x82, 0x00])
    }

    /// OCSP times are GeneralizedTime in every year, also before 2050 where certificates use UTCTime.
    @Test func ocspTimesAreAlwaysGeneralizedTime() {
        let time = ASN1Time(year: 2026, month: 12, day: 2, hour: 13, minute: 5, second: 9)
        #expect(time.generalizedTimeDER == [0x18, 15] + Array("20261202130509Z".utf8))
        #expect(time.derEncoded.first == 0x17)
    }
}
