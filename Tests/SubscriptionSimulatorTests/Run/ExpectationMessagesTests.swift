import Testing
@testable import SubscriptionSimulator

/// What a failing expectation says (issue 9, rule 7).
@Suite struct ExpectationMessagesTests {
    static let scenario = """
        name: t
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 9.99 }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.monthly }
        until: P1M
        expect:
          - notifications:
              customer: alice
              includes:
                - { at: P1M, type: DID_RENEW, fields: { transaction.price: 4990 } }

        """

    @Test func aFailingIncludesNamesTheFieldAndBothValues() throws {
        let run = try ScenarioRunner.run(try ScenarioDecoder(file: "s.yaml").decode(Self.scenario))
        #expect(
            run.failures.map(\.description) == [
                "s.yaml:14:11: expectation failed: alice's DID_RENEW at 2026-04-01T09:00:00Z: expected transaction.price = "
                    + "4990 in DID_RENEW at 2026-04-01T09:00:00Z, found 9990"
            ])
    }

    @Test func anIncludesWithNoSuchNotificationListsWhatWasReceived() throws {
        let text = Self.scenario.replacingOccurrences(
            of: "type: DID_RENEW, fields: { transaction.price: 4990 }", with: "type: EXPIRED")
        let run = try ScenarioRunner.run(try ScenarioDecoder(file: "s.yaml").decode(text))
        #expect(run.failures.count == 1)
        #expect(
            run.failures[0].message.hasSuffix(
                "did not receive EXPIRED at 2026-04-01T09:00:00Z (in order); received: SUBSCRIBED/INITIAL_BUY at "
                    + "2026-03-01T09:00:00Z; DID_RENEW at 2026-04-01T09:00:00Z"))
    }

    /// A field Apple documents that this run's payload lacks is still a known path: the run says the payload has no
    /// such field (a typo is refused when the file is read; see Golden/Malformed/60 and 61).
    @Test func aDocumentedFieldThePayloadLacksFailsAtRunTime() throws {
        let text = Self.scenario.replacingOccurrences(
            of: "transaction.price: 4990", with: "transaction.isUpgraded: true")
        let run = try ScenarioRunner.run(try ScenarioDecoder(file: "s.yaml").decode(text))
        #expect(run.failures.first?.message.hasSuffix("but the payload has no transaction.isUpgraded") == true)
    }

    @Test(arguments: [
        "transaction.expiresDate", "renewal.autoRenewStatus", "data.status", "notificationType",
        "data.signedTransactionInfo.productId", "transaction.appTransactionId",
    ])
    func documentedFieldPathsAreKnown(path: String) {
        #expect(ExpectedFieldPaths.problem(with: path) == nil)
    }

    static let graceScenario = """
        name: t
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app, gracePeriod: 16d }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
        timeline:
          - at: 0
            purchase: { customer: bob, product: com.example.monthly }
          - at: 0
            failBilling: { customer: bob }
        until: P1M
        expect:
          - at: P1M
            status: { bob: { com.example.monthly: STATUS } }
        """

    /// `status:` takes Apple's code or the `SubscriptionPhase` name Swift tests use: one language.
    @Test(arguments: ["4", "gracePeriod"])
    func aStatusIsItsCodeOrItsSubscriptionPhaseName(status: String) throws {
        let text = Self.graceScenario.replacingOccurrences(of: "STATUS", with: status)
        let scenario = try ScenarioDecoder(file: "s.yaml").decode(text)
        guard case .status(_, let codes, _) = scenario.expectations[0] else {
            Issue.record("not a status expectation")
            return
        }
        #expect(codes == ["bob": ["com.example.monthly": SubscriptionPhase.gracePeriod.statusCode]])
        #expect(try ScenarioRunner.run(scenario).passed)
    }

    @Test func aMisspelledStatusNameIsRefusedWithTheClosestName() {
        let text = Self.graceScenario.replacingOccurrences(of: "STATUS", with: "gracePeriode")
        #expect(throws: ScenarioError.self) { try ScenarioDecoder(file: "s.yaml").decode(text) }
        do {
            _ = try ScenarioDecoder(file: "s.yaml").decode(text)
        } catch {
            #expect(
                error.description
                    == "s.yaml:14:43: error: expected a status code 1-5 or its name (active, expired, billingRetry, "
                    + "gracePeriod, revoked), found 'gracePeriode'; did you mean 'gracePeriod'?")
        }
    }
}
