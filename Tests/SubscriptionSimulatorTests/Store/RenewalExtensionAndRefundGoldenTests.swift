import Testing
@testable import SubscriptionSimulator

/// Goldens of renewal-date extensions and refunds (issue 14, items 4 and 5): every notification to every customer
/// (family members included), decoded and as POST bodies, with entitlement changes.
@Suite struct RenewalExtensionAndRefundGoldenTests {
    typealias Script = @Sendable (inout SimulatedStore) throws -> Void

    static let cases: [(String, Script)] = [
        (
            "extension-family-then-renewal",
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("10d"))
                try s.extendRenewalDate(familyMonthly.id, for: "alice", days: 14, reason: .serviceIssueOrOutage)
                try s.advance(to: at("P2M"))
            }
        ),
        (
            "refund-request-granted-prorated-then-reversed",
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("P1M3D"))
                try s.requestRefund(familyMonthly.id, by: "alice", reason: .fulfillmentIssue)
                try s.advance(to: at("P1M3DT6H"))
                try s.sendConsumptionInformation(
                    familyMonthly.id, of: "alice", customerConsented: true, refundPreference: .grantProrated)
                try s.advance(to: at("P1M5D"))
                try s.decideRefund(familyMonthly.id, of: "alice", .grant(.prorated(milliPercent: 90_000)))
                try s.advance(to: at("P1M8D"))
                try s.reverseRefund(familyMonthly.id, of: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
        (
            "refund-request-declined-and-past-period-refund",
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("P2M1D"))
                try s.refund(familyMonthly.id, of: "alice", transaction: 1, amount: .full, reason: 1)
                try s.requestRefund(familyMonthly.id, by: "alice", reason: .unsatisfiedWithPurchase)
                try s.advance(to: at("P2M2D"))
                try s.decideRefund(familyMonthly.id, of: "alice", .decline)
                try s.advance(to: at("P4M"))
            }
        ),
        (
            "mass-extension-with-failure",
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.purchase(familyMonthly.id, by: "dave")
                s.failBilling(for: "dave")
                try s.purchase(familyMonthly.id, by: "erin")
                try s.failNextRenewalExtension(familyMonthly.id, for: "erin")
                try s.advance(to: at("P1M10D"))
                _ = try s.extendRenewalDatesForAllActiveSubscribers(
                    familyMonthly.id, days: 5, requestIdentifier: "3e1c5a52-0b1f-4c1e-9a54-1f2d0c9e7b11")
                try s.advance(to: at("P2M"))
            }
        ),
    ]

    @Test(
        arguments: cases.map {
            GoldenCase(
                $0.0, folder: "RenewalExtensionsAndRefunds", extras: [.entitlements], store: { makeFamilyStore() }, $0.1
            )
        })
    func renewalExtensionAndRefundCaseMatchesItsGoldens(golden: GoldenCase) throws { try golden.check() }
}
