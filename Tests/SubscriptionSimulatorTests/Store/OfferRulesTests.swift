import Testing
@testable import SubscriptionSimulator

let promoHalfOff = SubscriptionOffer(
    id: "retain.halfoff", type: .promotional, mode: .payAsYouGo, period: .months(1), periods: 3,
    price: Price(decimal: "4.99")!)
let codeFreeMonth = SubscriptionOffer(id: "code.freemonth", type: .offerCode, mode: .freeTrial, period: .months(1))
let winBackUpFront = SubscriptionOffer(
    id: "winback.upfront", type: .winBack, mode: .payUpFront, period: .months(3), price: Price(decimal: "19.99")!)
let codeCoins = SubscriptionOffer(
    id: "code.coins", type: .offerCode, mode: .oneTime, period: .days(0), price: Price(decimal: "0.49")!)

/// A store whose monthly product has a promotional offer, an offer code and a win-back offer, and whose consumable
/// has a one-time offer code.
func makeOfferStore(grace: GracePeriodSetting = .off) -> SimulatedStore {
    var store = makeStore(grace: grace)
    var product = monthly
    product.offers = [promoHalfOff, codeFreeMonth, winBackUpFront]
    var coinProduct = coins
    coinProduct.offers = [codeCoins]
    try! store.catalog.replace(product)
    try! store.catalog.replace(coinProduct)
    return store
}

/// One rule per test for offers customers redeem (`Store/SimulatedStore+Offers.swift`,
/// `Lifecycle/OffersAndPriceIncreases.swift`; reference §1.1, §5.11).
@Suite struct OfferRulesTests {
    @Test func offerNotificationChoiceOfferCodeStartsASubscriptionWithInitialBuy() throws {
        var store = makeOfferStore()
        try store.redeemOffer("code.freemonth", for: monthly.id, by: "dave")
        #expect(lines(store.notifications) == ["\(at("0")) dave SUBSCRIBED/INITIAL_BUY 1"])
        let tx = store.transactions[0]
        #expect(tx.offer == codeFreeMonth && tx.price == .free && tx.expiresDate == at("P1M"))
        let payload = Payloads.transaction(tx, app: store.app, signedDate: store.now)
        #expect(payload.value(at: "offerType")?.integerValue == 3)
        #expect(payload.value(at: "offerIdentifier")?.stringValue == "code.freemonth")
        #expect(payload.value(at: "offerDiscountType")?.stringValue == "FREE_TRIAL")
        #expect(payload.value(at: "offerPeriod")?.stringValue == "P1M")
    }

    @Test func offerNotificationChoiceOfferAfterExpiryIsResubscribe() throws {
        var store = makeOfferStore()
        try store.purchase(monthly.id, by: "alice")
        try store.cancel(monthly.id, by: "alice")
        try store.advance(to: at("P1M5D"))
        try store.redeemOffer("retain.halfoff", for: monthly.id, by: "alice")
        #expect(lines(store.notifications).last == "\(at("P1M5D")) alice SUBSCRIBED/RESUBSCRIBE 1")
        let tx = store.transactions.last!
        #expect(tx.offer?.type == .promotional && tx.price.milliunits == 4990 && tx.purchaseDate == at("P1M5D"))
        #expect(tx.originalTransactionId == store.transactions[0].originalTransactionId)
    }

    @Test func offerNotificationChoiceOfferOnActiveIsOfferRedeemedWithoutSubtype() throws {
        var store = makeOfferStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.redeemOffer("retain.halfoff", for: monthly.id, by: "alice")
        let last = store.notifications.last!
        #expect(last.type == .offerRedeemed && last.subtype == nil && last.status == .active)
        #expect(last.transaction?.transactionId == store.transactions[0].transactionId, "no new transaction")
        #expect(last.renewal?.upcomingOffer == promoHalfOff && last.renewal?.renewalPrice?.milliunits == 4990)
        let renewal = Payloads.renewalInfo(last.renewal!, app: store.app, signedDate: store.now)
        #expect(renewal.value(at: "offerType")?.integerValue == 2)
        #expect(renewal.value(at: "offerIdentifier")?.stringValue == "retain.halfoff")
        #expect(renewal.value(at: "offerPeriod")?.stringValue == "P3M", "the offer's whole duration")
    }

    @Test func offerStartsAtNextRenewal() throws {
        var store = makeOfferStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.redeemOffer("retain.halfoff", for: monthly.id, by: "alice")
        try store.advance(to: at("P5M"))
        let txs = store.transactions(for: "alice")
        #expect(txs.map(\.price.milliunits) == [9990, 4990, 4990, 4990, 9990, 9990])
        #expect(
            txs.map { $0.offer?.identifier } == [nil, "retain.halfoff", "retain.halfoff", "retain.halfoff", nil, nil])
        #expect(txs.map(\.expiresDate) == [at("P1M"), at("P2M"), at("P3M"), at("P4M"), at("P5M"), at("P6M")])
        #expect(store.notifications.last?.renewal?.upcomingOffer == nil)
    }

    @Test func offerRedeemedTurnsAutoRenewBackOn() throws {
        var store = makeOfferStore()
        try store.purchase(monthly.id, by: "alice")
        try store.cancel(monthly.id, by: "alice")
        try store.redeemOffer("retain.halfoff", for: monthly.id, by: "alice")
        #expect(store.notifications.last?.renewal?.autoRenewOn == true)
        try store.advance(to: at("P1M"))
        #expect(lines(store.notifications).last == "\(at("P1M")) alice DID_RENEW 1")
    }

    @Test func oneOfferAtATime() throws {
        var store = makeOfferStore()
        try store.purchase(monthly.id, by: "alice")
        try store.redeemOffer("retain.halfoff", for: monthly.id, by: "alice")
        #expect(throws: StoreError.lifecycle(.oneOfferAtATime, customer: "alice", productId: monthly.id)) {
            try store.redeemOffer("code.freemonth", for: monthly.id, by: "alice")
        }
        try store.advance(to: at("P1M"))
        #expect(throws: StoreError.lifecycle(.oneOfferAtATime, customer: "alice", productId: monthly.id)) {
            try store.redeemOffer("code.freemonth", for: monthly.id, by: "alice")
        }
    }

    @Test func promotionalOfferForSubscribers() throws {
        var store = makeOfferStore()
        #expect(throws: StoreError.lifecycle(.promotionalOfferNeedsSubscriber, customer: "erin", productId: monthly.id))
        {
            try store.redeemOffer("retain.halfoff", for: monthly.id, by: "erin")
        }
        #expect(store.notifications.isEmpty)
    }

    @Test func winBackEligibilityRefusesActiveAndNewCustomers() throws {
        var store = makeOfferStore()
        #expect(throws: StoreError.lifecycle(.promotionalOfferNeedsSubscriber, customer: "erin", productId: monthly.id))
        {
            try store.redeemOffer("winback.upfront", for: monthly.id, by: "erin")
        }
        try store.purchase(monthly.id, by: "alice")
        #expect(throws: StoreError.lifecycle(.winBackOnlyAfterExpiry, customer: "alice", productId: monthly.id)) {
            try store.redeemOffer("winback.upfront", for: monthly.id, by: "alice")
        }
        try store.refund(monthly.id, of: "alice")
        let before = store.notifications.count
        #expect(throws: StoreError.lifecycle(.winBackOnlyAfterExpiry, customer: "alice", productId: monthly.id)) {
            try store.redeemOffer("winback.upfront", for: monthly.id, by: "alice")
        }
        #expect(store.notifications.count == before)
    }

    @Test func winBackEligibilityListsOffersOnlyOnceExpired() throws {
        var store = makeOfferStore(grace: .threeDays)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M10D"))
        // Active, grace and billing retry: never listed.
        #expect(store.notifications.allSatisfy { $0.renewal?.eligibleWinBackOfferIds.isEmpty == true })
        try store.cancel(monthly.id, by: "alice")
        let expired = store.notifications.last!
        #expect(expired.type == .expired && expired.renewal?.eligibleWinBackOfferIds == ["winback.upfront"])
        let renewal = Payloads.renewalInfo(expired.renewal!, app: store.app, signedDate: store.now)
        #expect(renewal.value(at: "eligibleWinBackOfferIds") == .array([.string("winback.upfront")]))
        try store.fixBilling(for: "alice")
        try store.redeemOffer("winback.upfront", for: monthly.id, by: "alice")
        let back = store.notifications.last!
        #expect(back.type == .subscribed && back.subtype == .resubscribe)
        #expect(back.transaction?.offer == winBackUpFront && back.transaction?.expiresDate == at("P4M10D"))
        #expect(back.renewal?.eligibleWinBackOfferIds.isEmpty == true)
    }

    @Test func noOfferDuringBillingRetry() throws {
        var store = makeOfferStore()
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M1D"))
        #expect(throws: StoreError.lifecycle(.offerDuringBillingRetry, customer: "alice", productId: monthly.id)) {
            try store.redeemOffer("retain.halfoff", for: monthly.id, by: "alice")
        }
    }

    @Test func oneTimeOfferCodeIsAOneTimeChargeAtTheOfferPrice() throws {
        var store = makeOfferStore()
        try store.redeemOffer("code.coins", for: coins.id, by: "frank")
        #expect(lines(store.notifications) == ["\(at("0")) frank ONE_TIME_CHARGE"])
        let payload = Payloads.transaction(store.transactions[0], app: store.app, signedDate: store.now)
        #expect(payload.value(at: "offerType")?.integerValue == 3)
        #expect(payload.value(at: "offerDiscountType")?.stringValue == "ONE_TIME")
        #expect(payload.value(at: "offerIdentifier")?.stringValue == "code.coins")
        #expect(payload.value(at: "offerPeriod") == nil)
        #expect(payload.value(at: "price")?.integerValue == 490)
    }

    @Test func redeemADeclaredOffer() throws {
        var store = makeOfferStore()
        #expect(
            throws: StoreError.unknownOffer(
                productId: monthly.id, offerId: "nope", known: ["retain.halfoff", "code.freemonth", "winback.upfront"])
        ) {
            try store.redeemOffer("nope", for: monthly.id, by: "alice")
        }
    }

    @Test func offerFitsProduct() {
        var product = coins
        product.offers = [promoHalfOff]
        #expect(throws: CatalogError.self) { try Catalog(products: [product]) }
        var subscription = monthly
        subscription.offers = [codeCoins]
        #expect(throws: CatalogError.self) { try Catalog(products: [subscription]) }
        subscription.offers = [promoHalfOff, promoHalfOff]
        #expect(throws: CatalogError.self) { try Catalog(products: [subscription]) }
        var intro = promoHalfOff
        intro.type = .introductory
        subscription.offers = [intro]
        #expect(throws: CatalogError.self) { try Catalog(products: [subscription]) }
    }

    @Test func familyMembersReceiveOfferRedeemedAndRenewAtTheOfferPrice() throws {
        var store = makeOfferStore()
        var shared = store.catalog[monthly.id]!
        shared.familyShareable = true
        try store.catalog.replace(shared)
        try store.createFamily(organizer: "alice", members: ["bob"])
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.redeemOffer("retain.halfoff", for: monthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        #expect(
            lines(store.notifications) == [
                "\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1", "\(at("1h")) bob SUBSCRIBED/INITIAL_BUY 1",
                "\(at("10d")) alice OFFER_REDEEMED 1", "\(at("10d")) bob OFFER_REDEEMED 1",
                "\(at("P1M")) alice DID_RENEW 1", "\(at("P1M")) bob DID_RENEW 1",
            ])
        #expect(store.notifications[3].transaction?.ownership == .familyShared)
        #expect(store.notifications[3].renewal?.eligibleWinBackOfferIds.isEmpty == true)
    }

    @Test func transitionRowsForOffersOnActive() {
        let active = TransitionTableTests.state(.active)
        let context = LifecycleContext(now: at("10d"))
        func redeem(_ offer: SubscriptionOffer) -> LifecycleInput {
            .offerRedeemed(OfferRedemption(productId: "p", period: .oneMonth, offer: offer))
        }
        #expect(
            SubscriptionLifecycle.transition(active, redeem(winBackUpFront), context)
                == .rejected(.winBackOnlyAfterExpiry))
        var waiting = active
        waiting.pendingOffer = promoHalfOff
        #expect(
            SubscriptionLifecycle.transition(waiting, redeem(codeFreeMonth), context)
                == .rejected(.oneOfferAtATime))
        #expect(
            SubscriptionLifecycle.transition(
                TransitionTableTests.state(.revoked), redeem(winBackUpFront), context)
                == .rejected(.winBackOnlyAfterExpiry))
        guard
            case .changed(let next, let effects) = SubscriptionLifecycle.transition(
                active, redeem(promoHalfOff), context)
        else {
            Issue.record("expected a change")
            return
        }
        #expect(next.pendingOffer == promoHalfOff && effects == [.notify(.offerRedeemed, nil)])
        var downgrading = active
        downgrading.pendingChange = PurchaseRequest(productId: "q", period: .oneYear)
        #expect(
            SubscriptionLifecycle.transition(downgrading, redeem(promoHalfOff), context)
                == .rejected(.offerWhilePlanChangePending))
    }
}
