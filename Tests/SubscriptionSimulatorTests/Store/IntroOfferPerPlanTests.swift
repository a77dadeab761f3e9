import Testing

@testable import SubscriptionSimulator

/// Rule intro-offer-per-plan (`OfferRules.introOfferProblem`, `Product.introOffer(for:)`): a product with the monthly
/// plan may have one introductory offer for each billing plan; a purchase gets the one of the plan it buys, and
/// eligibility stays one introductory offer per subscription group per customer.
@Suite struct IntroOfferPerPlanTests {
    static func price(_ text: String) -> Price { Price(decimal: text)! }

    static func offer(
        _ mode: IntroductoryOfferMode, _ period: CalendarDuration, periods: Int = 1, price: String = "0",
        plan: BillingPlan?
    ) -> IntroductoryOffer {
        var offer = IntroductoryOffer(mode: mode, period: period, periods: periods, price: Self.price(price))
        offer.plan = plan
        return offer
    }

    /// A GBP one-year product with the monthly plan: a free week on the up-front plan, three months at 5.49 on the
    /// monthly plan.
    static func annual(_ offers: [IntroductoryOffer]) -> Product {
        var annual = Product(
            id: "annual", type: .autoRenewable, group: "g", period: .oneYear, price: price("109.99"), currency: "GBP")
        annual.monthlyCommitment = CommitmentPlan(monthlyPrice: price("10.99"))
        annual.introOffers = offers
        return annual
    }

    static let twoOffers = [
        offer(.freeTrial, .weeks(1), plan: .upfront),
        offer(.payAsYouGo, .months(1), periods: 3, price: "5.49", plan: .monthly),
    ]

    static func store() throws -> SimulatedStore {
        let app = AppConfiguration(
            bundleId: "com.example.app", appAppleId: 1, storefront: Storefronts.storefront(countryCode: "GBR")!)
        return SimulatedStore(
            app: app, catalog: try Catalog(products: [annual(twoOffers)]), start: testStart, seed: 1)
    }

    @Test func eachPlanGetsItsOwnIntroductoryOffer() throws {
        var store = try Self.store()
        try store.purchase("annual", by: "alice", plan: .monthly)
        let alice = try #require(store.transactions.last)
        #expect(alice.offer?.mode == .payAsYouGo && alice.offer?.periods == 3)
        #expect(alice.price == Self.price("5.49") && alice.commitment?.billingPeriodNumber == 1)
        try store.purchase("annual", by: "bob", plan: .upfront)
        let bob = try #require(store.transactions.last)
        #expect(bob.offer?.mode == .freeTrial && bob.price == .free && bob.commitment == nil)
        try store.advance(to: at("P3M"))
        let aliceRenewals = store.transactions.filter { $0.customer == "alice" }
        #expect(aliceRenewals.map(\.price.milliunits) == [5490, 5490, 5490, 10990])
        #expect(aliceRenewals.map { $0.commitment?.billingPeriodNumber } == [1, 2, 3, 4])
    }

    @Test func oneIntroductoryOfferPerGroupWhicheverThePlan() throws {
        var store = try Self.store()
        try store.purchase("annual", by: "carol", plan: .upfront)
        try store.cancel("annual", by: "carol")
        try store.advance(to: at("10d"))
        try store.purchase("annual", by: "carol", plan: .monthly)
        let again = try #require(store.transactions.last)
        #expect(again.offer == nil && again.price == Self.price("10.99") && again.commitment?.billingPeriodNumber == 1)
    }

    @Test func theCatalogRefusesTwoIntroductoryOffersForOnePlan() {
        for offers in [
            [Self.offer(.freeTrial, .weeks(1), plan: nil), Self.offer(.freeTrial, .weeks(2), plan: .monthly)],
            [Self.offer(.freeTrial, .weeks(1), plan: .upfront), Self.offer(.freeTrial, .weeks(2), plan: .upfront)],
        ] {
            #expect(OfferRules.introOfferProblem(Self.annual(offers))?.contains("intro-offer-per-plan") == true)
            #expect(throws: CatalogError.self) { try Catalog(products: [Self.annual(offers)]) }
        }
        #expect(OfferRules.introOfferProblem(Self.annual(Self.twoOffers)) == nil)
        #expect(Self.annual(Self.twoOffers).introOffer(for: .monthly)?.price == Self.price("5.49"))
    }
}
