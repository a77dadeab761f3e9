import Testing
@testable import SubscriptionSimulator

/// Scenario runs in `Sandbox` and `Production`: accepted, signed with ES256, with Apple's environment rules.
@Suite struct SignedEnvironmentTests {
    let file = PackagePaths.scenarios.appendingPathComponent("cancel-during-grace.yaml")

    func run(_ environment: SimulatedEnvironment, text: String? = nil) throws -> ScenarioRun {
        let source = try text ?? PackagePaths.read(file)
        let scenario = try ScenarioDecoder(file: file.path).decode(
            source, overrides: ScenarioOverrides(environment: environment))
        return try ScenarioRunner.run(scenario)
    }

    @Test(arguments: ["Sandbox", "Production"])
    func scenariosAcceptSandboxAndProduction(name: String) throws {
        let text = try PackagePaths.read(file).replacingOccurrences(
            of: "  appAppleId: 1234567890", with: "  appAppleId: 1234567890\n  environment: \(name)")
        let scenario = try ScenarioDecoder(file: file.path).decode(text)
        #expect(scenario.app.environment.rawValue == name)
    }

    @Test func productionWithoutAppAppleIdIsAnError() throws {
        let text = try PackagePaths.read(file).replacingOccurrences(of: "  appAppleId: 1234567890\n", with: "")
        #expect {
            try ScenarioDecoder(file: file.path).decode(text, overrides: ScenarioOverrides(environment: .production))
        } throws: { error in
            "\(error)".contains("Production needs app.appAppleId")
        }
    }

    @Test func everyJWSOfASandboxRunIsSignedByTheLeaf() throws {
        let result = try run(.sandbox)
        let encoder = NotificationEncoder(app: result.store.app)
        let key = SigningChain.default.leaf.publicKey
        #expect(!result.store.notifications.isEmpty)
        for notification in result.store.notifications {
            let encoded = encoder.encode(notification)
            var jws = [try #require(CanonicalJSON.parse(encoded.postBody).value(at: "signedPayload")?.stringValue)]
            jws.append(try #require(encoded.payload.value(at: "data.signedTransactionInfo")?.stringValue))
            if let renewal = encoded.payload.value(at: "data.signedRenewalInfo")?.stringValue { jws.append(renewal) }
            for token in jws {
                let parts = token.split(separator: ".").map(String.init)
                let signature = try ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
                #expect(key.isValidSignature(signature, for: Array((parts[0] + "." + parts[1]).utf8)))
            }
        }
    }

    @Test func sandboxPayloadsOmitAppAppleIdAndProductionOnesCarryIt() throws {
        let sandbox = try run(.sandbox)
        let production = try run(.production)
        let first = { (r: ScenarioRun) in NotificationEncoder(app: r.store.app).encode(r.store.notifications[0]).payload
        }
        #expect(first(sandbox).value(at: "data.appAppleId") == nil)
        #expect(first(sandbox).value(at: "data.environment") == .string("Sandbox"))
        #expect(first(production).value(at: "data.appAppleId") == .integer(1_234_567_890))
    }

    @Test func serverAPIResponsesAreSignedInSandbox() throws {
        let result = try run(.sandbox)
        let customer = try #require(result.store.notifications.first?.recipient)
        let history = ServerAPI(result.store).transactionHistory(for: customer)
        let token = try #require(history.value(at: "signedTransactions.0")?.stringValue)
        #expect(try JWS.decodeHeader(token) == ES256Signer.defaultSigner.header)
    }
}

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
        #expect(try certificate(f.header, 0).notAfter < notification.instant)
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
