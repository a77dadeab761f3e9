import Testing

@testable import SubscriptionSimulator

/// Rule commitment-price-increase-at-commitment-renewal (`SimulatedStore.raiseMonthlyPrice`; docs/lifecycle.md,
/// "Commitment plans"): in one storefront, each running commitment keeps the monthly price it was sold at there.
@Suite struct MonthlyPriceIncreaseTests {
    static func price(_ text: String) -> Price { Price(decimal: text)! }

    static func store() throws -> SimulatedStore {
        var annual = Product(
            id: "annual", type: .autoRenewable, group: "g", period: .oneYear, price: price("99.99"), currency: "GBP",
            prices: ["FRA": price("119.99")])
        annual.monthlyCommitment = CommitmentPlan(monthlyPrice: price("9.99"), prices: ["FRA": price("11.99")])
        let app = AppConfiguration(
            bundleId: "com.example.app", appAppleId: 1, storefront: Storefronts.storefront(countryCode: "GBR")!)
        var store = SimulatedStore(app: app, catalog: try Catalog(products: [annual]), start: testStart, seed: 1)
        try store.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "amelie")
        try store.purchase("annual", by: "amelie", plan: .monthly)
        try store.purchase("annual", by: "george", plan: .monthly)
        return store
    }

    @Test func aRiseInOneStorefrontKeepsEachCommitmentsPriceThere() throws {
        var store = try Self.store()
        try store.advance(to: at("10d"))
        #expect {
            try store.raiseMonthlyPrice("annual", to: Self.price("11.99"), in: "FRA", consentRequired: false)
        } throws: { error in
            guard case .priceIncrease = error as? StoreError else { return false }
            return true
        }
        try store.raiseMonthlyPrice("annual", to: Self.price("12.99"), in: "FRA", consentRequired: false)
        try store.advance(to: at("P1M"))
        let amelie = store.transactions.filter { $0.customer == "amelie" }.map(\.price)
        let george = store.transactions.filter { $0.customer == "george" }.map(\.price)
        #expect(amelie == [Self.price("11.99"), Self.price("11.99")], "the running commitment keeps 11.99")
        #expect(george == [Self.price("9.99"), Self.price("9.99")], "GBR is not affected")
        #expect(store.notifications.filter { $0.type == .priceIncrease }.map(\.recipient) == ["amelie"])
        try store.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "chloe")
        try store.purchase("annual", by: "chloe", plan: .monthly)
        #expect(store.transactions.last?.price == Self.price("12.99"), "a new commitment pays the new price")
    }

    /// A member's share renews at the purchaser's kept price, and a commitment followed by the up-front plan is not
    /// told of a rise of the monthly price.
    @Test func membersKeepThePurchasersPriceAndAnUpfrontRenewalIsNotAffected() throws {
        var annual = Product(
            id: "annual", type: .autoRenewable, group: "g", period: .oneYear, price: Self.price("99.99"),
            currency: "GBP", familyShareable: true)
        annual.monthlyCommitment = CommitmentPlan(monthlyPrice: Self.price("9.99"))
        let app = AppConfiguration(
            bundleId: "com.example.app", appAppleId: 1, storefront: Storefronts.storefront(countryCode: "GBR")!)
        var store = SimulatedStore(app: app, catalog: try Catalog(products: [annual]), start: testStart, seed: 1)
        try store.createFamily(organizer: "alice", members: ["bob"])
        try store.purchase("annual", by: "alice", plan: .monthly)
        try store.purchase("annual", by: "carol", plan: .monthly)
        try store.advance(to: at("P1M"))
        try store.changePlan(to: "annual", by: "carol", plan: .upfront)
        try store.raiseMonthlyPrice("annual", to: Self.price("10.99"), consentRequired: false)
        #expect(store.notifications.filter { $0.type == .priceIncrease }.map(\.recipient) == ["alice"])
        try store.advance(to: at("P2M"))
        let bobs = store.notifications.filter { $0.recipient == "bob" }
        #expect(bobs.last?.transaction?.price == Self.price("9.99"))
        #expect(bobs.last?.renewal?.renewalPrice == Self.price("9.99"), "the purchaser's kept price")
        #expect(bobs.last?.renewal?.commitment?.renewalPrice == Self.price("10.99"))
        let carols = store.transactions.filter { $0.customer == "carol" }.map(\.price)
        #expect(
            carols == [Self.price("9.99"), Self.price("9.99"), Self.price("9.99")], "her commitment keeps its price")
    }

    /// Rule price-increase-reaches-its-plan: a rise of the up-front price reaches the up-front subscriber and a
    /// commitment followed by the up-front plan, never a commitment that renews into a commitment (whose monthly price
    /// it does not change).
    @Test func anUpfrontRiseReachesOnlyRenewalsOnTheUpfrontPlan() throws {
        var store = try Self.store()
        try store.purchase("annual", by: "ursula")
        try store.purchase("annual", by: "carol", plan: .monthly)
        try store.advance(to: at("P1M"))
        try store.changePlan(to: "annual", by: "carol", plan: .upfront)
        try store.raisePrice("annual", to: Self.price("109.99"), consentRequired: false)
        let told = store.notifications.filter { $0.type == .priceIncrease }
        #expect(told.map(\.recipient) == ["ursula", "carol"], "george renews into a commitment: not told")
        #expect(told.first?.renewal?.renewalPrice == Self.price("109.99"))
        #expect(told.last?.renewal?.renewalPrice == Self.price("9.99"), "carol still pays monthly to period 12")
        #expect(told.last?.renewal?.commitment?.renewalPrice == Self.price("109.99"), "then the new up-front price")
        try store.advance(to: at("P2M"))
        #expect(store.transactions.last { $0.customer == "george" }?.price == Self.price("9.99"))
    }

    /// Rule price-increase-once-a-year on the monthly plan's price: after an immediate rise without consent, a small
    /// scheduled rise within the year needs consent; on the up-front price's scope it would not.
    @Test func aRiseWithoutConsentCountsForTheMonthlyPlansOnceAYear() throws {
        var store = try Self.store()
        try store.advance(to: at("10d"))
        try store.raiseMonthlyPrice("annual", to: Self.price("10.49"), consentRequired: false)
        try store.raisePrice(
            "annual", to: Self.price("10.99"), effective: at("40d"), consentRequired: nil, plan: .monthly)
        #expect(store.priceIncreaseSchedule.parts.increases.last?.needsConsent == true)
        try store.raisePrice("annual", to: Self.price("104.99"), effective: at("40d"), consentRequired: nil)
        #expect(store.priceIncreaseSchedule.parts.increases.last?.needsConsent == false, "the up-front price's own")
    }

    /// Rule commitment-price-increase-with-start-date: a rise scheduled at 10 days for 40 days reaches a commitment
    /// bought at the start at its renewal (one year), told 27 days before it; its monthly charges keep the old price.
    @Test func aScheduledRiseIsToldBeforeTheCommitmentRenewalItAppliesTo() throws {
        var store = try Self.store()
        try store.advance(to: at("10d"))
        #expect {
            try store.raisePrice(
                "annual", to: Self.price("10.99"), effective: at("20d"), consentRequired: false, plan: .monthly)
        } throws: { error in
            guard case .priceIncreaseSchedule(_, let rule, _) = error as? StoreError else { return false }
            return rule == "price-increase-notice-lead"
        }
        try store.raisePrice(
            "annual", to: Self.price("10.99"), effective: at("40d"), consentRequired: nil, plan: .monthly)
        #expect {
            try store.raiseMonthlyPrice("annual", to: Self.price("11.49"), consentRequired: false)
        } throws: { error in
            guard case .priceIncreaseSchedule(_, let rule, _) = error as? StoreError else { return false }
            return rule == "one-scheduled-price-change"
        }
        try store.advance(to: at("P2M"))
        try store.purchase("annual", by: "harry", plan: .monthly)
        #expect(store.transactions.last?.price == Self.price("10.99"), "new purchases pay it from the start date")
        let notice = at("P1Y").adding(PriceIncreaseRules.noticeLeadBack)
        try store.advance(to: notice.adding(.seconds(-1)))
        #expect(store.notifications.filter { $0.type == .priceIncrease }.isEmpty, "not told at a monthly charge")
        try store.advance(to: at("P1Y"))
        let told = store.notifications.filter { $0.type == .priceIncrease }
        #expect(told.map(\.recipient) == ["george"], "GBR only; FRA keeps its own price")
        #expect(told.first?.instant == notice && told.first?.subtype == .accepted)
        #expect(told.first?.renewal?.commitment?.renewalPrice == Self.price("10.99"))
        #expect(told.first?.renewal?.commitment?.renewalDate == at("P1Y"))
        let george = store.transactions.filter { $0.customer == "george" }.map(\.price)
        #expect(george == Array(repeating: Self.price("9.99"), count: 12) + [Self.price("10.99")])
    }
}
