import Testing
@testable import SubscriptionSimulator

/// Shares that start while the purchaser's subscription is failing to renew (issue 9, rules 1 and 2).
@Suite struct SharesDuringBillingTroubleTests {
    /// Alice buys the family plan with the family delay served; her renewal at P1M fails and, without grace, she is
    /// in billing retry from then on.
    func storeInBillingRetry(members: [String] = ["bob"]) throws -> SimulatedStore {
        var store = makeFamilyStore(grace: .off, members: members)
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M5D"))
        #expect(store.status(of: familyMonthly.id, for: "alice") == .billingRetry)
        return store
    }

    // MARK: share-held-during-billing-retry

    @Test func shareHeldDuringBillingRetry_memberJoiningGetsItAtTheRecovery() throws {
        var store = try storeInBillingRetry()
        try store.joinFamily("dave")
        #expect(store.notifications(for: "dave").isEmpty, "billing retry gives no access")
        #expect(store.entitlements(for: "dave").isEmpty)
        try store.advance(to: at("P1M10D"))
        try store.fixBilling(for: "alice")
        #expect(
            lines(store.notifications.suffix(3)) == [
                "\(at("P1M10D")) alice DID_RENEW/BILLING_RECOVERY 1",
                "\(at("P1M10D")) bob DID_RENEW/BILLING_RECOVERY 1",
                "\(at("P1M10D")) dave SUBSCRIBED/INITIAL_BUY 1",
            ])
        let dave = try #require(store.notifications(for: "dave").first)
        #expect(dave.transaction?.ownership == .familyShared)
        #expect(
            dave.transaction?.purchaseDate == at("P1M10D") && dave.transaction?.originalPurchaseDate == at("P1M10D"))
        #expect(dave.transaction?.expiresDate == at("P2M10D"), "the purchaser's new expiresDate")
        #expect(dave.renewal?.isInBillingRetryPeriod == nil && dave.renewal?.gracePeriodExpiresDate == nil)
        #expect(store.entitlements(for: "dave") == [familyMonthly.id])
        try store.advance(to: at("P2M10D"))
        #expect(
            lines(store.notifications(for: "dave")).last == "\(at("P2M10D")) dave DID_RENEW 1", "renews with the family"
        )
    }

    @Test func shareHeldDuringBillingRetry_perPurchaseSwitchOnGivesItAtTheRecovery() throws {
        var store = makeFamilyStore(grace: .off)
        try store.setShareWithFamily(false, for: "alice")
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M2D"))
        try store.startSharing(familyMonthly.id, by: "alice")
        #expect(store.notifications(for: "bob").isEmpty)
        try store.advance(to: at("P1M7D"))
        try store.fixBilling(for: "alice")
        #expect(
            lines(store.notifications(for: "bob")) == [
                "\(at("P1M7D")) bob SUBSCRIBED/INITIAL_BUY 1"
            ])
        #expect(store.notifications(for: "bob").first?.transaction?.expiresDate == at("P2M7D"))
        try store.advance(to: at("P2M7D"))
        #expect(store.notifications(for: "bob").map(\.type) == [.subscribed, .didRenew])
    }

    @Test func shareHeldDuringBillingRetry_productMadeShareableThenSharedGivesItAtTheRecovery() throws {
        var store = makeFamilyStore(grace: .off)
        try store.purchase(laterShareableMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M3D"))
        try store.makeFamilyShareable(laterShareableMonthly.id)
        try store.startSharing(laterShareableMonthly.id, by: "alice")
        #expect(store.notifications(for: "bob").isEmpty && store.notifications(for: "carol").isEmpty)
        try store.advance(to: at("P1M4D"))
        try store.fixBilling(for: "alice")
        for member in ["bob", "carol"] {
            #expect(lines(store.notifications(for: member)) == ["\(at("P1M4D")) \(member) SUBSCRIBED/INITIAL_BUY 1"])
            #expect(store.entitlements(for: member) == [laterShareableMonthly.id])
        }
    }

    @Test func shareHeldDuringBillingRetry_productBackOnSaleReleasesIt() throws {
        var store = makeFamilyStore(grace: .off)
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.removeFromSale(familyMonthly.id)
        try store.advance(to: at("P1M2D"))
        try store.joinFamily("dave")
        #expect(store.notifications(for: "dave").isEmpty)
        try store.restoreToSale(familyMonthly.id)
        #expect(lines(store.notifications(for: "dave")) == ["\(at("P1M2D")) dave SUBSCRIBED/INITIAL_BUY 1"])
    }

    @Test func shareHeldDuringBillingRetry_isNeverGivenWhenTheSubscriptionExpires() throws {
        var store = try storeInBillingRetry()
        try store.joinFamily("dave")
        try store.advance(to: at("P4M"))
        #expect(lines(store.notifications(for: "alice")).last == "\(at("P1M60D")) alice EXPIRED/BILLING_RETRY 2")
        #expect(store.notifications(for: "dave").isEmpty && store.transactions(for: "dave").isEmpty)
        try store.fixBilling(for: "alice")
        try store.advance(to: at("P5M"))
        #expect(store.notifications(for: "dave").isEmpty, "nothing after the expiry either")
    }

    @Test func shareHeldDuringBillingRetry_isNeverGivenAfterACancel() throws {
        var store = try storeInBillingRetry()
        try store.joinFamily("dave")
        try store.cancel(familyMonthly.id, by: "alice")
        try store.fixBilling(for: "alice")
        try store.advance(to: at("P3M"))
        #expect(store.notifications(for: "dave").isEmpty)
    }

    @Test func shareHeldDuringBillingRetry_endsSilentlyWhenTheMemberLeaves() throws {
        var store = try storeInBillingRetry()
        try store.joinFamily("dave")
        try store.leaveFamily("dave")
        try store.fixBilling(for: "alice")
        #expect(store.notifications(for: "dave").isEmpty, "no REVOKE for access never given")
        #expect(store.notifications(for: "bob").last?.type == .didRenew)
    }

    @Test func shareHeldDuringBillingRetry_endsSilentlyWhenSharingIsSwitchedOff() throws {
        var store = makeFamilyStore(grace: .off)
        try store.setShareWithFamily(false, for: "alice")
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M2D"))
        try store.startSharing(familyMonthly.id, by: "alice")
        try store.stopSharing(familyMonthly.id, by: "alice")
        try store.fixBilling(for: "alice")
        try store.advance(to: at("P3M"))
        #expect(store.notifications(for: "bob").isEmpty)
    }

    @Test func shareHeldDuringBillingRetry_aPurchaserJoiningBringsTheirShareAtTheRecovery() throws {
        var store = makeFamilyStore(grace: .off, members: ["bob"])
        try store.purchase(familyMonthly.id, by: "erin")
        store.failBilling(for: "erin")
        try store.advance(to: at("P1M1D"))
        try store.joinFamily("erin")
        #expect(store.notifications(for: "alice").isEmpty && store.notifications(for: "bob").isEmpty)
        try store.fixBilling(for: "erin")
        #expect(
            lines(store.notifications.suffix(3)) == [
                "\(at("P1M1D")) erin DID_RENEW/BILLING_RECOVERY 1", "\(at("P1M1D")) alice SUBSCRIBED/INITIAL_BUY 1",
                "\(at("P1M1D")) bob SUBSCRIBED/INITIAL_BUY 1",
            ])
    }

    @Test func shareHeldDuringBillingRetry_aFamilyDelayEndingInBillingRetryHoldsTheShare() throws {
        let weeklyFamily = Product(
            id: "com.example.family.weekly", type: .autoRenewable, group: "weekly", period: .oneWeek,
            price: Price(decimal: "2.99")!, currency: "USD", familyShareable: true)
        let app = AppConfiguration(bundleId: "com.example.app", appAppleId: 1, familyDelay: .days(10))
        var store = SimulatedStore(app: app, catalog: try Catalog(products: [weeklyFamily]), start: testStart, seed: 3)
        try store.createFamily(organizer: "alice", members: ["bob"])
        try store.purchase(weeklyFamily.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("10d"))
        #expect(store.status(of: weeklyFamily.id, for: "alice") == .billingRetry)
        #expect(store.notifications(for: "bob").isEmpty, "the delay ended in billing retry: held")
        try store.advance(to: at("12d"))
        try store.fixBilling(for: "alice")
        #expect(lines(store.notifications(for: "bob")) == ["\(at("12d")) bob SUBSCRIBED/INITIAL_BUY 1"])
        #expect(store.notifications(for: "bob").first?.transaction?.expiresDate == at("19d"))
    }

    // MARK: member-grant-during-grace

    @Test func memberGrantDuringGrace_joiningGetsAccessAtOnceInAConsistentTransaction() throws {
        var store = makeFamilyStore(grace: .sixteenDays, members: ["bob"])
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M3D"))
        try store.joinFamily("dave")
        #expect(lines(store.notifications(for: "dave")) == ["\(at("P1M3D")) dave SUBSCRIBED/INITIAL_BUY 4"])
        #expect(store.entitlements(for: "dave") == [familyMonthly.id], "grace keeps access")
        let dave = try #require(store.notifications(for: "dave").first)
        let alice = store.transactions(for: "alice").last!
        // The member's transaction mirrors the purchaser's current period.
        #expect(
            dave.transaction?.purchaseDate == alice.purchaseDate && dave.transaction?.expiresDate == alice.expiresDate)
        #expect(dave.transaction?.originalPurchaseDate == alice.purchaseDate)
        #expect(dave.transaction?.hasConsistentDates == true)
        #expect(dave.renewal?.isInBillingRetryPeriod == true && dave.renewal?.gracePeriodExpiresDate == at("P1M16D"))
        #expect(dave.renewal?.recentSubscriptionStartDate == dave.transaction?.originalPurchaseDate)
    }

    @Test func memberGrantDuringGrace_theMemberFollowsTheEndOfGraceAndTheExpiry() throws {
        var store = makeFamilyStore(grace: .sixteenDays, members: ["bob"])
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M3D"))
        try store.joinFamily("dave")
        try store.advance(to: at("P4M"))
        #expect(
            lines(store.notifications(for: "dave")) == [
                "\(at("P1M3D")) dave SUBSCRIBED/INITIAL_BUY 4", "\(at("P1M16D")) dave GRACE_PERIOD_EXPIRED 3",
                "\(at("P1M60D")) dave EXPIRED/BILLING_RETRY 2",
            ])
    }

    @Test func memberGrantDuringGrace_theMemberFollowsTheRecovery() throws {
        var store = makeFamilyStore(grace: .sixteenDays, members: ["bob"])
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M3D"))
        try store.joinFamily("dave")
        try store.advance(to: at("P1M6D"))
        try store.fixBilling(for: "alice")
        try store.advance(to: at("P2M"))
        #expect(
            lines(store.notifications(for: "dave")) == [
                "\(at("P1M3D")) dave SUBSCRIBED/INITIAL_BUY 4", "\(at("P1M6D")) dave DID_RENEW/BILLING_RECOVERY 1",
                "\(at("P2M")) dave DID_RENEW 1",
            ])
        #expect(store.transactions(for: "dave").allSatisfy { $0.hasConsistentDates })
    }

    @Test func memberGrantDuringGrace_sharingSwitchedOnInGraceAlsoMirrorsThePeriod() throws {
        var store = makeFamilyStore(grace: .sixteenDays)
        try store.setShareWithFamily(false, for: "alice")
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M3D"))
        try store.startSharing(familyMonthly.id, by: "alice")
        let bob = try #require(store.notifications(for: "bob").first)
        #expect(bob.status == .gracePeriod && bob.transaction?.hasConsistentDates == true)
        #expect(bob.transaction?.purchaseDate == at("0") && bob.transaction?.expiresDate == at("P1M"))
    }

    @Test func memberGrantDuringGrace_aMemberWhoHadTheShareBeforeKeepsTheirOriginalPurchaseDate() throws {
        var store = makeFamilyStore(grace: .sixteenDays, members: ["bob"])
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M10D"))
        try store.joinFamily("dave")  // active: the first share starts at the join (A-3)
        try store.advance(to: at("P2M3D"))  // grace after the renewal at P2M fails
        try store.leaveFamily("dave")
        try store.joinFamily("dave")
        let last = try #require(store.notifications(for: "dave").last)
        #expect(last.type == .subscribed && last.subtype == .resubscribe && last.status == .gracePeriod)
        #expect(last.transaction?.hasConsistentDates == true)
        #expect(last.transaction?.originalPurchaseDate == store.transactions(for: "dave").first?.originalPurchaseDate)
    }
}
