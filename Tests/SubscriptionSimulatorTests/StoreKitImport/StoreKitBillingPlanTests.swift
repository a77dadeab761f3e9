import Testing

@testable import SubscriptionSimulator

/// §6.5 `billingPlans` (Xcode 26.5, reference Appendix E.3): a one-year subscription's `MONTHLY` plan becomes its
/// `monthlyCommitment`; what the importer cannot take, and keys it does not know, are reported and the import goes
/// on.
@Suite struct StoreKitBillingPlanTests {
    static func file(period: String, monthly: String, extraKey: String = "") -> String {
        #"{"settings":{"_storefront":"GBR"},"subscriptionGroups":[{"id":"G","name":"g","subscriptions":[{"productID":"y","type":"RecurringSubscription","recurringSubscriptionPeriod":""#
            + period
            + #"","displayPrice":"109.99","groupNumber":1,"familyShareable":false,"#
            + extraKey
            + #""billingPlans":[{"billingPlanType":"BILLED_UPFRONT","commitmentDisplayPrice":"109.99","displayPrice":"109.99","isEnabled":true},{"billingPlanType":"MONTHLY","commitmentDisplayPrice":"131.88","displayPrice":""#
            + monthly + #"","isEnabled":true,"commitmentWidget":1}]}]}]}"#
    }

    static func imported(_ json: String) throws -> StoreKitConfiguration {
        try StoreKitImporter.importData(Array(json.utf8), fileName: "Plans.storekit")
    }

    @Test func monthlyPlanOfAOneYearSubscriptionIsImported() throws {
        let c = try Self.imported(Self.file(period: "P1Y", monthly: "10.99", extraKey: #""bundleOffers":[],"#))
        #expect(c.products.first?.monthlyCommitment == CommitmentPlan(monthlyPrice: Price(decimal: "10.99")!))
        #expect(c.notes.contains("y: keys this importer does not know, ignored: bundleOffers"))
        #expect(c.notes.contains("y: billing plan keys this importer does not know, ignored: commitmentWidget"))
    }

    @Test func aPlanTheSimulatorCannotTakeIsReportedAndTheImportGoesOn() throws {
        let monthlyProduct = try Self.imported(Self.file(period: "P1M", monthly: "10.99"))
        #expect(monthlyProduct.products.count == 1 && monthlyProduct.products[0].monthlyCommitment == nil)
        #expect(monthlyProduct.notes.contains { $0.contains("commitment-plan-needs-one-year") })
        // RevenueCat's test file: a 0.50 monthly plan on an 11.88 yearly product, outside Apple's price range.
        let revenueCat = try StoreKitImporter.importFile(
            at: SharedData.file("RevenueCat__purchases-ios__UnitTestsConfiguration.storekit"))
        #expect(revenueCat.products.allSatisfy { $0.monthlyCommitment == nil })
        #expect(revenueCat.notes.contains { $0.contains("MONTHLY billing plan not imported") })
    }
}
