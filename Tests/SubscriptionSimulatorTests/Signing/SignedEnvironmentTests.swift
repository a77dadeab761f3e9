import SimctlCrypto
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
        let key = SigningChain.default.leaf.x509.publicKey
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
