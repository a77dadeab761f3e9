import SimctlCrypto
import Testing

@testable import SubscriptionSimulator

/// The opt-in OCSP chain (`SigningChain.generate(ocspURL:)`) and its responder (`OCSPResponder`); docs/signing.md,
/// "Online certificate checks (OCSP)". Apple's verifier against a running responder: Tests/Conformance/ocsp_check.sh.
@Suite struct OCSPResponderTests {
    static let url = "http://127.0.0.1:8788/ocsp"
    static let generated = SigningChain.generate(ocspURL: url)
    static let chain = generated.chain
    /// 2026-12-02T11:50:07.250Z: the milliseconds are dropped in the answers.
    static let now = Instant(millisecondsSince1970: 1_796_212_207_250)

    static func request(
        _ certificate: SigningChain.Certificate, issuer: SigningChain.Certificate,
        algorithm: OCSP.HashAlgorithm = .sha256, nonce: [UInt8]? = nil
    ) -> [UInt8] {
        OCSP.Request(
            certIDs: [OCSP.CertID(certificate: certificate.x509, issuer: issuer.x509, algorithm: algorithm)],
            nonce: nonce
        ).derRepresentation
    }

    // MARK: - The chain

    @Test func withoutAURLTheChainIsTheDefaultOne() {
        #expect(SigningChain.generate(ocspURL: nil).chain == SigningChain.default)
        #expect(SigningChain.default.certificates.allSatisfy { (try? $0.x509.ocspURLs()) == [] })
    }

    @Test func theIntermediateAndTheLeafNameTheResponderAndTheRootDoesNot() throws {
        #expect(try Self.chain.leaf.x509.ocspURLs() == [Self.url])
        #expect(try Self.chain.intermediate.x509.ocspURLs() == [Self.url])
        #expect(try Self.chain.root.x509.ocspURLs() == [])
        #expect(Self.chain.root == SigningChain.default.root)
    }

    @Test func keysAndSerialNumbersAreTheSeeds() {
        let plain = SigningChain.default
        #expect(Self.chain.leafKey == plain.leafKey)
        #expect(Self.chain.leaf.x509.serialNumber == plain.leaf.x509.serialNumber)
        #expect(Self.chain.intermediate.x509.serialNumber == plain.intermediate.x509.serialNumber)
        #expect(Self.chain.intermediate.x509.isSigned(by: plain.root.x509.publicKey))
        #expect(Self.chain.leaf.x509.isSigned(by: plain.intermediate.x509.publicKey))
    }

    // MARK: - Answers

    @Test(arguments: OCSP.HashAlgorithm.allCases)
    func theLeafIsGoodAndTheAnswerIsSignedByTheIntermediate(algorithm: OCSP.HashAlgorithm) throws {
        let answer = OCSPResponder(Self.generated).answer(
            Self.request(Self.chain.leaf, issuer: Self.chain.intermediate, algorithm: algorithm), now: Self.now)
        #expect(answer.httpStatus == 200)
        #expect(answer.problem == nil)
        let response = try OCSP.Response(derRepresentation: answer.body)
        #expect(response.status == .successful)
        #expect(response.isSigned(by: Self.chain.intermediate.x509.publicKey))
        #expect(response.responderKeyHash == SHA1.hash(Self.chain.intermediate.x509.publicKey.x963Representation))
        let single = try #require(response.responses.first)
        #expect(response.responses.count == 1)
        #expect(single.status == "good")
        #expect(single.certID.names(Self.chain.leaf.x509, issuedBy: Self.chain.intermediate.x509))
        #expect(response.producedAt == "20261202115007Z")
        #expect(single.thisUpdate == "20261202115007Z")
        #expect(single.nextUpdate == "20261202125007Z")
        #expect(response.nonce == nil)
    }

    @Test func theIntermediateIsAnsweredForByTheRoot() throws {
        let answer = OCSPResponder(Self.generated).answer(
            Self.request(Self.chain.intermediate, issuer: Self.chain.root), now: Self.now)
        let response = try OCSP.Response(derRepresentation: answer.body)
        #expect(response.isSigned(by: Self.chain.root.x509.publicKey))
        #expect(response.responses.map(\.status) == ["good"])
    }

    @Test(arguments: OCSPResponder.Role.allCases)
    func aRevokedCertificateIsReportedRevokedAndTheOtherStaysGood(role: OCSPResponder.Role) throws {
        var responder = OCSPResponder(Self.generated)
        responder.revoke(role, at: Self.now)
        let leaf = try OCSP.Response(
            derRepresentation: responder.answer(
                Self.request(Self.chain.leaf, issuer: Self.chain.intermediate), now: Self.now
            ).body)
        let intermediate = try OCSP.Response(
            derRepresentation: responder.answer(
                Self.request(Self.chain.intermediate, issuer: Self.chain.root), now: Self.now
            ).body)
        #expect(leaf.responses.map(\.status) == [role == .leaf ? "revoked" : "good"])
        #expect(intermediate.responses.map(\.status) == [role == .intermediate ? "revoked" : "good"])
    }

    @Test func theNonceIsEchoed() throws {
        let nonce: [UInt8] = [0x04, 0x10] + Array(1...16)  // OCTET STRING of 16 octets
        let answer = OCSPResponder(Self.generated).answer(
            Self.request(Self.chain.leaf, issuer: Self.chain.intermediate, nonce: nonce), now: Self.now)
        #expect(try OCSP.Response(derRepresentation: answer.body).nonce == nonce)
    }

    @Test func aSerialNumberTheIssuerDidNotIssueHereIsUnknown() throws {
        // The root's serial number asked of the intermediate.
        let id = OCSP.CertID(
            certificate: Self.chain.root.x509, issuer: Self.chain.intermediate.x509, algorithm: .sha256)
        let answer = OCSPResponder(Self.generated).answer(
            OCSP.Request(certIDs: [id]).derRepresentation, now: Self.now)
        #expect(try OCSP.Response(derRepresentation: answer.body).responses.map(\.status) == ["unknown"])
    }

    @Test func anotherIssuerOrMixedIssuersAreUnauthorized() throws {
        let stranger = SigningChain.generate(caSeed: "stranger").chain
        let foreign = OCSP.CertID(
            certificate: stranger.leaf.x509, issuer: stranger.intermediate.x509, algorithm: .sha256)
        let leaf = OCSP.CertID(
            certificate: Self.chain.leaf.x509, issuer: Self.chain.intermediate.x509, algorithm: .sha256)
        let intermediate = OCSP.CertID(
            certificate: Self.chain.intermediate.x509, issuer: Self.chain.root.x509, algorithm: .sha256)
        for ids in [[foreign], [leaf, intermediate], [leaf, foreign]] {
            let answer = OCSPResponder(Self.generated).answer(
                OCSP.Request(certIDs: ids).derRepresentation, now: Self.now)
            #expect(answer.httpStatus == 200)
            #expect(answer.body == OCSP.unsuccessfulResponse(.unauthorized))
        }
    }

    @Test func garbageIsAMalformedRequestWithA400AndItsReason() {
        let answer = OCSPResponder(Self.generated).answer(Array("hello".utf8), now: Self.now)
        #expect(answer.httpStatus == 400)
        #expect(answer.body == OCSP.unsuccessfulResponse(.malformedRequest))
        #expect(answer.problem?.hasPrefix("malformed OCSP request: ") == true)
    }

    @Test func answersAreDeterministic() {
        let request = Self.request(Self.chain.leaf, issuer: Self.chain.intermediate)
        #expect(
            OCSPResponder(Self.generated).answer(request, now: Self.now).body
                == OCSPResponder(Self.generated).answer(request, now: Self.now).body)
    }

    // MARK: - The URL (rule ocsp-url)

    static let urls: [(text: String, host: String, port: UInt16, path: String)] = [
        ("http://127.0.0.1:8788/ocsp", "127.0.0.1", 8788, "/ocsp"),
        ("http://localhost", "localhost", 80, "/"),
        ("http://[::1]:9000/a/b", "::1", 9000, "/a/b"),
    ]

    @Test(arguments: urls.indices)
    func urlsNameTheAddressAndPath(index: Int) throws {
        let item = Self.urls[index]
        let url = try OCSPResponderURL(item.text)
        #expect(url.host == item.host)
        #expect(url.port == item.port)
        #expect(url.path == item.path)
    }

    @Test(arguments: [
        "", "https://127.0.0.1/ocsp", "http://", "http://:80/", "http://host:0/", "http://host:99999/",
        "http://host/ocsp?x=1", "http://user@host/", "http://host/a b", "ftp://host/",
    ])
    func otherURLsAreRefused(text: String) {
        #expect(throws: SigningChainError.self) { try OCSPResponderURL(text) }
    }
}
