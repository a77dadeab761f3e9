import Testing
@testable import SubscriptionSimulator

/// A free-month win-back offer with the given App Store Connect conditions.
func winBack(_ id: String, _ conditions: WinBackConditions) -> SubscriptionOffer {
    var offer = SubscriptionOffer(id: id, type: .winBack, mode: .freeTrial, period: .months(1))
    offer.winBackConditions = conditions
    return offer
}

/// A store whose monthly product has `offers`, where alice bought one month at 0 and let it lapse at P1M.
func makeLapsedStore(_ offers: [SubscriptionOffer]) throws -> SimulatedStore {
    var store = makeStore()
    var product = monthly
    product.offers = offers
    try store.catalog.replace(product)
    try store.purchase(monthly.id, by: "alice")
    try store.cancel(monthly.id, by: "alice")
    try store.advance(to: at("P1M"))
    return store
}

/// `redeemOffer`'s refusal under rule win-back-conditions, or nil when the offer was redeemed.
func winBackRefusal(_ store: inout SimulatedStore, _ offerId: String, at instant: Instant) throws -> String? {
    try store.advance(to: instant)
    do throws(StoreError) {
        try store.redeemOffer(offerId, for: monthly.id, by: "alice")
        return nil
    } catch .winBackIneligible(_, _, _, let condition) {
        return condition
    }
}

/// Rule win-back-conditions (`Catalog/Offers.swift`, `WinBackEligibility`): one condition per test, at its boundary.
@Suite struct WinBackConditionsTests {
    @Test func winBackConditionsPaidMonths() throws {
        let store = try makeLapsedStore([
            winBack("wb.paid1", WinBackConditions(paidMonths: 1)),
            winBack("wb.paid2", WinBackConditions(paidMonths: 2)),
        ])
        // One month paid: the EXPIRED notification lists the offer needing one month, not the one needing two.
        let expired = store.notifications.last!
        #expect(expired.type == .expired && expired.renewal?.eligibleWinBackOfferIds == ["wb.paid1"])
        var refused = store
        #expect(try winBackRefusal(&refused, "wb.paid2", at: at("P1M"))?.contains("(paidMonths)") == true)
        var redeemed = store
        #expect(try winBackRefusal(&redeemed, "wb.paid1", at: at("P1M")) == nil)
        #expect(redeemed.notifications.last?.subtype == .resubscribe)
    }

    @Test func winBackConditionsMinimumMonthsSinceLastSubscribed() throws {
        let store = try makeLapsedStore([
            winBack(
                "wb.later", WinBackConditions(minimumMonthsSinceLastSubscribed: 1, maximumMonthsSinceLastSubscribed: 2))
        ])
        #expect(store.notifications.last?.renewal?.eligibleWinBackOfferIds == [])
        var early = store
        let condition = try winBackRefusal(&early, "wb.later", at: at("P2M").adding(milliseconds: -1))
        #expect(condition?.contains("(monthsSinceLastSubscribed.minimum)") == true)
        var onTime = store
        #expect(try winBackRefusal(&onTime, "wb.later", at: at("P2M")) == nil)
    }

    @Test func winBackConditionsMaximumMonthsSinceLastSubscribed() throws {
        let store = try makeLapsedStore([winBack("wb.soon", WinBackConditions(maximumMonthsSinceLastSubscribed: 2))])
        #expect(store.notifications.last?.renewal?.eligibleWinBackOfferIds == ["wb.soon"])
        var last = store
        #expect(try winBackRefusal(&last, "wb.soon", at: at("P3M")) == nil)
        var late = store
        let condition = try winBackRefusal(&late, "wb.soon", at: at("P3M").adding(milliseconds: 1))
        #expect(condition?.contains("(monthsSinceLastSubscribed.maximum)") == true)
    }

    @Test func winBackConditionsWaitBetweenOffers() throws {
        var store = try makeLapsedStore([winBack("wb.wait", WinBackConditions(waitBetweenOffersMonths: 2))])
        // Redeemed at P1M (a free month), lapsed again at P2M: the next one waits until P3M.
        #expect(try winBackRefusal(&store, "wb.wait", at: at("P1M")) == nil)
        try store.cancel(monthly.id, by: "alice")
        try store.advance(to: at("P2M"))
        let expired = store.notifications.last!
        #expect(expired.type == .expired && expired.renewal?.eligibleWinBackOfferIds == [])
        var early = store
        let condition = try winBackRefusal(&early, "wb.wait", at: at("P3M").adding(milliseconds: -1))
        #expect(condition?.contains("(waitBetweenOffersMonths)") == true)
        var onTime = store
        #expect(try winBackRefusal(&onTime, "wb.wait", at: at("P3M")) == nil)
    }

    @Test func winBackConditionsStartAndEndDate() throws {
        let store = try makeLapsedStore([
            winBack("wb.window", WinBackConditions(startDate: at("P2M"), endDate: at("P3M")))
        ])
        #expect(store.notifications.last?.renewal?.eligibleWinBackOfferIds == [])
        var before = store
        let notYet = try winBackRefusal(&before, "wb.window", at: at("P2M").adding(milliseconds: -1))
        #expect(notYet?.contains("(startDate)") == true)
        var first = store
        #expect(try winBackRefusal(&first, "wb.window", at: at("P2M")) == nil)
        var last = store
        #expect(try winBackRefusal(&last, "wb.window", at: at("P3M")) == nil)
        var after = store
        let ended = try winBackRefusal(&after, "wb.window", at: at("P3M").adding(milliseconds: 1))
        #expect(ended?.contains("(endDate)") == true)
    }

    @Test func winBackConditionsPriorityOrdersHighFirst() throws {
        let store = try makeLapsedStore([
            winBack("wb.a", WinBackConditions(priority: .normal)), winBack("wb.b", WinBackConditions(priority: .high)),
            SubscriptionOffer(id: "wb.c", type: .winBack, mode: .freeTrial, period: .months(1)),
            winBack("wb.d", WinBackConditions(priority: .high)),
        ])
        #expect(store.notifications.last?.renewal?.eligibleWinBackOfferIds == ["wb.b", "wb.d", "wb.a", "wb.c"])
    }

    @Test func winBackConditionsRefusalNamesRuleAndCondition() throws {
        var store = try makeLapsedStore([winBack("wb.paid2", WinBackConditions(paidMonths: 2))])
        #expect(throws: StoreError.self) { try store.redeemOffer("wb.paid2", for: monthly.id, by: "alice") }
        do throws(StoreError) {
            try store.redeemOffer("wb.paid2", for: monthly.id, by: "alice")
        } catch {
            #expect(
                error.description
                    == "'alice' is not eligible for win-back offer 'wb.paid2' of '\(monthly.id)': it needs 2 month(s) of "
                    + "paid subscription; the customer paid for 31 day(s) (paidMonths) (rule win-back-conditions)")
        }
        #expect(store.notifications.last?.type == .expired)
    }
}
