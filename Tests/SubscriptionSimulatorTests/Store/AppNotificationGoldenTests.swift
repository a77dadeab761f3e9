import Testing
@testable import SubscriptionSimulator

/// Goldens of the notifications about the app (rule notification-about-the-app): `TEST` and `RENEWAL_EXTENSION` /
/// `SUMMARY`, with every notification to every customer around them, decoded and as POST bodies.
@Suite struct AppNotificationGoldenTests {
    typealias Script = @Sendable (inout SimulatedStore) throws -> Void

    static let cases: [(String, Script)] = [
        (
            "test-notification",
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("2h"))
                s.requestTestNotification()
                try s.advance(to: at("P1M"))
            }
        )
    ]

    @Test(arguments: cases.map { GoldenCase($0.0, folder: "AppNotifications", store: { makeFamilyStore() }, $0.1) })
    func appNotificationCaseMatchesItsGoldens(golden: GoldenCase) throws { try golden.check() }
}
