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

    /// A disabled plan is left out with a note; a file whose storefront does not sell the plan (rule
    /// commitment-storefronts) imports it with a note.
    @Test func aDisabledPlanAndAStorefrontWithoutThePlanAreNoted() throws {
        let disabled = try Self.imported(
            Self.file(period: "P1Y", monthly: "10.99").replacingOccurrences(
                of: #""isEnabled":true,"commitmentWidget""#, with: #""isEnabled":false,"commitmentWidget""#))
        #expect(disabled.products.first?.monthlyCommitment == nil)
        #expect(disabled.notes.contains("y: MONTHLY billing plan not imported: its isEnabled is false"))
        let american = try Self.imported(
            Self.file(period: "P1Y", monthly: "10.99").replacingOccurrences(of: #""GBR""#, with: #""USA""#))
        #expect(american.products.first?.monthlyCommitment != nil)
        let note =
            "y: the monthly plan with a 12-month commitment is not sold in the file's storefront USA (rule "
            + "commitment-storefronts); a customer in another storefront buys it"
        #expect(american.notes.contains(note))
        #expect(!(try Self.imported(Self.file(period: "P1Y", monthly: "10.99"))).notes.contains(note))
    }

    /// A format 5.0 subscription with `offers` (the JSON of its offer keys) beside a monthly plan of `monthly`.
    static func fileWithOffers(monthly: String = "10.99", _ offers: String) -> String {
        #"{"settings":{"_storefront":"GBR"},"subscriptionGroups":[{"id":"G","name":"g","subscriptions":[{"productID":"y","type":"RecurringSubscription","recurringSubscriptionPeriod":"P1Y","displayPrice":"109.99","groupNumber":1,"familyShareable":false,"#
            + offers
            + #","billingPlans":[{"billingPlanType":"BILLED_UPFRONT","commitmentDisplayPrice":"109.99","displayPrice":"109.99","isEnabled":true},{"billingPlanType":"MONTHLY","commitmentDisplayPrice":"131.88","displayPrice":""#
            + monthly + #"","isEnabled":true}]}]}]}"#
    }

    static func trialFor(_ plan: String, _ period: String) -> String {
        #"{"billingPlanType":""# + plan + #"","paymentMode":"free","subscriptionPeriod":""# + period + #""}"#
    }

    @Test func offersCarryTheirBillingPlan() throws {
        let c = try Self.imported(
            Self.fileWithOffers(
                #""introductoryOffers":["# + Self.trialFor("BILLED_UPFRONT", "P1W") + ","
                    + Self.trialFor("MONTHLY", "P2W") + "],"
                    + #""codeOffers":[{"billingPlanType":"MONTHLY","referenceName":"m.code","paymentMode":"payAsYouGo","subscriptionPeriod":"P1M","numberOfPeriods":3,"displayPrice":"7.99"},"#
                    + #"{"billingPlanType":"BILLED_UPFRONT","referenceName":"u.code","paymentMode":"payUpFront","subscriptionPeriod":"P1Y","displayPrice":"79.99"},"#
                    + #"{"billingPlanType":"QUARTERLY","referenceName":"q.code","paymentMode":"free","subscriptionPeriod":"P1W"}]"#
            ))
        let product = try #require(c.products.first)
        // Rule intro-offer-per-plan: each plan's introductory offer is imported, the monthly plan's too.
        #expect(product.introOffers.map(\.plan) == [.upfront, .monthly])
        #expect(product.introOffer(for: .upfront)?.period == CalendarDurationSyntax.parse("P1W"))
        #expect(product.introOffer(for: .monthly)?.period == CalendarDurationSyntax.parse("P2W"))
        #expect(!c.notes.contains { $0.contains("introductory") })
        #expect(product.offers.map(\.identifier) == ["m.code", "u.code"])
        #expect(product.offers.map(\.plan) == [.monthly, .upfront])
        #expect(
            c.notes.contains("y: offer code for billing plan 'QUARTERLY' not imported (known: BILLED_UPFRONT, MONTHLY)")
        )
    }

    @Test func theSameIntroductoryOfferOnBothPlansAppliesToBoth() throws {
        let same = try Self.imported(
            Self.fileWithOffers(
                #""introductoryOffers":["# + Self.trialFor("BILLED_UPFRONT", "P1W") + ","
                    + Self.trialFor("MONTHLY", "P1W") + "]"))
        #expect(same.products.first?.introOffer?.plan == nil && same.products.first?.introOffer != nil)
        let monthlyOnly = try Self.imported(
            Self.fileWithOffers(#""introductoryOffers":["# + Self.trialFor("MONTHLY", "P1W") + "]"))
        #expect(monthlyOnly.products.first?.introOffer?.plan == .monthly)
    }

    @Test func aSecondIntroductoryOfferForOnePlanIsLeftOutWithANote() throws {
        let c = try Self.imported(
            Self.fileWithOffers(
                #""introductoryOffers":["# + Self.trialFor("MONTHLY", "P1W") + ","
                    + Self.trialFor("MONTHLY", "P2W") + "]"))
        #expect(c.products.first?.introOffers.map(\.period) == [.weeks(1)])
        #expect(
            c.notes.contains(
                "y: introductoryOffers[1] not imported: a second introductory offer for the MONTHLY billing plan "
                    + "(rule intro-offer-per-plan)"))
    }

    /// An offer's keys the importer does not know are listed in a note, and the offer is imported.
    @Test func anOffersUnknownKeysAreReportedAndTheImportGoesOn() throws {
        let c = try Self.imported(
            Self.fileWithOffers(
                #""introductoryOffers":[{"billingPlanType":"MONTHLY","paymentMode":"free","subscriptionPeriod":"P1W","commitmentPeriods":2}]"#
            ))
        #expect(c.products.first?.introOffer(for: .monthly)?.period == .weeks(1))
        #expect(c.notes.contains("y: introductory offer keys this importer does not know, ignored: commitmentPeriods"))
    }

    @Test func aMonthlyOfferWithoutAnImportedMonthlyPlanIsLeftOut() throws {
        // 12 × 5.00 is below the up-front price: the monthly plan is not imported, nor its offer.
        let c = try Self.imported(
            Self.fileWithOffers(
                monthly: "5.00",
                #""introductoryOffers":["# + Self.trialFor("MONTHLY", "P1W") + ","
                    + Self.trialFor("BILLED_UPFRONT", "P1M") + "]"))
        #expect(c.products.first?.monthlyCommitment == nil)
        #expect(c.products.first?.introOffer?.plan == nil && c.products.first?.introOffer?.period == .months(1))
        #expect(c.notes.contains { $0.contains("introductory offer for the MONTHLY billing plan not imported") })
    }

    @Test func aPlanTheSimulatorCannotTakeIsReportedAndTheImportGoesOn() throws {
        let monthlyProduct = try Self.imported(Self.file(period: "P1M", monthly: "10.99"))
        #expect(monthlyProduct.products.count == 1 && monthlyProduct.products[0].monthlyCommitment == nil)
        #expect(monthlyProduct.notes.contains { $0.contains("commitment-plan-needs-one-year") })
        // The shape of RevenueCat's test file (below): a 0.50 monthly plan on a one-year product, outside Apple's
        // price range.
        let outOfRange = try Self.imported(Self.file(period: "P1Y", monthly: "0.50"))
        #expect(outOfRange.products.count == 1 && outOfRange.products[0].monthlyCommitment == nil)
        #expect(outOfRange.notes.contains { $0.contains("MONTHLY billing plan not imported") })
    }

    /// The same rule on RevenueCat's own test file, read from `shared/data/storekit/` where it is beside the checkout
    /// (skipped, naming the folder, where it is not: a user's clone has none).
    @Test(.enabled(if: SharedData.available, SharedData.missingReason))
    func aPlanOutsideApplesPriceRangeInARealFileIsReported() throws {
        // RevenueCat's test file: a 0.50 monthly plan on an 11.88 yearly product, outside Apple's price range.
        let revenueCat = try StoreKitImporter.importFile(
            at: try SharedData.file("RevenueCat__purchases-ios__UnitTestsConfiguration.storekit"))
        #expect(revenueCat.products.allSatisfy { $0.monthlyCommitment == nil })
        #expect(revenueCat.notes.contains { $0.contains("MONTHLY billing plan not imported") })
    }
}
