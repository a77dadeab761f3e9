import Testing
@testable import SubscriptionSimulator

/// Exhaustive plan-change goldens: every notification to every customer (family members included), decoded and as
/// POST bodies (decoded by Apple's library in CI), with entitlements and every customer's device view.
@Suite struct PlanChangeGoldenTests {
    typealias Script = @Sendable (inout SimulatedStore) throws -> Void

    static let cases: [(String, Script)] = [
        (
            "upgrade-at-once",
            { s in
                try s.purchase(plusMonthly.id, by: "alice")
                try s.advance(to: at("10d"))
                try s.changePlan(to: premiumMonthly.id, by: "alice")
                try s.advance(to: at("P2M"))
            }
        ),
        (
            "downgrade-at-next-renewal",
            { s in
                try s.purchase(premiumMonthly.id, by: "alice")
                try s.advance(to: at("10d"))
                try s.changePlan(to: basicMonthly.id, by: "alice")
                try s.advance(to: at("P2M"))
            }
        ),
        (
            "crossgrades-and-cancelled-downgrade",
            { s in
                try s.purchase(basicMonthly.id, by: "alice")
                try s.advance(to: at("P1M"))
                try s.changePlan(to: plusMonthly.id, by: "alice")
                try s.advance(to: at("P1M5D"))
                try s.changePlan(to: basicYearly.id, by: "alice")
                try s.advance(to: at("P1M10D"))
                try s.changePlan(to: plusMonthly.id, by: "alice")
                try s.advance(to: at("P1M15D"))
                try s.changePlan(to: basicYearly.id, by: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
    ]

    static let familyCases: [(String, Script)] = [
        (
            "family-shareable-and-non-shareable",
            { s in
                try s.purchase(familyBasicYearly.id, by: "alice")
                try s.advance(to: at("10d"))
                try s.changePlan(to: familyMonthly.id, by: "alice")
                try s.advance(to: at("15d"))
                try s.changePlan(to: soloMonthly.id, by: "alice")
                try s.advance(to: at("P1M15D"))
                try s.changePlan(to: familyMonthly.id, by: "alice")
                try s.advance(to: at("P2M15D"))
            }
        )
    ]

    @Test(
        arguments: cases.map {
            GoldenCase(
                $0.0, folder: "PlanChanges", extras: [.entitlements, .deviceView], store: { makePlanStore() }, $0.1)
        }
            + familyCases.map {
                GoldenCase(
                    $0.0, folder: "PlanChanges", extras: [.entitlements, .deviceView],
                    store: { makeFamilyPlanStore() }, $0.1)
            })
    func planChangeMatchesItsGoldens(golden: GoldenCase) throws { try golden.check() }
}
