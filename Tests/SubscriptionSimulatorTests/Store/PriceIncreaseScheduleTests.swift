import Testing
@testable import SubscriptionSimulator

/// One rule per test for price increases with a start date (`Lifecycle/PriceIncreaseRules.swift`,
/// `Store/SimulatedStore+PriceIncreases.swift`; docs/lifecycle.md, "Price increases with a start date").
@Suite struct PriceIncreaseScheduleTests {
    static func price(_ text: String) -> Price { Price(decimal: text)! }

    @Test func priceIncreaseConsentThreshold() {
        func decide(_ old: String, _ new: String, _ currency: String = "USD", annual: Bool = false)
            -> PriceIncreaseRules.ConsentDecision
        {
            PriceIncreaseRules.consent(from: Self.price(old), to: Self.price(new), currency: currency, annual: annual)
        }
        #expect(decide("9.99", "12.99") == .notNeeded, "30 %: the first condition fails")
        #expect(decide("4.99", "14.99") == .needed, "200 % and USD 10 per period")
        #expect(decide("9.99", "15.99") == .needed, "60 % and USD 6")
        #expect(decide("2.99", "7.99") == .notNeeded, "167 % but exactly USD 5, not more")
        #expect(decide("10.00", "15.00") == .notNeeded, "exactly 50 %, not more")
        #expect(decide("29.99", "89.99", annual: true) == .needed, "annual: USD 60 a year")
        #expect(decide("39.99", "79.99", annual: true) == .notNeeded, "annual: 100 % but USD 40 a year")
        #expect(decide("9.99", "15.99", annual: true) == .notNeeded, "annual threshold is USD 50")
        #expect(decide("4.99", "9.99", "EUR") == .unknown, "above 50 % in euros: an exchange rate is needed")
        #expect(decide("9.99", "12.99", "EUR") == .notNeeded, "at most 50 % needs no consent in any currency")
    }

    @Test func priceIncreaseNoticeLead() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("5d"))
        for effective in [at("4d"), at("5d"), at("31d")] {
            #expect {
                try store.raisePrice(monthly.id, to: Self.price("10.99"), effective: effective, consentRequired: nil)
            } throws: { error in
                guard case .priceIncreaseSchedule(_, let rule, _) = error as? StoreError else { return false }
                return rule == "price-increase-notice-lead"
            }
        }
        #expect(store.notifications.count == 1, "nothing was scheduled")
        try store.raisePrice(monthly.id, to: Self.price("10.99"), effective: at("32d"), consentRequired: nil)
    }

    @Test func priceIncreaseFirstRenewal() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("5d"))
        // Starts at day 40: alice's renewal at P1M keeps 9.99; she is told 27 days before P2M and pays 12.99 then.
        try store.raisePrice(monthly.id, to: Self.price("12.99"), effective: at("40d"), consentRequired: nil)
        #expect(store.notifications.count == 1, "nobody is told at once")
        try store.advance(to: at("P2M"))
        let told = at("P2M").adding(.days(-27))
        #expect(
            lines(store.notifications) == [
                "\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1", "\(at("P1M")) alice DID_RENEW 1",
                "\(told) alice PRICE_INCREASE/ACCEPTED 1", "\(at("P2M")) alice DID_RENEW 1",
            ])
        #expect(store.notifications[2].renewal?.renewalPrice == Self.price("12.99"), "before the start date too")
        #expect(store.transactions.map(\.price) == [Self.price("9.99"), Self.price("9.99"), Self.price("12.99")])
    }

    @Test func newPurchasesPayTheNewPriceFromTheStartDate() throws {
        var store = makeStore()
        try store.raisePrice(monthly.id, to: Self.price("12.99"), effective: at("30d"), consentRequired: nil)
        try store.purchase(monthly.id, by: "bob")
        try store.advance(to: at("30d"))
        try store.purchase(monthly.id, by: "carol")
        #expect(store.transactions.map(\.price) == [Self.price("9.99"), Self.price("12.99")])
        // bob subscribed at the old price before the start: told at the start, pays the new price at P1M.
        try store.advance(to: at("P1M"))
        #expect(lines(store.notifications).contains("\(at("30d")) bob PRICE_INCREASE/ACCEPTED 1"))
        #expect(store.transactions.last?.customer == "bob" && store.transactions.last?.price == Self.price("12.99"))
    }

    @Test func weeklySubscribersAreToldAtTheStartOfTheirLastWeek() throws {
        var store = makeStore()
        try store.purchase(weekly.id, by: "alice")
        try store.raisePrice(weekly.id, to: Self.price("3.49"), effective: at("30d"), consentRequired: true)
        try store.advance(to: at("35d"))
        // The first renewal after day 30 is day 35; 27 days before is day 8, but the week ending at day 35 starts
        // at day 28, after that week's renewal (still 2.99).
        let tail = Array(lines(store.notifications).suffix(3))
        #expect(
            tail == [
                "\(at("28d")) alice DID_RENEW 1", "\(at("28d")) alice PRICE_INCREASE/PENDING 1",
                "\(at("35d")) alice EXPIRED/PRICE_INCREASE 2",
            ])
        #expect(store.transactions.last?.price == Self.price("2.99"))
    }

    @Test func priceIncreaseOnceAYear() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.raisePrice(monthly.id, to: Self.price("10.99"), effective: at("30d"), consentRequired: nil)
        try store.advance(to: at("40d"))
        // 10.99 to 11.99 is small, but the second increase without consent within a year: consent needed.
        try store.raisePrice(monthly.id, to: Self.price("11.99"), effective: at("70d"), consentRequired: nil)
        try store.advance(to: at("P3M"))
        #expect(lines(store.notifications).last == "\(at("P3M")) alice EXPIRED/PRICE_INCREASE 2")
        #expect(store.notifications.contains { $0.type == .priceIncrease && $0.subtype == .pending })
    }

    @Test func statedConsentWins() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        // More than 50 % and more than USD 5, but stated as needing no consent.
        try store.raisePrice(monthly.id, to: Self.price("19.99"), effective: at("30d"), consentRequired: false)
        try store.advance(to: at("P1M"))
        // The first renewal after day 30 is P1M (day 31): told 27 days before it.
        #expect(lines(store.notifications).contains("\(at("P1M").adding(.days(-27))) alice PRICE_INCREASE/ACCEPTED 1"))
        #expect(store.transactions.last?.price == Self.price("19.99"))
    }

    @Test func oneScheduledPriceChange() throws {
        var store = makeStore()
        try store.raisePrice(monthly.id, to: Self.price("10.99"), effective: at("30d"), consentRequired: nil)
        #expect {
            try store.raisePrice(monthly.id, to: Self.price("11.99"), consentRequired: false)
        } throws: { error in
            guard case .priceIncreaseSchedule(_, let rule, _) = error as? StoreError else { return false }
            return rule == "one-scheduled-price-change"
        }
        try store.advance(to: at("30d"))
        try store.raisePrice(monthly.id, to: Self.price("11.99"), consentRequired: false)
    }
}
