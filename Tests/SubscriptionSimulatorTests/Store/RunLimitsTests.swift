import Testing

@testable import SubscriptionSimulator

/// Issue 10: a run that would pass a documented limit stops with an error that names it.
@Suite struct RunLimitsTests {
    @Test func renewalsPerSubscriptionAreLimited() throws {
        var store = makeStore()
        store.limits.maximumRenewalsPerSubscription = 3
        try store.purchase(weekly.id, by: "alice")
        try store.advance(to: at("3w"))  // three renewals: within the limit
        #expect(
            throws: StoreError.runLimit(
                .renewals(limit: 3, customer: "alice", productId: weekly.id, at: at("4w")))
        ) { try store.advance(to: at("5w")) }
    }

    @Test func storeEventsPerRunAreLimited() throws {
        var store = makeStore()
        store.limits.maximumEvents = 5
        try store.purchase(weekly.id, by: "alice")
        #expect(throws: StoreError.runLimit(.events(limit: 5, at: at("6w")))) { try store.advance(to: at("P1Y")) }
    }

    @Test func theDefaultsAreDocumented() {
        #expect(
            RunLimits.standard
                == RunLimits(
                    maximumEvents: 5_000_000, maximumRenewalsPerSubscription: 10_000, maximumCustomers: 1_000_000))
    }
}
