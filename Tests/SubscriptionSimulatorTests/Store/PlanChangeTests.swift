import Testing
@testable import SubscriptionSimulator

// A group of four levels-and-durations for plan changes (reference §5.10).
let premiumMonthly = Product(
    id: "com.example.tiers.premium.monthly", type: .autoRenewable, group: "tiers", level: 1, period: .oneMonth,
    price: Price(decimal: "14.99")!, currency: "USD")
let basicMonthly = Product(
    id: "com.example.tiers.basic.monthly", type: .autoRenewable, group: "tiers", level: 2, period: .oneMonth,
    price: Price(decimal: "4.99")!, currency: "USD", introOffer: IntroductoryOffer(mode: .freeTrial, period: .weeks(1)))
let plusMonthly = Product(
    id: "com.example.tiers.plus.monthly", type: .autoRenewable, group: "tiers", level: 2, period: .oneMonth,
    price: Price(decimal: "5.99")!, currency: "USD")
let basicYearly = Product(
    id: "com.example.tiers.basic.yearly", type: .autoRenewable, group: "tiers", level: 2, period: .oneYear,
    price: Price(decimal: "49.99")!, currency: "USD")

func makePlanStore(grace: GracePeriodSetting = .off) -> SimulatedStore {
    let app = AppConfiguration(bundleId: "com.example.app", appAppleId: 1_234_567_890, gracePeriod: grace)
    let catalog = try! Catalog(products: [premiumMonthly, basicMonthly, plusMonthly, basicYearly, monthly])
    return SimulatedStore(app: app, catalog: catalog, start: testStart, seed: 14)
}

/// One rule per test, through the store's public actions (reference §5.10).
@Suite struct PlanChangeRulesTests {
    @Test func planChangeKindFollowsLevelsAndDurations() {
        #expect(PlanChangeKind.of(from: basicMonthly, to: premiumMonthly) == .immediate)
        #expect(PlanChangeKind.of(from: basicYearly, to: premiumMonthly) == .immediate)
        #expect(PlanChangeKind.of(from: basicMonthly, to: plusMonthly) == .immediate)
        #expect(PlanChangeKind.of(from: premiumMonthly, to: basicMonthly) == .atNextRenewal)
        #expect(PlanChangeKind.of(from: basicMonthly, to: basicYearly) == .atNextRenewal)
        #expect(PlanChangeKind.of(from: basicMonthly, to: basicMonthly) == .currentProduct)
    }

    @Test func planChangeUpgradeTakesEffectAtOnce() throws {
        var store = makePlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: premiumMonthly.id, by: "alice")
        #expect(
            lines(store.notifications) == [
                "\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1",
                "\(at("10d")) alice DID_CHANGE_RENEWAL_PREF/UPGRADE 1",
            ])
        let txs = store.transactions(for: "alice")
        #expect(txs.count == 2)
        // A-14: the old transaction is re-signed with isUpgraded and no revocation; only the new one is sent.
        #expect(txs[0].isUpgraded && txs[0].revocation == nil && txs[0].productId == plusMonthly.id)
        #expect(!txs[1].isUpgraded && txs[1].productId == premiumMonthly.id && txs[1].reason == .purchase)
        #expect(txs[1].originalTransactionId == txs[0].originalTransactionId)
        #expect(txs[1].purchaseDate == at("10d") && txs[1].expiresDate == at("10d").adding(.months(1)))
        #expect(txs[1].price.milliunits == 14990)
        #expect(store.notifications.last?.transaction?.transactionId == txs[1].transactionId)
        #expect(store.entitlements(for: "alice") == [premiumMonthly.id])
        try store.advance(to: at("P1M10D"))
        #expect(lines(store.notifications).last == "\(at("P1M10D")) alice DID_RENEW 1")
        #expect(store.transactions(for: "alice").last?.productId == premiumMonthly.id)
    }

    @Test func planChangeCrossgradeOfTheSameDurationIsAnUpgrade() throws {
        var store = makePlanStore()
        try store.purchase(basicMonthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        try store.changePlan(to: plusMonthly.id, by: "alice")
        #expect(lines(store.notifications).last == "\(at("P1M")) alice DID_CHANGE_RENEWAL_PREF/UPGRADE 1")
        #expect(store.transactions(for: "alice").last?.productId == plusMonthly.id)
        #expect(store.entitlements(for: "alice") == [plusMonthly.id])
    }

    @Test func planChangeDowngradeTakesEffectAtTheNextRenewal() throws {
        var store = makePlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: basicMonthly.id, by: "alice")
        let downgrade = store.notifications.last!
        #expect(downgrade.type == .didChangeRenewalPref && downgrade.subtype == .downgrade)
        #expect(downgrade.renewal?.productId == premiumMonthly.id)
        #expect(downgrade.renewal?.autoRenewProductId == basicMonthly.id)
        // The renewal is priced as the new product; no introductory offer after a plan change (S-INTRO).
        #expect(downgrade.renewal?.renewalPrice?.milliunits == 4990 && downgrade.renewal?.upcomingOffer == nil)
        #expect(downgrade.transaction?.productId == premiumMonthly.id)
        #expect(store.transactions(for: "alice").count == 1)
        #expect(store.entitlements(for: "alice") == [premiumMonthly.id])
        try store.advance(to: at("P1M"))
        let renewal = store.notifications.last!
        #expect(lines([renewal]) == ["\(at("P1M")) alice DID_RENEW 1"])
        #expect(renewal.transaction?.productId == basicMonthly.id && renewal.transaction?.reason == .renewal)
        #expect(renewal.transaction?.offer == nil && renewal.transaction?.price.milliunits == 4990)
        #expect(renewal.renewal?.autoRenewProductId == basicMonthly.id)
        #expect(store.entitlements(for: "alice") == [basicMonthly.id])
    }

    @Test func planChangeCrossgradeOfAnotherDurationWaitsForTheRenewal() throws {
        var store = makePlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        try store.changePlan(to: basicYearly.id, by: "alice")
        #expect(lines(store.notifications).last == "\(at("0")) alice DID_CHANGE_RENEWAL_PREF/DOWNGRADE 1")
        try store.advance(to: at("P1M"))
        let renewed = store.transactions(for: "alice").last!
        #expect(renewed.productId == basicYearly.id && renewed.expiresDate == at("P1M").adding(.years(1)))
    }

    @Test func planChangeBackToTheCurrentProductCancelsThePendingDowngrade() throws {
        var store = makePlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.changePlan(to: basicMonthly.id, by: "alice")
        try store.advance(to: at("5d"))
        try store.changePlan(to: premiumMonthly.id, by: "alice")
        let cancel = store.notifications.last!
        #expect(lines([cancel]) == ["\(at("5d")) alice DID_CHANGE_RENEWAL_PREF 1"])
        #expect(cancel.renewal?.autoRenewProductId == premiumMonthly.id)
        #expect(cancel.renewal?.renewalPrice?.milliunits == 14990)
        try store.advance(to: at("P1M"))
        #expect(store.transactions(for: "alice").last?.productId == premiumMonthly.id)
    }

    @Test func oneSubscriptionPerGroup() throws {
        var store = makePlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        #expect(
            throws: StoreError.lifecycle(.changingProductsNotSupported, customer: "alice", productId: premiumMonthly.id)
        ) {
            try store.changePlan(to: premiumMonthly.id, by: "alice")
        }
        #expect(
            throws: StoreError.lifecycle(.changingProductsNotSupported, customer: "alice", productId: premiumMonthly.id)
        ) {
            try store.purchase(premiumMonthly.id, by: "alice")
        }
    }

    @Test func buyingAnotherProductOfTheGroupIsAPlanChange() throws {
        var store = makePlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        try store.purchase(premiumMonthly.id, by: "alice")
        #expect(lines(store.notifications).last == "\(at("0")) alice DID_CHANGE_RENEWAL_PREF/UPGRADE 1")
    }

    @Test func noPlanChangeDuringBillingRetry() throws {
        var store = makePlanStore(grace: .sixteenDays)
        try store.purchase(premiumMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M1D"))
        #expect(store.notifications.last?.subtype == .gracePeriod)
        for target in [basicMonthly.id, plusMonthly.id, premiumMonthly.id] {
            #expect(
                throws: StoreError.lifecycle(
                    .planChangeDuringBillingFailure, customer: "alice", productId: premiumMonthly.id)
            ) {
                try store.changePlan(to: target, by: "alice")
            }
        }
        try store.advance(to: at("P1M20D"))
        #expect(
            throws: StoreError.lifecycle(
                .planChangeDuringBillingFailure, customer: "alice", productId: premiumMonthly.id)
        ) {
            try store.changePlan(to: basicMonthly.id, by: "alice")
        }
    }

    @Test func planChangeNeedsAutoRenew() throws {
        var store = makePlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.cancel(premiumMonthly.id, by: "alice")
        #expect(
            throws: StoreError.lifecycle(.planChangeNeedsAutoRenew, customer: "alice", productId: premiumMonthly.id)
        ) {
            try store.changePlan(to: basicMonthly.id, by: "alice")
        }
    }

    @Test func upgradeTurnsAutoRenewBackOn() throws {
        var store = makePlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        try store.cancel(plusMonthly.id, by: "alice")
        try store.changePlan(to: premiumMonthly.id, by: "alice")
        #expect(store.notifications.last?.renewal?.autoRenewOn == true)
    }

    @Test func downgradeAlreadyPending() throws {
        var store = makePlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.changePlan(to: basicMonthly.id, by: "alice")
        #expect(throws: StoreError.lifecycle(.downgradeAlreadyPending, customer: "alice", productId: premiumMonthly.id))
        {
            try store.changePlan(to: basicMonthly.id, by: "alice")
        }
        // Another lower product replaces the pending one.
        try store.changePlan(to: basicYearly.id, by: "alice")
        #expect(store.notifications.last?.renewal?.autoRenewProductId == basicYearly.id)
    }

    @Test func changePlanNeedsASubscriptionInTheGroup() throws {
        var store = makePlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        #expect(throws: StoreError.noSubscription(customer: "alice", productId: monthly.id)) {
            try store.changePlan(to: monthly.id, by: "alice")
        }
        #expect(throws: StoreError.noSubscription(customer: "bob", productId: basicMonthly.id)) {
            try store.changePlan(to: basicMonthly.id, by: "bob")
        }
    }

    @Test func planChangeNeedsTheNewProductOnSale() throws {
        var store = makePlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        try store.removeFromSale(premiumMonthly.id)
        #expect(throws: StoreError.productNotForSale(premiumMonthly.id)) {
            try store.changePlan(to: premiumMonthly.id, by: "alice")
        }
    }

    @Test func introOfferOncePerGroupNotAfterAPlanChange() throws {
        var store = makePlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.changePlan(to: basicMonthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        #expect(store.transactions(for: "alice").last?.offer == nil)
        #expect(store.transactions(for: "alice").last?.expiresDate == at("P2M"))
    }

    @Test func upgradeDuringAFreeTrialEndsTheTrial() throws {
        var store = makePlanStore()
        try store.purchase(basicMonthly.id, by: "alice")
        #expect(store.transactions(for: "alice")[0].offer?.mode == .freeTrial)
        try store.advance(to: at("3d"))
        try store.changePlan(to: premiumMonthly.id, by: "alice")
        let upgraded = store.transactions(for: "alice").last!
        #expect(upgraded.offer == nil && upgraded.price.milliunits == 14990)
        #expect(upgraded.expiresDate == at("3d").adding(.months(1)))
    }

    @Test func downgradeDuringAFreeTrialTakesEffectWhenTheTrialEnds() throws {
        var store = makePlanStore()
        try store.purchase(basicMonthly.id, by: "alice")
        try store.changePlan(to: basicYearly.id, by: "alice")
        try store.advance(to: at("7d"))
        let renewed = store.transactions(for: "alice").last!
        #expect(renewed.productId == basicYearly.id && renewed.purchaseDate == at("7d"))
        #expect(renewed.expiresDate == at("7d").adding(.years(1)) && renewed.price.milliunits == 49990)
    }

    @Test func pendingDowngradeTakesEffectAtTheRecovery() throws {
        var store = makePlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.changePlan(to: basicYearly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M"))
        #expect(store.notifications.last?.renewal?.autoRenewProductId == basicYearly.id)
        try store.advance(to: at("P1M5D"))
        try store.fixBilling(for: "alice")
        let recovered = store.notifications.last!
        #expect(recovered.subtype == .billingRecovery && recovered.transaction?.productId == basicYearly.id)
        #expect(recovered.transaction?.expiresDate == at("P1M5D").adding(.years(1)))
    }

    @Test func recentSubscriptionStartDateSurvivesPlanChanges() throws {
        var store = makePlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: premiumMonthly.id, by: "alice")
        try store.changePlan(to: basicYearly.id, by: "alice")
        try store.advance(to: at("P2M"))
        #expect(store.notifications.allSatisfy { $0.renewal?.recentSubscriptionStartDate == at("0") })
    }
}

/// Rule paid-days-of-service (reference §5.16).
@Suite struct PaidDaysOfServiceTests {
    @Test func paidDaysOfServiceAccumulateAcrossPlanChanges() throws {
        var store = makePlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: premiumMonthly.id, by: "alice")
        try store.advance(to: at("20d"))
        try store.changePlan(to: basicYearly.id, by: "alice")
        // 10 days of Plus (cut short by the upgrade), then Premium from day 10.
        #expect(try store.paidDaysOfService(for: "alice", inGroupOf: basicYearly.id) == 20)
        try store.advance(to: at("10d").adding(.months(1)).adding(.days(5)))
        let premiumDays = at("10d").milliseconds(to: at("10d").adding(.months(1))) / 86_400_000
        #expect(try store.paidDaysOfService(for: "alice", inGroupOf: plusMonthly.id) == 10 + Int(premiumDays) + 5)
    }

    @Test func paidDaysOfServiceSkipFreeTrialsAndRestartAfterSixtyDays() throws {
        var store = makePlanStore()
        try store.purchase(basicMonthly.id, by: "alice")
        try store.advance(to: at("7d"))
        #expect(try store.paidDaysOfService(for: "alice", inGroupOf: basicMonthly.id) == 0)
        try store.advance(to: at("17d"))
        #expect(try store.paidDaysOfService(for: "alice", inGroupOf: basicMonthly.id) == 10)
        try store.cancel(basicMonthly.id, by: "alice")
        // Expires at 7d + 1 month; back within 60 days: the count resumes.
        try store.advance(to: at("7d").adding(.months(1)).adding(.days(30)))
        try store.purchase(basicMonthly.id, by: "alice")
        try store.advance(by: .days(1))
        let firstPeriod = Int(at("7d").milliseconds(to: at("7d").adding(.months(1))) / 86_400_000)
        #expect(try store.paidDaysOfService(for: "alice", inGroupOf: basicMonthly.id) == firstPeriod + 1)
        try store.cancel(basicMonthly.id, by: "alice")
        // More than 60 days later: it restarts.
        try store.advance(by: .days(100))
        try store.purchase(plusMonthly.id, by: "alice")
        try store.advance(by: .days(3))
        #expect(try store.paidDaysOfService(for: "alice", inGroupOf: plusMonthly.id) == 3)
    }

    @Test func paidDaysOfServiceAreNoneForAFamilyMember() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("P2M"))
        #expect(try store.paidDaysOfService(for: "bob", inGroupOf: familyMonthly.id) == 0)
        #expect(try store.paidDaysOfService(for: "alice", inGroupOf: familyMonthly.id) > 50)
    }
}
