import Testing
@testable import SubscriptionSimulator

let familyMonthly = Product(
    id: "com.example.family.monthly", type: .autoRenewable, group: "family", period: .oneMonth,
    price: Price(decimal: "14.99")!, currency: "USD", familyShareable: true)
let soloMonthly = Product(
    id: "com.example.solo.monthly", type: .autoRenewable, group: "family", level: 2, period: .oneMonth,
    price: Price(decimal: "9.99")!, currency: "USD")
let familyLifetime = Product(
    id: "com.example.family.lifetime", type: .nonConsumable, price: Price(decimal: "49.99")!, familyShareable: true)
let laterShareable = Product(id: "com.example.themes", type: .nonConsumable, price: Price(decimal: "4.99")!)
let laterShareableMonthly = Product(
    id: "com.example.later.monthly", type: .autoRenewable, group: "later", period: .oneMonth,
    price: Price(decimal: "4.99")!)

func makeFamilyStore(grace: GracePeriodSetting = .off, members: [String] = ["bob", "carol"]) -> SimulatedStore {
    let app = AppConfiguration(bundleId: "com.example.app", appAppleId: 1, gracePeriod: grace)
    let catalog = try! Catalog(products: [
        familyMonthly, soloMonthly, familyLifetime, laterShareable, laterShareableMonthly,
    ])
    var store = SimulatedStore(app: app, catalog: catalog, start: testStart, seed: 3)
    try! store.createFamily(organizer: "alice", members: members)
    return store
}

@Suite struct FamilyRulesTests {
    @Test func membersReceiveANewPurchaseAfterTheFamilyDelay() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("59m"))
        #expect(store.entitlements(for: "bob").isEmpty)
        try store.advance(to: at("1h"))
        #expect(
            lines(store.notifications) == [
                "\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1", "\(at("1h")) bob SUBSCRIBED/INITIAL_BUY 1",
                "\(at("1h")) carol SUBSCRIBED/INITIAL_BUY 1",
            ])
        #expect(store.entitlements(for: "bob") == [familyMonthly.id])
    }

    @Test func membersHaveTheirOwnIdsAndFamilySharedOwnership() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        let purchaserIds = Set(
            store.transactions(for: "alice").flatMap { [$0.transactionId, $0.originalTransactionId] })
        for member in ["bob", "carol"] {
            let txs = store.transactions(for: member)
            #expect(txs.count == 2)
            #expect(txs.allSatisfy { $0.ownership == .familyShared && $0.price.milliunits == 14990 })
            #expect(txs[0].transactionId == txs[0].originalTransactionId)
            #expect(txs[0].purchaseDate == at("1h") && txs[0].expiresDate == at("P1M"))
            #expect(txs[1].purchaseDate == at("P1M") && txs[1].expiresDate == at("P2M"))
            #expect(purchaserIds.isDisjoint(with: txs.flatMap { [$0.transactionId, $0.originalTransactionId] }))
            let renewal = store.notifications(for: member).last!.renewal!
            #expect(renewal.recentSubscriptionStartDate == at("1h"))
        }
    }

    @Test func stopSharingInsideTheDelayMeansMembersGetNothing() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("30m"))
        try store.stopSharing(familyMonthly.id, by: "alice")
        try store.advance(to: at("P3M"))
        #expect(store.notifications(for: "bob").isEmpty && store.notifications(for: "carol").isEmpty)
        #expect(store.transactions(for: "bob").isEmpty)
    }

    @Test func stopSharingLaterRevokesMembers() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("40d"))
        try store.stopSharing(familyMonthly.id, by: "alice")
        let revoke = store.notifications(for: "bob").last!
        #expect(revoke.type == .revoke && revoke.status == .revoked && revoke.instant == at("40d"))
        #expect(revoke.transaction?.revocation == Revocation(date: at("40d"), reason: 0, kind: .familyRevoke))
        #expect(revoke.transaction?.revocation?.percentage == nil)
        #expect(revoke.renewal?.autoRenewOn == false)
        #expect(store.notifications(for: "alice").map(\.type) == [.subscribed, .didRenew], "purchaser gets nothing")
        try store.advance(to: at("P3M"))
        #expect(store.notifications(for: "bob").count == 3, "nothing after REVOKE")
        #expect(store.entitlements(for: "bob").isEmpty && store.entitlements(for: "alice") == [familyMonthly.id])
    }

    @Test func startSharingAnExistingSubscriptionHasNoDelay() throws {
        var store = makeFamilyStore()
        try store.purchase(laterShareableMonthly.id, by: "alice")
        try store.advance(to: at("5d"))
        try store.makeFamilyShareable(laterShareableMonthly.id)
        try store.advance(to: at("6d"))
        #expect(store.notifications(for: "bob").isEmpty, "existing subscribers share only after opting in")
        try store.startSharing(laterShareableMonthly.id, by: "alice")
        #expect(lines(store.notifications(for: "bob")) == ["\(at("6d")) bob SUBSCRIBED/INITIAL_BUY 1"])
    }

    @Test func stopThenStartSharingAgainResubscribesMembers() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("2d"))
        try store.stopSharing(familyMonthly.id, by: "alice")
        try store.advance(to: at("3d"))
        try store.startSharing(familyMonthly.id, by: "alice")
        #expect(lines(store.notifications(for: "bob")).last == "\(at("3d")) bob SUBSCRIBED/RESUBSCRIBE 1")
        #expect(Set(store.transactions(for: "bob").map(\.originalTransactionId)).count == 1)
    }

    @Test func mainSwitchOffMeansNewPurchasesAreNotShared() throws {
        var store = makeFamilyStore()
        try store.setShareWithFamily(false, for: "alice")
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("2h"))
        #expect(store.notifications(for: "bob").isEmpty)
        try store.startSharing(familyMonthly.id, by: "alice")
        #expect(lines(store.notifications(for: "bob")) == ["\(at("2h")) bob SUBSCRIBED/INITIAL_BUY 1"])
    }

    @Test func mainSwitchOffNeverUnsharesAnExistingSubscription() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("2h"))
        try store.setShareWithFamily(false, for: "alice")
        try store.advance(to: at("P1M"))
        #expect(store.notifications(for: "bob").map(\.type) == [.subscribed, .didRenew])
    }

    @Test func purchaserLeavingRevokesEveryMember() throws {
        var store = makeFamilyStore(members: ["bob", "carol"])
        try store.purchase(familyMonthly.id, by: "bob")
        try store.advance(to: at("10d"))
        try store.leaveFamily("bob")
        #expect(lines(store.notifications.suffix(2)) == ["\(at("10d")) alice REVOKE 5", "\(at("10d")) carol REVOKE 5"])
        #expect(store.entitlements(for: "bob") == [familyMonthly.id], "the purchaser keeps their own subscription")
    }

    @Test func memberLeavingIsRevokedAlone() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.leaveFamily("carol")
        #expect(lines(store.notifications.suffix(1)) == ["\(at("10d")) carol REVOKE 5"])
        try store.advance(to: at("P1M"))
        #expect(store.notifications(for: "bob").last?.type == .didRenew)
        #expect(store.notifications(for: "carol").last?.type == .revoke)
    }

    @Test func organizerLeavingDisbandsTheFamily() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "bob")
        try store.advance(to: at("10d"))
        try store.leaveFamily("alice")
        #expect(lines(store.notifications.suffix(2)) == ["\(at("10d")) alice REVOKE 5", "\(at("10d")) carol REVOKE 5"])
        #expect(store.families.isEmpty)
    }

    @Test func purchaserRefundRevokesMembersWithThePurchasersReason() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("5d"))
        try store.refund(familyMonthly.id, of: "alice", reason: 1)
        #expect(
            lines(store.notifications.suffix(3)) == [
                "\(at("5d")) alice REFUND 5", "\(at("5d")) bob REVOKE 5", "\(at("5d")) carol REVOKE 5",
            ])
        #expect(
            store.notifications.last?.transaction?.revocation
                == Revocation(date: at("5d"), reason: 1, kind: .familyRevoke))
    }

    @Test func memberJoiningGetsActiveSharesAtOnce() throws {
        var store = makeFamilyStore(members: ["bob"])
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("3d"))
        try store.joinFamily("dave")
        #expect(lines(store.notifications(for: "dave")) == ["\(at("3d")) dave SUBSCRIBED/INITIAL_BUY 1"])
    }

    @Test func aSeventhPersonIsRefused() throws {
        var store = makeFamilyStore(members: ["b", "c", "d", "e", "f"])
        #expect(throws: StoreError.family(.familyFull(organizer: "alice"))) { try store.joinFamily("g") }
    }

    @Test func aCustomerBelongsToOneFamily() throws {
        var store = makeFamilyStore()
        #expect(throws: StoreError.family(.alreadyInAFamily(customer: "bob"))) {
            try store.createFamily(organizer: "bob")
        }
    }

    @Test func familySharingCannotBeTurnedOff() throws {
        var store = makeFamilyStore()
        #expect(throws: StoreError.family(.cannotTurnOffFamilySharing(productId: familyMonthly.id))) {
            try store.turnOffFamilySharing(familyMonthly.id)
        }
    }

    @Test func membersFollowTheBillingLifecycle() throws {
        var store = makeFamilyStore(grace: .sixteenDays)
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M"))
        #expect(store.entitlements(for: "bob") == [familyMonthly.id], "grace keeps access")
        try store.advance(to: at("P1M16D"))
        #expect(store.entitlements(for: "bob").isEmpty, "billing retry removes it")
        try store.advance(to: at("P1M20D"))
        try store.fixBilling(for: "alice")
        #expect(store.entitlements(for: "bob") == [familyMonthly.id], "recovery restores it")
        #expect(
            lines(store.notifications(for: "bob")) == [
                "\(at("1h")) bob SUBSCRIBED/INITIAL_BUY 1", "\(at("P1M")) bob DID_FAIL_TO_RENEW/GRACE_PERIOD 4",
                "\(at("P1M16D")) bob GRACE_PERIOD_EXPIRED 3", "\(at("P1M20D")) bob DID_RENEW/BILLING_RECOVERY 1",
            ])
    }

    @Test func aMembersFixBillingNeverDrivesTheSharedSubscription() throws {
        var store = makeFamilyStore(grace: .sixteenDays)
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M2D"))
        try store.fixBilling(for: "bob")
        #expect(
            store.notifications(for: "bob").last?.type == .didFailToRenew, "bob's payment method is not the one failing"
        )
        try store.removeFromSale(familyMonthly.id)
        try store.restoreToSale(familyMonthly.id)
        #expect(store.notifications.last?.type == .didFailToRenew)
    }

    @Test func aMemberWithTheirOwnSubscriptionKeepsAccessAfterRevoke() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.purchase(familyMonthly.id, by: "bob")
        try store.advance(to: at("1d"))
        try store.stopSharing(familyMonthly.id, by: "alice")
        #expect(store.notifications(for: "bob").last?.type == .revoke)
        #expect(store.entitlements(for: "bob") == [familyMonthly.id])
    }

    @Test func nonConsumableSharedAtPurchaseArrivesAsPurchased() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "alice")
        try store.advance(to: at("1h"))
        let n = store.notifications(for: "bob")
        #expect(n.map(\.type) == [.oneTimeCharge] && n[0].transaction?.ownership == .familyShared)
        guard case .transaction(.purchased, _) = store.deviceEvents(for: "bob").first?.kind else {
            Issue.record("expected a purchased transaction on bob's device"); return
        }
    }

    @Test func nonConsumableMadeShareableLaterArrivesOnRestore() throws {
        var store = makeFamilyStore()
        try store.purchase(laterShareable.id, by: "alice")
        try store.advance(to: at("1d"))
        try store.makeFamilyShareable(laterShareable.id)
        try store.advance(to: at("2d"))
        #expect(store.notifications(for: "bob").isEmpty)
        try store.restorePurchases(for: "bob")
        #expect(lines(store.notifications(for: "bob")) == ["\(at("2d")) bob ONE_TIME_CHARGE"])
        #expect(store.entitlements(for: "bob") == [laterShareable.id])
        #expect(
            store.deviceEvents(for: "bob").map(\.kind).contains {
                if case .transaction(.restored, _) = $0 { return true }; return false
            })
    }

    @Test func consumablesCannotBeShareable() {
        #expect(throws: CatalogError.self) {
            _ = try Catalog(products: [Product(id: "c", type: .consumable, price: .free, familyShareable: true)])
        }
    }

    @Test func onlySubscriptionsAndNonConsumablesCanBeMadeShareable() throws {
        let app = AppConfiguration(bundleId: "b")
        var store = SimulatedStore(
            app: app, catalog: try Catalog(products: [Product(id: "c", type: .consumable, price: .free)]),
            start: testStart)
        #expect(throws: StoreError.family(.typeCannotBeShared(productId: "c", type: .consumable))) {
            try store.makeFamilyShareable("c")
        }
    }

    @Test func refundRevokeReachesTheDeviceAsCallback() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("2h"))
        try store.refund(familyMonthly.id, of: "alice")
        for customer in ["alice", "bob"] {
            #expect(
                store.deviceEvents(for: customer).contains {
                    $0.kind == .didRevokeEntitlements(productIds: [familyMonthly.id])
                })
        }
    }
}
