import Testing
@testable import SubscriptionSimulator

// Offers on the plan-change group of `PlanChangeTests.swift` (reference §5.10, §5.11).
let premiumUpgradeOffer = SubscriptionOffer(
    id: "upgrade.halfoff", type: .promotional, mode: .payAsYouGo, period: .months(1), periods: 2,
    price: Price(decimal: "7.49")!)
let basicCodeOffer = SubscriptionOffer(id: "code.basicmonth", type: .offerCode, mode: .freeTrial, period: .months(1))
let yearlyUpFrontOffer = SubscriptionOffer(
    id: "yearly.upfront", type: .promotional, mode: .payUpFront, period: .years(1), price: Price(decimal: "29.99")!)
let basicWinBackOffer = SubscriptionOffer(
    id: "winback.basic", type: .winBack, mode: .payUpFront, period: .months(3), price: Price(decimal: "9.99")!)
let plusCodeOffer = SubscriptionOffer(
    id: "code.plus", type: .offerCode, mode: .payAsYouGo, period: .months(1), periods: 1,
    price: Price(decimal: "2.99")!)

/// The plan store with an offer on each product but the upgrade's starting point.
func makeOfferPlanStore(grace: GracePeriodSetting = .off) -> SimulatedStore {
    var store = makePlanStore(grace: grace)
    for (product, offers) in [
        (premiumMonthly, [premiumUpgradeOffer]), (basicMonthly, [basicCodeOffer, basicWinBackOffer]),
        (basicYearly, [yearlyUpFrontOffer]), (plusMonthly, [plusCodeOffer]),
    ] {
        var withOffers = product
        withOffers.offers = offers
        try! store.catalog.replace(withOffers)
    }
    return store
}

/// The family plan store with an offer on the shareable monthly plan (level 1).
func makeOfferFamilyPlanStore() -> SimulatedStore {
    var store = makeFamilyPlanStore()
    var product = familyMonthly
    product.offers = [premiumUpgradeOffer]
    try! store.catalog.replace(product)
    return store
}

/// One rule per test for offers redeemed for another product of the group (`Lifecycle/OffersForAnotherProduct.swift`,
/// `Store/SimulatedStore+Offers.swift`).
@Suite struct OfferForAnotherProductTests {
    @Test func offerForAnotherProductUpgradeTakesEffectAtOnceWithTheOffer() throws {
        var store = makeOfferPlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.redeemOffer("upgrade.halfoff", for: premiumMonthly.id, by: "alice")
        #expect(
            lines(store.notifications) == [
                "\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1", "\(at("10d")) alice OFFER_REDEEMED/UPGRADE 1",
            ])
        let txs = store.transactions(for: "alice")
        #expect(txs.count == 2)
        #expect(txs[0].isUpgraded && txs[0].productId == plusMonthly.id && txs[0].revocation == nil)
        #expect(txs[1].productId == premiumMonthly.id && txs[1].reason == .purchase && !txs[1].isUpgraded)
        #expect(txs[1].offer?.identifier == "upgrade.halfoff" && txs[1].offer?.type == .promotional)
        #expect(txs[1].price.milliunits == 7490)
        #expect(txs[1].purchaseDate == at("10d") && txs[1].expiresDate == at("10d").adding(.months(1)))
        #expect(store.notifications.last?.transaction?.transactionId == txs[1].transactionId)
        #expect(store.entitlements(for: "alice") == [premiumMonthly.id])
        try store.advance(to: at("P2M10D"))
        #expect(store.transactions(for: "alice").suffix(2).map(\.price.milliunits) == [7490, 14990])
    }

    @Test func offerForAnotherProductDowngradeWaitsForTheRenewalAndCarriesTheOffer() throws {
        var store = makeOfferPlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.advance(to: at("5d"))
        try store.redeemOffer("code.basicmonth", for: basicMonthly.id, by: "alice")
        #expect(lines(store.notifications).last == "\(at("5d")) alice OFFER_REDEEMED/DOWNGRADE 1")
        let renewal = store.notifications.last?.renewal
        #expect(renewal?.autoRenewProductId == basicMonthly.id && renewal?.productId == premiumMonthly.id)
        #expect(renewal?.upcomingOffer?.identifier == "code.basicmonth" && renewal?.renewalPrice?.milliunits == 0)
        #expect(store.transactions(for: "alice").count == 1)
        #expect(store.entitlements(for: "alice") == [premiumMonthly.id])
        try store.advance(to: at("P1M"))
        #expect(lines(store.notifications).last == "\(at("P1M")) alice DID_RENEW 1")
        let renewed = store.transactions(for: "alice").last!
        #expect(renewed.productId == basicMonthly.id && renewed.reason == .renewal)
        #expect(renewed.offer?.identifier == "code.basicmonth" && renewed.price.milliunits == 0)
        try store.advance(to: at("P2M"))
        #expect(store.transactions(for: "alice").last?.price.milliunits == 4990)
        #expect(store.transactions(for: "alice").last?.offer == nil)
    }

    @Test func offerForAnotherProductCrossgradesFollowTheirDuration() throws {
        var store = makeOfferPlanStore()
        try store.purchase(basicMonthly.id, by: "alice")
        try store.purchase(plusMonthly.id, by: "bob")
        try store.advance(to: at("P1M"))
        // Same level, same duration: at once; same level, another duration: at the next renewal.
        try store.redeemOffer("code.plus", for: plusMonthly.id, by: "alice")
        try store.redeemOffer("yearly.upfront", for: basicYearly.id, by: "bob")
        #expect(
            lines(store.notifications).suffix(2) == [
                "\(at("P1M")) alice OFFER_REDEEMED/UPGRADE 1", "\(at("P1M")) bob OFFER_REDEEMED/DOWNGRADE 1",
            ])
        try store.advance(to: at("P2M"))
        let bobs = store.transactions(for: "bob").last!
        #expect(bobs.productId == basicYearly.id && bobs.price.milliunits == 29990)
        #expect(bobs.expiresDate == at("P2M").adding(.years(1)))
    }

    @Test func winBackEligibilityRefusesAWinBackOfferForAnotherProduct() throws {
        var store = makeOfferPlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        #expect(throws: StoreError.lifecycle(.winBackOnlyAfterExpiry, customer: "alice", productId: basicMonthly.id)) {
            try store.redeemOffer("winback.basic", for: basicMonthly.id, by: "alice")
        }
        #expect(store.notifications.count == 1)
    }

    @Test func noOfferDuringBillingRetryForAnotherProduct() throws {
        var store = makeOfferPlanStore()
        try store.purchase(plusMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M1D"))
        #expect(throws: StoreError.lifecycle(.offerDuringBillingRetry, customer: "alice", productId: premiumMonthly.id))
        {
            try store.redeemOffer("upgrade.halfoff", for: premiumMonthly.id, by: "alice")
        }
    }

    @Test func oneOfferAtATimeCountsAnOfferWaitingWithADowngrade() throws {
        var store = makeOfferPlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.redeemOffer("code.basicmonth", for: basicMonthly.id, by: "alice")
        #expect(throws: StoreError.lifecycle(.oneOfferAtATime, customer: "alice", productId: basicYearly.id)) {
            try store.redeemOffer("yearly.upfront", for: basicYearly.id, by: "alice")
        }
    }

    @Test func offerForAnotherProductReplacesOrDropsAPendingDowngrade() {
        let pending = PendingDowngradeTableTests.pending()
        let context = LifecycleContext(now: at("P1M"))
        let redemption = OfferRedemption(productId: "r", period: .oneMonth, offer: TransitionTableTests.promotional)
        guard
            case .changed(let downgraded, _) = SubscriptionLifecycle.transition(
                pending, .offerDowngradeRedeemed(redemption), context),
            case .changed(let upgraded, _) = SubscriptionLifecycle.transition(
                pending, .offerUpgradeRedeemed(redemption), context)
        else {
            Issue.record("expected both offers to change the pending downgrade")
            return
        }
        #expect(downgraded.pendingChange?.productId == "r" && downgraded.pendingChange?.offer?.identifier == "promo")
        #expect(upgraded.pendingChange == nil && upgraded.productId == "r")
    }

    @Test func offerForAnotherProductDowngradeStartsItsOfferAtARecovery() throws {
        var store = makeOfferPlanStore()
        try store.purchase(premiumMonthly.id, by: "alice")
        try store.redeemOffer("code.basicmonth", for: basicMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M3D"))
        try store.fixBilling(for: "alice")
        #expect(lines(store.notifications).last == "\(at("P1M3D")) alice DID_RENEW/BILLING_RECOVERY 1")
        let recovered = store.transactions(for: "alice").last!
        #expect(recovered.productId == basicMonthly.id && recovered.offer?.identifier == "code.basicmonth")
        #expect(recovered.expiresDate == at("P1M3D").adding(.months(1)))
    }

    @Test func familyMembersReceiveTheOfferUpgradeWithTheirOwnTransactions() throws {
        var store = makeOfferFamilyPlanStore()
        try store.purchase(familyBasicYearly.id, by: "alice")
        try store.advance(to: at("10d"))
        let before = store.transactions(for: "bob")
        try store.redeemOffer("upgrade.halfoff", for: familyMonthly.id, by: "alice")
        #expect(
            lines(store.notifications).suffix(3) == [
                "\(at("10d")) alice OFFER_REDEEMED/UPGRADE 1", "\(at("10d")) bob OFFER_REDEEMED/UPGRADE 1",
                "\(at("10d")) carol OFFER_REDEEMED/UPGRADE 1",
            ])
        let bobs = store.transactions(for: "bob")
        #expect(bobs.count == before.count + 1)
        #expect(bobs.first { $0.transactionId == before.last!.transactionId }?.isUpgraded == true)
        #expect(bobs.last?.productId == familyMonthly.id && bobs.last?.ownership == .familyShared)
        // A-15: a member's transaction carries no offer fields.
        #expect(
            bobs.last?.offer == nil && store.transactions(for: "alice").last?.offer?.identifier == "upgrade.halfoff")
    }

    @Test func promotionalOfferForSubscribersRefusesAFamilyMemberOfTheShare() throws {
        // A member has no subscription of their own in the group: a promotional offer is refused as for a new customer.
        var store = makeOfferFamilyPlanStore()
        try store.purchase(familyBasicYearly.id, by: "alice")
        try store.advance(to: at("10d"))
        #expect(
            throws: StoreError.lifecycle(.promotionalOfferNeedsSubscriber, customer: "bob", productId: familyMonthly.id)
        ) {
            try store.redeemOffer("upgrade.halfoff", for: familyMonthly.id, by: "bob")
        }
    }
}

/// Exhaustive goldens: every notification to every customer (family members included), decoded and as POST bodies
/// (decoded by Apple's library in CI), with entitlements and every customer's device view.
@Suite struct OfferForAnotherProductGoldenTests {
    static let cases: [(String, PlanChangeGoldenTests.Script)] = [
        (
            "offer-upgrade-at-once",
            { s in
                try s.purchase(plusMonthly.id, by: "alice")
                try s.advance(to: at("10d"))
                try s.redeemOffer("upgrade.halfoff", for: premiumMonthly.id, by: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
        (
            "offer-downgrade-and-crossgrade-at-next-renewal",
            { s in
                try s.purchase(premiumMonthly.id, by: "alice")
                try s.purchase(plusMonthly.id, by: "bob")
                try s.advance(to: at("5d"))
                try s.redeemOffer("code.basicmonth", for: basicMonthly.id, by: "alice")
                try s.redeemOffer("yearly.upfront", for: basicYearly.id, by: "bob")
                try s.advance(to: at("P3M"))
            }
        ),
    ]

    @Test(
        arguments: cases.map {
            GoldenCase(
                $0.0, folder: "PlanChanges", extras: [.entitlements, .deviceView], store: { makeOfferPlanStore() }, $0.1
            )
        }
            + [
                GoldenCase(
                    "offer-upgrade-family", folder: "PlanChanges", extras: [.entitlements, .deviceView],
                    store: { makeOfferFamilyPlanStore() },
                    { s in
                        try s.purchase(familyBasicYearly.id, by: "alice")
                        try s.advance(to: at("10d"))
                        try s.redeemOffer("upgrade.halfoff", for: familyMonthly.id, by: "alice")
                        try s.advance(to: at("P3M"))
                    })
            ])
    func offerForAnotherProductMatchesItsGoldens(golden: GoldenCase) throws { try golden.check() }
}
