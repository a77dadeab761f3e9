import Foundation
import Testing

@testable import SubscriptionSimulator

/// The action table (`Scenario/ScenarioActionTable.swift`) is the one declaration of each scenario action: the
/// decoder, the writer, `check`'s draws and the docs' action rows agree with it.
@Suite struct ScenarioActionTableTests {
    static let all = ScenarioActionSpec.all

    @Test func namesAndArgumentsAreDistinct() {
        #expect(Set(Self.all.map(\.name)).count == Self.all.count)
        #expect(ScenarioAction.names == Self.all.map(\.name))
        for spec in Self.all {
            #expect(Set(spec.keys).count == spec.keys.count, "\(spec.name)")
            // The declared arguments, then the keys only a deprecated spelling takes.
            #expect(Array(spec.keys.prefix(spec.arguments.count)) == spec.arguments.map(\.name), "\(spec.name)")
            #expect(Set(spec.keys.dropFirst(spec.arguments.count)) == spec.deprecatedKeys, "\(spec.name)")
            #expect(!spec.keys.contains("at"), "\(spec.name)")
        }
    }

    /// The generator's order is a permutation of 0..<n: no two draws share a place, none is missing.
    @Test func checkDrawsHaveOnePlaceEach() {
        let ranks = Self.all.flatMap(\.draws).map(\.rank).sorted()
        #expect(ranks == Array(0..<ranks.count))
        #expect(Self.all.flatMap(\.draws).allSatisfy { $0.weight > 0 })
    }

    /// Each action has one row in docs/scenario-format.md whose arguments are the table's (`argumentsText`).
    @Test(arguments: ScenarioActionSpec.all.map(\.name))
    func docsRowListsTheTablesArguments(name: String) throws {
        let spec = try #require(ScenarioActionSpec.byName[name])
        let docs = try PackagePaths.read(PackagePaths.docs.appendingPathComponent("scenario-format.md"))
        let rows = docs.split(separator: "\n").filter { $0.hasPrefix("| `\(name)` |") }
        #expect(rows.count == 1, "\(name): \(rows.count) rows")
        let expected = "| `\(name)` | \(spec.argumentsText) |"
        #expect(rows.allSatisfy { $0.hasPrefix(expected) }, "expected the row to start with: \(expected)")
    }

    static let header = """
        name: Actions
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app, storefront: FRA }
        products:
          - id: com.example.annual
            type: autoRenewable
            group: pro
            period: P1Y
            price: 99.99
            currency: EUR
            monthlyCommitment: { price: 10.99 }
            offers: [{ id: back, type: winBack, mode: freeTrial, period: P1M }]
        timeline: []
        """

    /// One action of every case, with every argument given at least once.
    static let samples: [ScenarioAction] = {
        let (c, p) = ("alice", "com.example.annual")
        let later = Instant(millisecondsSince1970: 1_775_000_000_000)
        return [
            .purchase(customer: c, product: p, appAccountToken: "0f6b2c4e-8d1a-4c3b-9e2f-5a7d6c8b9e01", plan: .monthly),
            .purchase(customer: c, product: p), .cancel(customer: c, product: p), .resume(customer: c, product: p),
            .stopSharing(customer: c, product: p), .startSharing(customer: c, product: p),
            .refund(customer: c, product: p, reason: 1),
            .refundTransaction(
                customer: c, product: p, transaction: 2, amount: .prorated(milliPercent: 25_000), reason: 0),
            .refundTransaction(customer: c, product: p, transaction: nil, amount: .proratedByTimeRemaining, reason: 1),
            .failBilling(customer: c), .fixBilling(customer: c), .joinFamily(customer: c), .leaveFamily(customer: c),
            .restorePurchases(customer: c), .shareWithFamily(customer: c, enabled: false),
            .makeFamilyShareable(product: p), .removeFromSale(product: p), .restoreToSale(product: p),
            .changePlan(customer: c, product: p, plan: .upfront), .changePlan(customer: c, product: p),
            .redeemOffer(customer: c, product: p, offer: "back"),
            .raisePrice(product: p, price: Price(milliunits: 109_990), storefront: "DEU", consentRequired: true),
            .raiseMonthlyPrice(product: p, price: Price(milliunits: 11_990), storefront: nil, consentRequired: false),
            .schedulePriceIncrease(
                product: p, price: Price(milliunits: 109_990), storefront: nil, effective: later, consentRequired: nil,
                plan: .monthly),
            .consentToPriceIncrease(customer: c, product: p),
            .extendRenewalDate(
                customer: c, product: p, days: 7, reason: .customerSatisfaction, requestIdentifier: "r1"),
            .requestRefund(customer: c, product: p, transaction: 1, reason: .legal),
            .sendConsumptionInformation(
                customer: c, product: p, transaction: nil, customerConsented: true, refundPreference: .grantFull),
            .decideRefund(
                customer: c, product: p, transaction: 1, decision: .grant(.prorated(milliPercent: 500)), reason: 1),
            .decideRefund(customer: c, product: p, transaction: nil, decision: .decline, reason: 0),
            .reverseRefund(customer: c, product: p, transaction: 3), .openApp(customer: c),
            .rescindConsent(customer: c),
            .failRenewalExtension(customer: c, product: p), .requestTestNotification,
            .extendRenewalDatesForAllActiveSubscribers(
                product: p, days: 30, reason: .serviceIssueOrOutage, requestIdentifier: "all-1",
                storefrontCountryCodes: ["FRA", "DEU"]),
            .viewCancellation(customer: c, product: p, locale: "fr_FR"),
            .viewCancellation(customer: c, product: nil, locale: "en-US"),
        ]
    }()

    @Test func everyActionHasASample() {
        #expect(Set(Self.samples.map(\.name)) == Set(ScenarioAction.names))
    }

    /// Written by the table's writer, read by its decoder: the same action.
    @Test(arguments: samples.indices)
    func sampleRoundTrips(index: Int) throws {
        let action = Self.samples[index]
        let yaml = Self.header.replacingOccurrences(
            of: "timeline: []", with: "timeline:\n  - at: 0\n    \(ScenarioYAMLWriter.action(action))")
        let scenario = try ScenarioDecoder(file: "actions.yaml").decode(yaml)
        #expect(scenario.timeline.map(\.action) == [action], "\(yaml)")
    }

    /// Every action's declaration is the one its value reports, and renaming touches only the customer and the product
    /// (the entry's ``ScenarioActionSpec/renamed``, used by the identity mappings and `check`'s fresh customers).
    @Test(arguments: samples.indices)
    func sampleRenamesThroughItsEntry(index: Int) throws {
        let action = Self.samples[index]
        #expect(ScenarioActionSpec.byName[action.name] === action.spec)
        let renamed = action.renamingCustomer { $0 + ".c1" }
        #expect(renamed.customer == action.customer.map { $0 + ".c1" })
        #expect(renamed.name == action.name)
        #expect(renamed.renamingCustomer { String($0.dropLast(3)) } == action)
        let mapped = action.mappingProduct { $0 == "com.example.annual" ? "com.other.annual" : $0 }
        #expect(mapped.customer == action.customer)
        let written = ScenarioYAMLWriter.action(mapped)
        #expect(!written.contains("com.example.annual"), "\(written)")
        #expect(mapped.mappingProduct { $0 == "com.other.annual" ? "com.example.annual" : $0 } == action)
    }

    /// Distinct actions have distinct names: `refund` with `transaction`, `percentage` or `prorated` was the spelling
    /// of `refundTransaction`; it still decodes into it, with a warning at the action's key, and is written back under
    /// the new name.
    @Test func oldRefundSpellingDecodesWithAWarning() throws {
        let yaml = Self.header.replacingOccurrences(
            of: "timeline: []",
            with:
                "timeline:\n  - at: 0\n    refund: { customer: a, product: com.example.annual, transaction: 1, prorated: true }"
                + "\n  - at: 1d\n    refund: { customer: a, product: com.example.annual, reason: 1 }")
        let scenario = try ScenarioDecoder(file: "actions.yaml").decode(yaml)
        #expect(
            scenario.timeline.map(\.action) == [
                .refundTransaction(
                    customer: "a", product: "com.example.annual", transaction: 1, amount: .proratedByTimeRemaining,
                    reason: 0),
                .refund(customer: "a", product: "com.example.annual", reason: 1),
            ])
        #expect(
            scenario.warnings.map(\.description) == [
                "actions.yaml:15:5: warning: `refund` with `transaction`, `prorated` is deprecated: write "
                    + "`refundTransaction` with the same arguments"
            ])
        #expect(
            ScenarioYAMLWriter.action(scenario.timeline[0].action)
                == "refundTransaction: { customer: a, product: com.example.annual, transaction: 1, prorated: true, reason: 0 }"
        )
        // Read on several threads, the same scenario and warnings.
        #expect(try ScenarioDecoder(file: "actions.yaml").decode(yaml, threads: 2) == scenario)
    }

    /// The argument errors keep their place and wording (file:line:column, what was expected, what was found).
    @Test func argumentErrorsNameTheNode() throws {
        let yaml = Self.header.replacingOccurrences(
            of: "timeline: []",
            with:
                "timeline:\n  - at: 0\n    decideRefund: { customer: a, product: com.example.annual, decision: REFUN }")
        #expect {
            try ScenarioDecoder(file: "actions.yaml").decode(yaml)
        } throws: { error in
            "\(error)"
                == "actions.yaml:15:73: error: expected decision REFUND or REFUND_DECLINED, found 'REFUN'; did you mean 'REFUND'?"
        }
    }
}
