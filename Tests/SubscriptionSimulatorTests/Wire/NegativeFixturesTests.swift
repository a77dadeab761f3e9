import SimctlCrypto
import Testing

@testable import SubscriptionSimulator

/// The negative fixtures: each made to fail one check of a verifier, with the status Apple's library reports.
@Suite struct NegativeFixturesTests {
    let fixtures: [NegativeFixtures.Fixture]
    let app: AppConfiguration
    let notification: SentNotification

    init() throws {
        let file = PackagePaths.scenarios.appendingPathComponent("cancel-during-grace.yaml")
        let scenario = try ScenarioDecoder(file: file.path).decode(
            try PackagePaths.read(file), overrides: ScenarioOverrides(environment: .sandbox))
        let result = try ScenarioRunner.run(scenario)
        app = result.store.app
        notification = result.store.notifications[0]
        fixtures = NegativeFixtures.make(for: notification, app: app)
    }

    func fixture(_ name: String) throws -> (header: JSONValue, payload: JSONValue, valid: Bool) {
        let body = try #require(fixtures.first { $0.name == name }).postBody
        let jws = try #require(CanonicalJSON.parse(body).value(at: "signedPayload")?.stringValue)
        let parts = jws.split(separator: ".").map(String.init)
        let header = try JWS.decodeHeader(jws)
        let leaf = try certificate(header, 0)
        let signature = try ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        let valid = leaf.publicKey.isValidSignature(signature, for: Array((parts[0] + "." + parts[1]).utf8))
        return (header, try JWS.decodePayload(jws), valid)
    }

    @Test func eachFixtureHasItsExpectedStatus() {
        let statuses = Dictionary(uniqueKeysWithValues: fixtures.map { ($0.name, $0.expectedStatus) })
        #expect(
            statuses == [
                "valid": "OK", "altered-payload": "VERIFICATION_FAILURE",
                "signed-by-another-key": "VERIFICATION_FAILURE",
                "wrong-leaf-oid": "VERIFICATION_FAILURE", "wrong-intermediate-oid": "VERIFICATION_FAILURE",
                "expired-leaf": "VERIFICATION_FAILURE", "untrusted-root": "VERIFICATION_FAILURE",
                "one-certificate-chain": "INVALID_CHAIN_LENGTH", "wrong-bundle-id": "INVALID_APP_IDENTIFIER",
                "wrong-environment": "INVALID_ENVIRONMENT",
            ])
    }

    @Test func theControlIsValidAndTheAlteredPayloadIsNot() throws {
        #expect(try fixture("valid").valid)
        let altered = try fixture("altered-payload")
        #expect(!altered.valid)
        #expect(
            altered.payload.value(at: "signedDate")?.integerValue == notification.instant.millisecondsSince1970 + 1)
    }

    @Test func anotherKeySignsUnderTheRightChain() throws {
        let f = try fixture("signed-by-another-key")
        #expect(!f.valid)
        #expect(f.header == ES256Signer.defaultSigner.header)
    }

    @Test func theWrongOIDChainsLackApplesMarkers() throws {
        for (name, index, marker) in [
            ("wrong-leaf-oid", 0, SigningChain.appleLeafMarker),
            ("wrong-intermediate-oid", 1, SigningChain.appleIntermediateMarker),
        ] {
            let f = try fixture(name)
            #expect(f.valid, "correctly signed: only the OID is wrong")
            #expect(try certificate(f.header, index).extension(marker) == nil, "\(name)")
        }
    }

    @Test func theExpiredLeafEndsBeforeSignedDate() throws {
        let f = try fixture("expired-leaf")
        #expect(f.valid)
        #expect(try Instant(certificate(f.header, 0).notAfter) < notification.instant)
    }

    @Test func theOtherFixturesChangeOneThingEach() throws {
        #expect(try fixture("one-certificate-chain").header.value(at: "x5c")?.arrayCount == 1)
        #expect(
            try fixture("wrong-bundle-id").payload.value(at: "data.bundleId") == .string(NegativeFixtures.wrongBundleId)
        )
        #expect(try fixture("wrong-environment").payload.value(at: "data.environment") == .string("Production"))
        #expect(try fixture("untrusted-root").header != ES256Signer.defaultSigner.header)
    }
}

/// The certificate at `index` of a JWS header's `x5c`.
private func certificate(_ header: JSONValue, _ index: Int) throws -> X509Certificate {
    let text = try #require(header.value(at: "x5c.\(index)")?.stringValue)
    return try X509Certificate(derRepresentation: try #require(PEM.decodeBase64(text)))
}

extension JSONValue {
    fileprivate var arrayCount: Int? { if case .array(let items) = self { return items.count } else { return nil } }
}
