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
}
