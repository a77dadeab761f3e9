import Testing

@testable import SubscriptionSimulator

/// Issue 45: a backend that refuses deliveries is reported with the HTTP status and the start of its answer, and a
/// case none of whose deliveries was accepted says so (most often a verifier set up for another environment).
@Suite struct RefusedDeliveryReportTests {
    static let scenario = """
        name: one purchase
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.monthly }
          - at: 1d
            cancel: { customer: alice, product: com.example.monthly }
        until: 2d

        """

    func outcome(refusing: @escaping (DeliveryRequest) -> Bool) throws -> CaseOutcome {
        let scenario = try ScenarioDecoder(file: "s.yaml").decode(Self.scenario)
        let backend = CheckedBackend(
            deliver: { request in
                refusing(request)
                    ? DeliveryOutcome(
                        sendAttemptResult: .unsuccessfulHTTPResponseCode, httpStatus: 400,
                        responseStart: DeliveryOutcome.responseStart(of: Array("bad signature\n".utf8)))
                    : .status(200)
            },
            entitlement: { _ in BackendAnswer(active: true) })
        return CaseRunner.run(scenario, against: backend).outcome
    }

    @Test func everyDeliveryRefusedIsSaidWithTheAnswer() throws {
        guard case .cannotJudge(let message) = try outcome(refusing: { _ in true }) else {
            Issue.record("a backend refusing everything cannot be judged")
            return
        }
        #expect(message.contains("HTTP 400: bad signature\\n"), "\(message)")
        #expect(message.contains("every delivery of this case was refused"))
        // Issue 47: LocalTesting's placeholder signatures are named as the likely cause.
        #expect(message.contains("signed for LocalTesting") && message.contains("give --environment Sandbox"))
    }

    /// Issue 47: one refusal among accepted deliveries is a finding of its own (the backend refuses a valid
    /// notification), not a case that cannot be judged.
    @Test func oneRefusalAmongAcceptedOnesIsAFinding() throws {
        let outcome = try outcome(refusing: { $0.item.notificationType == "DID_CHANGE_RENEWAL_STATUS" })
        guard case .diverges(let divergence) = outcome, let refusal = divergence.refusal else {
            Issue.record("a refusal after Apple's retries is a divergence: \(outcome)")
            return
        }
        #expect(divergence.kind == .refusesNotification)
        #expect(refusal.httpStatus == 400 && refusal.attempts == 6, "\(refusal)")
        #expect(divergence.description.contains("HTTP 400: bad signature\\n"), "\(divergence)")
        #expect(
            divergence.findingClass.description
                == "refusesNotification: refuses DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED HTTP 400 (caused by cancel)",
            "\(divergence.findingClass)")
    }
}
