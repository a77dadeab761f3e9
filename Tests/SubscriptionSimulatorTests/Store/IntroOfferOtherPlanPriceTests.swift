import Testing

@testable import SubscriptionSimulator

/// Rule price-in-storefront-currency with rule offer-for-its-plan (`SimulatedStore.requirePrice`): an introductory
/// offer configured for one plan needs no storefront price for a purchase on the other plan.
@Suite struct IntroOfferOtherPlanPriceTests {
    static func price(_ text: String) -> Price { Price(decimal: text)! }

    /// A GBP product also sold in France; its discounted introductory offer (priced in GBP only, so not in France)
    /// is configured for `introPlan`.
    static func store(introPlan: BillingPlan) throws -> SimulatedStore {
        var annual = Product(
            id: "annual", type: .autoRenewable, group: "g", period: .oneYear, price: price("99.99"), currency: "GBP",
            prices: ["FRA": price("119.99")])
        annual.monthlyCommitment = CommitmentPlan(monthlyPrice: price("9.99"), prices: ["FRA": price("11.99")])
        var intro = IntroductoryOffer(mode: .payUpFront, period: .months(3), price: price("19.99"))
        intro.plan = introPlan
        annual.introOffer = intro
        let app = AppConfiguration(
            bundleId: "com.example.app", appAppleId: 1, storefront: Storefronts.storefront(countryCode: "GBR")!)
        var store = SimulatedStore(app: app, catalog: try Catalog(products: [annual]), start: testStart, seed: 1)
        try store.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "amelie")
        return store
    }

    static func refusedForPrice(_ body: () throws -> Void) -> Bool {
        do { try body() } catch let error as StoreError {
            if case .noPriceInStorefront = error { return true }
        } catch {}
        return false
    }

    @Test func anIntroOfferForTheOtherPlanNeedsNoPriceThere() throws {
        var upfrontIntro = try Self.store(introPlan: .upfront)
        // Was refused: the up-front plan's offer has no price in France, but the monthly plan does not get it.
        try upfrontIntro.purchase("annual", by: "amelie", plan: .monthly)
        #expect(upfrontIntro.transactions.last?.price == Self.price("11.99"))
        #expect(upfrontIntro.transactions.last?.offer == nil)
        var monthlyIntro = try Self.store(introPlan: .monthly)
        try monthlyIntro.purchase("annual", by: "amelie", plan: .upfront)
        #expect(monthlyIntro.transactions.last?.price == Self.price("119.99"))
    }

    @Test func anIntroOfferForThePlanBoughtStillNeedsAPriceThere() throws {
        var upfrontIntro = try Self.store(introPlan: .upfront)
        #expect(Self.refusedForPrice { try upfrontIntro.purchase("annual", by: "amelie", plan: .upfront) })
        var monthlyIntro = try Self.store(introPlan: .monthly)
        #expect(Self.refusedForPrice { try monthlyIntro.purchase("annual", by: "amelie", plan: .monthly) })
    }
}
