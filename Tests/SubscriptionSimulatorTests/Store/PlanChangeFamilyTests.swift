import Testing
@testable import SubscriptionSimulator

// The "family" group of `FamilyRulesTests.swift` (familyMonthly: level 1, shareable; soloMonthly: level 2, not
// shareable) with two more: a shareable yearly plan at level 2 and a non-shareable monthly plan at level 1.
let familyBasicYearly = Product(
    id: "com.example.family.basic.yearly", type: .autoRenewable, group: "family", level: 2, period: .oneYear,
    price: Price(decimal: "99.99")!, currency: "USD", familyShareable: true)
let soloMaxMonthly = Product(
    id: "com.example.solo.max.monthly", type: .autoRenewable, group: "family", level: 1, period: .oneMonth,
    price: Price(decimal: "19.99")!, currency: "USD")

func makeFamilyPlanStore() -> SimulatedStore {
    let app = AppConfiguration(bundleId: "com.example.app", appAppleId: 1, gracePeriod: .sixteenDays)
    let catalog = try! Catalog(products: [familyMonthly, soloMonthly, familyBasicYearly, soloMaxMonthly])
    var store = SimulatedStore(app: app, catalog: catalog, start: testStart, seed: 14)
    try! store.createFamily(organizer: "alice", members: ["bob", "carol"])
    return store
}

/// What family members receive when the purchaser changes plan (reference §1.3: DID_CHANGE_RENEWAL_PREF goes to
/// purchaser and members), and rule plan-change-leaves-shareable-product.
@Suite struct PlanChangeFamilyTests {
    @Test func membersReceiveTheUpgradeWithTheirOwnNewTransaction() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(familyBasicYearly.id, by: "alice")
        try store.advance(to: at("10d"))
        let before = store.transactions(for: "bob")
        try store.changePlan(to: familyMonthly.id, by: "alice")
        #expect(
            lines(store.notifications).suffix(3) == [
                "\(at("10d")) alice DID_CHANGE_RENEWAL_PREF/UPGRADE 1",
                "\(at("10d")) bob DID_CHANGE_RENEWAL_PREF/UPGRADE 1",
                "\(at("10d")) carol DID_CHANGE_RENEWAL_PREF/UPGRADE 1",
            ])
        let after = store.transactions(for: "bob")
        #expect(after.count == before.count + 1)
        #expect(after[0].isUpgraded && after[0].revocation == nil)
        #expect(after[1].productId == familyMonthly.id && after[1].ownership == .familyShared)
        #expect(after[1].originalTransactionId == before[0].originalTransactionId)
        #expect(after[1].purchaseDate == at("10d") && after[1].expiresDate == at("10d").adding(.months(1)))
        #expect(store.notifications(for: "bob").last?.transaction?.transactionId == after[1].transactionId)
        #expect(store.entitlements(for: "bob") == [familyMonthly.id])
    }

    @Test func membersReceiveTheDowngradeAndTheRenewalToTheNewProduct() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: familyBasicYearly.id, by: "alice")
        let bobs = store.notifications(for: "bob")
        #expect(bobs.last?.subtype == .downgrade && bobs.last?.renewal?.autoRenewProductId == familyBasicYearly.id)
        try store.advance(to: at("P1M"))
        let renewal = store.notifications(for: "bob").last!
        #expect(renewal.type == .didRenew && renewal.transaction?.productId == familyBasicYearly.id)
        #expect(store.entitlements(for: "carol") == [familyBasicYearly.id])
    }

    @Test func planChangeLeavesShareableProduct_downgradeRevokesMembersAtTheRenewal() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: soloMonthly.id, by: "alice")
        #expect(store.notifications(for: "bob").last?.subtype == .downgrade)
        try store.advance(to: at("P1M"))
        #expect(
            lines(store.notifications).suffix(3) == [
                "\(at("P1M")) alice DID_RENEW 1", "\(at("P1M")) bob REVOKE 5", "\(at("P1M")) carol REVOKE 5",
            ])
        let revoke = store.notifications(for: "bob").last!
        #expect(revoke.transaction?.revocation == Revocation(date: at("P1M"), reason: 0, kind: .familyRevoke))
        #expect(revoke.transaction?.productId == familyMonthly.id)
        #expect(store.entitlements(for: "bob").isEmpty && store.entitlements(for: "alice") == [soloMonthly.id])
        try store.advance(to: at("P3M"))
        #expect(store.notifications(for: "bob").count == 3)
    }

    @Test func planChangeLeavesShareableProduct_upgradeRevokesMembersAtOnce() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: soloMaxMonthly.id, by: "alice")
        #expect(
            lines(store.notifications).suffix(3) == [
                "\(at("10d")) alice DID_CHANGE_RENEWAL_PREF/UPGRADE 1", "\(at("10d")) bob REVOKE 5",
                "\(at("10d")) carol REVOKE 5",
            ])
        #expect(store.transactions(for: "bob").allSatisfy { !$0.isUpgraded })
        #expect(store.transactions(for: "bob").count == 1)
    }

    @Test func planChangeLeavesShareableProduct_insideTheFamilyDelayNothingReachesMembers() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("30m"))
        try store.changePlan(to: soloMaxMonthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        #expect(store.notifications(for: "bob").isEmpty && store.notifications(for: "carol").isEmpty)
    }

    @Test func planChangeIntoShareableProduct_membersGetItAfterTheFamilyDelay() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(soloMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: familyMonthly.id, by: "alice")
        try store.advance(to: at("10d").adding(.minutes(59)))
        #expect(store.entitlements(for: "bob").isEmpty)
        try store.advance(to: at("10d").adding(.hours(1)))
        #expect(
            lines(store.notifications).suffix(2) == [
                "\(at("10d").adding(.hours(1))) bob SUBSCRIBED/INITIAL_BUY 1",
                "\(at("10d").adding(.hours(1))) carol SUBSCRIBED/INITIAL_BUY 1",
            ])
        #expect(store.entitlements(for: "bob") == [familyMonthly.id])
    }

    @Test func planChangeIntoShareableProduct_followsTheShareNewSubscriptionsSwitch() throws {
        var store = makeFamilyPlanStore()
        try store.setShareWithFamily(false, for: "alice")
        try store.purchase(soloMonthly.id, by: "alice")
        try store.changePlan(to: familyMonthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        #expect(store.notifications(for: "bob").isEmpty)
    }

    @Test func membersBackOnAShareableProductResubscribe() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.changePlan(to: soloMaxMonthly.id, by: "alice")
        try store.advance(to: at("20d"))
        try store.changePlan(to: familyMonthly.id, by: "alice")
        try store.advance(to: at("20d").adding(.hours(1)))
        #expect(
            lines(store.notifications(for: "bob")).last == "\(at("20d").adding(.hours(1))) bob SUBSCRIBED/RESUBSCRIBE 1"
        )
    }

    @Test func deviceViewShowsTheUpgradeAsAPurchaseAndTheDowngradeAsARenewalPreference() throws {
        var store = makeFamilyPlanStore()
        try store.purchase(familyBasicYearly.id, by: "alice")
        try store.advance(to: at("2h"))
        try store.changePlan(to: familyMonthly.id, by: "alice")
        try store.changePlan(to: familyBasicYearly.id, by: "alice")
        for customer in ["alice", "bob"] {
            let events = store.deviceEvents(for: customer).filter { $0.instant == at("2h") }.map(\.kind)
            let upgraded = store.transactions(for: customer).last!
            #expect(events.first == .transaction(.purchased, upgraded), "\(customer)")
            #expect(
                events.contains(
                    .autoRenewPreference(productId: familyMonthly.id, autoRenewProductId: familyBasicYearly.id)),
                "\(customer)")
        }
    }
}
