import Testing
@testable import SubscriptionSimulator

/// One rule per test for price increases (`Store/SimulatedStore+PriceIncreases.swift`,
/// `Lifecycle/OffersAndPriceIncreases.swift`; reference §1.1, §1.3, §5.12).
@Suite struct PriceIncreaseRulesTests {
    static let newPrice = Price(decimal: "12.99")!

    @Test func priceIncreaseConsentPendingThenAccepted() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.raisePrice(monthly.id, to: Self.newPrice, consentRequired: true)
        var last = store.notifications.last!
        #expect(last.type == .priceIncrease && last.subtype == .pending && last.status == .active)
        #expect(last.renewal?.priceIncreaseStatus == .pending && last.renewal?.renewalPrice == Self.newPrice)
        let renewal = Payloads.renewalInfo(last.renewal!, app: store.app, signedDate: store.now)
        #expect(renewal.value(at: "priceIncreaseStatus")?.integerValue == 0)
        #expect(renewal.value(at: "renewalPrice")?.integerValue == 12990)
        try store.advance(to: at("20d"))
        try store.consentToPriceIncrease(monthly.id, by: "alice")
        last = store.notifications.last!
        #expect(
            last.type == .priceIncrease && last.subtype == .accepted && last.renewal?.priceIncreaseStatus == .accepted)
        try store.advance(to: at("P1M"))
        #expect(lines(store.notifications).last == "\(at("P1M")) alice DID_RENEW 1")
        #expect(store.transactions.last?.price == Self.newPrice, "the new price from the renewal on")
        #expect(store.notifications.last?.renewal?.priceIncreaseStatus == nil, "the increase has been applied")
    }

    @Test func priceIncreaseConsentNotNeededIsAcceptedAtOnce() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.raisePrice(monthly.id, to: Self.newPrice, consentRequired: false)
        #expect(lines(store.notifications).last == "\(at("0")) alice PRICE_INCREASE/ACCEPTED 1")
        #expect(store.notifications.last?.renewal?.priceIncreaseStatus == .accepted)
        try store.advance(to: at("P1M"))
        #expect(store.transactions.last?.price == Self.newPrice)
    }

    @Test func priceIncreaseNotConsentedExpiresAtTheRenewal() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.raisePrice(monthly.id, to: Self.newPrice, consentRequired: true)
        try store.advance(to: at("P2M"))
        #expect(lines(store.notifications).last == "\(at("P1M")) alice EXPIRED/PRICE_INCREASE 2")
        let renewal = Payloads.renewalInfo(store.notifications.last!.renewal!, app: store.app, signedDate: store.now)
        #expect(renewal.value(at: "expirationIntent")?.integerValue == 3)
        #expect(renewal.value(at: "autoRenewStatus")?.integerValue == 0)
        #expect(store.entitlements(for: "alice").isEmpty)
        #expect(store.transactions.count == 1, "nothing is charged")
    }

    @Test func newPurchasesPayTheNewPriceAtOnce() throws {
        var store = makeStore()
        try store.raisePrice(monthly.id, to: Self.newPrice, consentRequired: true)
        try store.purchase(monthly.id, by: "bob")
        #expect(store.transactions[0].price == Self.newPrice)
        #expect(store.notifications.last?.renewal?.priceIncreaseStatus == nil)
    }

    @Test func priceIncreaseInOneStorefrontReachesOnlyItsSubscribers() throws {
        var store = makeStore()
        var product = monthly
        product.prices = ["FRA": Price(decimal: "9.99")!]
        try store.catalog.replace(product)
        try store.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "carol")
        try store.purchase(monthly.id, by: "alice")
        try store.purchase(monthly.id, by: "carol")
        try store.raisePrice(monthly.id, to: Price(decimal: "10.99")!, in: "FRA", consentRequired: true)
        #expect(lines(store.notifications).last == "\(at("0")) carol PRICE_INCREASE/PENDING 1")
        #expect(store.notifications.filter { $0.type == .priceIncrease }.count == 1)
        #expect(store.catalog[monthly.id]?.price == Price(decimal: "9.99")!, "the USD price is unchanged")
    }

    @Test func priceIncreaseRaisesPrice() throws {
        var store = makeStore()
        #expect(throws: StoreError.self) {
            try store.raisePrice(monthly.id, to: Price(decimal: "9.99")!, consentRequired: true)
        }
        #expect(throws: StoreError.self) {
            try store.raisePrice(coins.id, to: Price(decimal: "1.99")!, consentRequired: false)
        }
        #expect(throws: StoreError.noPriceInStorefront(productId: monthly.id, storefront: "FRA")) {
            try store.raisePrice(monthly.id, to: Self.newPrice, in: "FRA", consentRequired: false)
        }
    }

    @Test func noPriceIncreasePending() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        #expect(throws: StoreError.lifecycle(.noPriceIncreasePending, customer: "alice", productId: monthly.id)) {
            try store.consentToPriceIncrease(monthly.id, by: "alice")
        }
        try store.raisePrice(monthly.id, to: Self.newPrice, consentRequired: false)
        #expect(throws: StoreError.lifecycle(.noPriceIncreasePending, customer: "alice", productId: monthly.id)) {
            try store.consentToPriceIncrease(monthly.id, by: "alice")
        }
    }

    @Test func familyMembersAreNotAskedButFollowTheExpiry() throws {
        var store = makeStore()
        var shared = monthly
        shared.familyShareable = true
        try store.catalog.replace(shared)
        try store.createFamily(organizer: "alice", members: ["bob"])
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.raisePrice(monthly.id, to: Self.newPrice, consentRequired: true)
        try store.advance(to: at("P1M"))
        #expect(
            lines(store.notifications) == [
                "\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1", "\(at("1h")) bob SUBSCRIBED/INITIAL_BUY 1",
                "\(at("10d")) alice PRICE_INCREASE/PENDING 1",
                "\(at("P1M")) alice EXPIRED/PRICE_INCREASE 2", "\(at("P1M")) bob EXPIRED/PRICE_INCREASE 2",
            ])
        #expect(store.notifications[4].renewal?.priceIncreaseStatus == nil, "members are not asked")
        #expect(store.notifications[4].renewal?.expirationIntent == .priceIncreaseNotConsented)
        #expect(
            store.deviceEvents(for: "alice").contains {
                $0.kind == .message(.priceIncreaseConsent, productId: monthly.id)
            })
        #expect(
            !store.deviceEvents(for: "bob").contains {
                if case .message = $0.kind { return true } else { return false }
            })
    }

    /// Every cell the new state fields add: phase × (no increase, pending, accepted) × the three price inputs.
    @Test(arguments: SubscriptionPhase.allCases)
    func transitionRowsForPriceIncreases(phase: SubscriptionPhase) {
        for consent in [PriceIncreaseConsent?.none, .pending, .accepted] {
            var state = TransitionTableTests.state(phase)
            state.priceIncrease = consent
            for needsConsent in [true, false] {
                let result = SubscriptionLifecycle.transition(
                    state, .priceIncreaseAnnounced(needsConsent: needsConsent), LifecycleContext(now: at("10d")))
                switch (phase, needsConsent, consent) {
                case (.active, true, _):
                    #expect(result.notified == [.pending], "\(phase) \(String(describing: consent))")
                case (.active, false, .pending):
                    #expect(result.isIgnored)
                case (.active, false, _):
                    #expect(result.notified == [.accepted])
                case (.gracePeriod, _, _), (.billingRetry, _, _), (.expired, _, _), (.revoked, _, _):
                    #expect(result.isIgnored, "\(phase)")
                }
            }
            let consented = SubscriptionLifecycle.transition(
                state, .priceIncreaseConsented, LifecycleContext(now: at("10d")))
            switch (phase, consent) {
            case (.active, .pending): #expect(consented.notified == [.accepted])
            case (.active, _), (.gracePeriod, _), (.billingRetry, _):
                #expect(consented == .rejected(.noPriceIncreasePending))
            case (.expired, _), (.revoked, _): #expect(consented == .rejected(.subscriptionNotActive(phase)))
            }
            if phase == .active {
                let renewal = SubscriptionLifecycle.transition(state, .renewalDue, LifecycleContext(now: at("P1M")))
                guard case .changed(let next, _) = renewal else {
                    Issue.record("a renewal always changes an active subscription")
                    continue
                }
                #expect(next.phase == (consent == .pending ? .expired : .active))
                #expect(next.priceIncrease == (consent == .pending ? .pending : nil))
            }
        }
    }
}

extension TransitionResult {
    var isIgnored: Bool {
        if case .ignored = self { return true }
        return false
    }

    /// The subtypes of the PRICE_INCREASE notifications a change sends.
    var notified: [NotificationSubtype?] {
        notifications.filter { $0.type == .priceIncrease }.map(\.subtype)
    }
}
