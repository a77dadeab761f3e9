import Testing
@testable import SubscriptionSimulator

/// Scenario syntax of mass extensions and refunds: an empty `storefrontCountryCodes` is refused (as Apple's API
/// refuses it, 4000027), `prorated: true` reads as a prorated refund by time remaining, and `failRenewalExtension`
/// decodes.
@Suite struct ExtensionAndRefundDecodingTests {
    static func decode(_ entry: String) throws -> Scenario {
        try ScenarioDecoder(file: "extension-refund.yaml").decode(
            """
            name: x
            start: 2026-03-01T09:00:00Z
            app: { bundleId: com.example.app }
            products:
              - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
            timeline:
              - at: 0
                purchase: { customer: alice, product: com.example.monthly }
              - at: 1d
                \(entry)
            until: P1M
            """)
    }

    @Test func anEmptyStorefrontListIsRefusedWithItsPlace() {
        #expect(
            throws: ScenarioError(
                file: "extension-refund.yaml", location: SourceLocation(line: 10, column: 135),
                message:
                    "expected `storefrontCountryCodes` as a non-empty list of storefronts, found an empty list; leave the key out to extend in every storefront (Apple rejects an empty list, 4000027)"
            )
        ) {
            try Self.decode(
                "extendRenewalDatesForAllActiveSubscribers: { product: com.example.monthly, days: 3, requestIdentifier: r, storefrontCountryCodes: [] }"
            )
        }
    }

    @Test func proratedTrueIsARefundByTimeRemainingAndAStatedPercentageWins() throws {
        let byTime = try Self.decode("refund: { customer: alice, product: com.example.monthly, prorated: true }")
        #expect(
            byTime.timeline.last?.action
                == .refundTransaction(
                    customer: "alice", product: "com.example.monthly", transaction: nil,
                    amount: .proratedByTimeRemaining, reason: 0))
        let stated = try Self.decode(
            "refund: { customer: alice, product: com.example.monthly, prorated: true, percentage: 25000 }")
        #expect(
            stated.timeline.last?.action
                == .refundTransaction(
                    customer: "alice", product: "com.example.monthly", transaction: nil,
                    amount: .prorated(milliPercent: 25000), reason: 0))
        #expect(throws: ScenarioError.self) {
            try Self.decode("refund: { customer: alice, product: com.example.monthly, prorated: false }")
        }
        let fail = try Self.decode("failRenewalExtension: { customer: alice, product: com.example.monthly }")
        #expect(fail.timeline.last?.action == .failRenewalExtension(customer: "alice", product: "com.example.monthly"))
    }
}
