import Testing

@testable import SubscriptionSimulator

/// Rule offer-code-buys-its-plan (`SimulatedStore.redeemSubscriptionOffer`; docs/lifecycle.md, "Commitment plans"):
/// an offer configured for the monthly plan that starts a subscription starts a commitment, where the plan is sold.
@Suite struct OfferCodeMonthlyPlanTests {
    static func price(_ text: String) -> Price { Price(decimal: text)! }

    /// The product priced in `currency`, the app's storefront `storefront`.
    static func store(currency: String = "GBP", storefront: String = "GBR") throws -> SimulatedStore {
        var annual = Product(
            id: "annual", type: .autoRenewable, group: "g", period: .oneYear, price: price("99.99"),
            currency: currency)
        annual.monthlyCommitment = CommitmentPlan(monthlyPrice: price("9.99"))
        var code = SubscriptionOffer(
            id: "code", type: .offerCode, mode: .payAsYouGo, period: .months(1), periods: 2, price: price("4.99"))
        code.plan = .monthly
        annual.offers = [code]
        let app = AppConfiguration(
            bundleId: "com.example.app", appAppleId: 1, storefront: Storefronts.storefront(countryCode: storefront)!)
        return SimulatedStore(app: app, catalog: try Catalog(products: [annual]), start: testStart, seed: 1)
    }

    @Test func aMonthlyOfferCodeStartsACommitmentWithTheOfferFields() throws {
        var store = try Self.store()
        try store.redeemOffer("code", for: "annual", by: "erin")
        let first = try #require(store.transactions.last)
        #expect(first.price == Self.price("4.99") && first.offer?.identifier == "code")
        #expect(first.commitment?.billingPeriodNumber == 1 && first.commitment?.expiresDate == at("P1Y"))
        #expect(store.notifications.last?.type == .subscribed && store.notifications.last?.subtype == .initialBuy)
        try store.advance(to: at("P2M"))
        #expect(store.transactions.map(\.price) == [Self.price("4.99"), Self.price("4.99"), Self.price("9.99")])
        #expect(store.transactions.last?.commitment?.billingPeriodNumber == 3)
    }

    @Test func notWhereThePlanIsNotSoldNorOnARunningUpfrontSubscription() throws {
        var us = try Self.store(currency: "USD", storefront: "USA")
        #expect {
            try us.redeemOffer("code", for: "annual", by: "sam")
        } throws: { error in
            guard case .commitmentUnavailable = error as? StoreError else { return false }
            return true
        }
        #expect(us.transactions.isEmpty, "a refused redemption changes nothing")
        var store = try Self.store()
        try store.purchase("annual", by: "ulla")
        #expect {
            try store.redeemOffer("code", for: "annual", by: "ulla")
        } throws: { error in
            guard case .offerForAnotherPlan(_, _, .monthly, .upfront) = error as? StoreError else { return false }
            return true
        }
    }
}
