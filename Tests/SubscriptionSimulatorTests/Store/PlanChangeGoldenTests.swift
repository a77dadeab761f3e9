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

    static func check(_ name: String, _ store: SimulatedStore) {
        let entitlements = store.entitlementChanges.map {
            "\($0.instant) \($0.customer) [\($0.products.joined(separator: ", "))]\n"
        }.joined()
        let device = store.customers.flatMap { store.deviceEvents(for: $0) }.map { "\($0)\n" }.joined()
        GoldenLifecycleTests.goldenCheck(
            name, store, [("entitlements.txt", entitlements), ("device.txt", device)], folder: "PlanChanges")
    }

    @Test(arguments: cases.map(\.0))
    func planChangeMatchesItsGoldens(name: String) throws {
        var store = makePlanStore()
        try Self.cases.first { $0.0 == name }!.1(&store)
        Self.check(name, store)
    }

    @Test(arguments: familyCases.map(\.0))
    func familyPlanChangeMatchesItsGoldens(name: String) throws {
        var store = makeFamilyPlanStore()
        try Self.familyCases.first { $0.0 == name }!.1(&store)
        Self.check(name, store)
    }
}
