import Foundation
import Testing

@testable import SubscriptionSimulator

/// A store that has been through every kind of action that touches its parts: purchases, renewals, a family with
/// shares (granted, pending, ended), a member leaving, a restore, refunds, a refund request, an extension and an
/// app opening.
func exercisedStore() throws -> SimulatedStore {
    var store = makeFamilyStore()
    try store.purchase(familyMonthly.id, by: "alice")
    try store.purchase(familyLifetime.id, by: "bob")
    try store.advance(to: at("P1M"))
    try store.requestRefund(familyMonthly.id, by: "alice", reason: .unintendedPurchase)
    try store.extendRenewalDate(familyMonthly.id, for: "alice", days: 5)
    try store.leaveFamily("carol")
    try store.purchase(laterShareable.id, by: "alice")
    try store.makeFamilyShareable(laterShareable.id)
    try store.restorePurchases(for: "bob")
    store.openApp(for: "alice")
    try store.refund(familyLifetime.id, of: "bob")
    try store.advance(to: at("P3M"))
    return store
}

/// ``CustomerDirectory``: names, records and positions describe the same customers.
@Suite struct CustomerDirectoryTests {
    @Test func registeringTwiceKeepsOnePosition() {
        var directory = CustomerDirectory()
        var ids = IdentifierSource(seed: 1)
        #expect(directory.register("alice", ids: &ids) == 0)
        #expect(directory.register("bob", ids: &ids) == 1)
        #expect(directory.register("alice", ids: &ids) == 0)
        #expect(directory.names == ["alice", "bob"] && directory.records.count == 2)
        #expect(directory.isConsistent)
    }

    /// A part's store (issue 27) registers its customers at their places in the scenario: their ids are made from
    /// those, and a customer registered later without one gets a position past every reserved one.
    @Test func customersRegisteredAtPositionsOfTheirOwnKeepTheirIds() {
        var directory = CustomerDirectory()
        var ids = IdentifierSource(seed: 1)
        #expect(directory.register("carol", idPosition: 2, ids: &ids) == 0)
        #expect(directory.register("erin", idPosition: 4, ids: &ids) == 1)
        directory.reserveIdPositions(below: 6)
        #expect(directory.register("zoe", ids: &ids) == 2)
        #expect(directory.records.map(\.idPosition) == [2, 4, 6])
        #expect(directory.records[1].appTransactionId == ids.appTransactionId(forCustomerAt: 4))
        #expect(directory.isConsistent)
        var store = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app", appAppleId: 1), catalog: Catalog(), start: testStart,
            seed: 1)
        store.addCustomer("erin", idPosition: 4, reserving: 6)
        let transactionId = store.nextTransactionId(for: "erin")
        #expect(transactionId == ids.transactionId(ofCustomerAt: 4, counter: 1))
    }

    @Test func theInvariantsHoldAfterARun() throws {
        let store = try exercisedStore()
        #expect(store.directory.isConsistent)
        #expect(store.directory.names == store.customers)
    }
}

/// ``SubscriptionBook``: chains stay where they were put, and the (customer, group) index names the purchaser's.
@Suite struct SubscriptionBookTests {
    @Test func theGroupIndexNamesThePurchasersChain() throws {
        let store = try exercisedStore()
        #expect(store.subscriptionBook.isConsistent)
        let key = try #require(store.subscriptionBook.chain(of: "alice", inGroup: "family"))
        #expect(store.subscriptionBook.chains[key.index].ownership == .purchased)
        #expect(store.subscriptionBook.chain(of: "bob", inGroup: "family") == nil)  // a member's share is not indexed
    }

    @Test func aChainIsTakenOutAndPutBackWhole() throws {
        var store = try exercisedStore()
        let before = store.subscriptionBook.chains
        var chain = store.subscriptionBook.take(ChainID(index: 0))
        #expect(store.subscriptionBook.chains[0] == .placeholder)
        store.subscriptionBook.restore(&chain, ChainID(index: 0))
        #expect(store.subscriptionBook.chains == before)
    }
}

/// ``FamilyBook``: one family per customer, an index that agrees with the families, one share per (source, member).
@Suite struct FamilyBookTests {
    @Test func theFamilyIndexFollowsJoinsLeavesAndDisbanding() {
        var book = FamilyBook()
        book.createFamily(organizer: "alice")
        book.add("bob", toFamilyAt: 0)
        book.createFamily(organizer: "dan")
        book.add("erin", toFamilyAt: 1)
        #expect(book.isConsistent && book.family(of: "erin") == 1)
        book.remove("bob", fromFamilyAt: 0)
        #expect(book.isConsistent && book.family(of: "bob") == nil)
        book.disband(0)
        #expect(book.isConsistent && book.family(of: "erin") == 0 && book.family(of: "alice") == nil)
    }

    @Test func aShareIsMadeOncePerSourceAndMember() {
        var book = FamilyBook()
        let source = Share.Source.subscription(chain: ChainID(index: 0))
        let first = book.share(of: source, purchaser: "alice", with: "bob")
        #expect(book.share(of: source, purchaser: "alice", with: "bob") == first)
        #expect(book.shares[first].phase == .ended)
        #expect(book.isConsistent)
    }

    @Test func theInvariantsHoldAfterARun() throws {
        #expect(try exercisedStore().familyBook.isConsistent)
    }

    @Test func aShareMovesByItsTransitionAndFansOutOnlyOnceGranted() {
        var book = FamilyBook()
        book.createFamily(organizer: "alice")
        book.add("bob", toFamilyAt: 0)
        book.add("carol", toFamilyAt: 0)
        let purchaserChain = ChainID(index: 0)
        let source = Share.Source.subscription(chain: purchaserChain)
        let toBob = book.share(of: source, purchaser: "alice", with: "bob")
        let toCarol = book.share(of: source, purchaser: "alice", with: "carol")
        // The phase is the transition's: the part keeps it and hands the effects back.
        let grantAt = at("1h")
        #expect(book.apply(.delayStarted(at: grantAt), toShare: toBob) == [.scheduleGrant(at: grantAt)])
        #expect(book.shares[toBob].phase == .pending(at: grantAt))
        #expect(book.fanOutTargets(of: purchaserChain).isEmpty)  // pending: not a target yet
        book.grant(toCarol, memberChain: ChainID(index: 2))
        book.grant(toBob, memberChain: ChainID(index: 1))
        // Members in family order (bob joined before carol), whatever the order of the grants.
        #expect(book.fanOutTargets(of: purchaserChain) == [ChainID(index: 1), ChainID(index: 2)])
        #expect(book.fanOutTargets(of: ChainID(index: 5)).isEmpty)
        #expect(book.isConsistent)
    }
}

/// ``TransactionLedger``: every creation and change takes the next place in the modification order.
@Suite struct TransactionLedgerTests {
    @Test func changesMoveATransactionLastInTheModificationOrder() throws {
        var ledger = TransactionLedger()
        let record = try #require(makeStore().purchasing(monthly.id).transactions.first)
        _ = ledger.append(record, at: at("0"))
        _ = ledger.append(record, at: at("1d"))
        ledger.markModified(0, at: at("2d"))
        #expect(ledger.transactions[0].modificationSequence == 3 && ledger.transactions[0].lastModified == at("2d"))
        #expect(ledger.transactions[1].modificationSequence == 2)
        #expect(ledger.isConsistent)
    }

    @Test func revokingAndRestoringAreChangesInTheModificationOrder() throws {
        var ledger = TransactionLedger()
        let record = try #require(makeStore().purchasing(monthly.id).transactions.first)
        _ = ledger.append(record, at: at("0"))
        ledger.revoke(0, Revocation(date: at("1d"), reason: 1, kind: .refundFull), at: at("1d"))
        #expect(ledger.transactions[0].revocation?.reason == 1 && ledger.transactions[0].modificationSequence == 2)
        ledger.restore(0, at: at("2d"))
        #expect(ledger.transactions[0].revocation == nil && ledger.transactions[0].modificationSequence == 3)
        ledger.markUpgraded(0, at: at("3d"))
        #expect(ledger.transactions[0].isUpgraded && ledger.transactions[0].lastModified == at("3d"))
        #expect(ledger.modifications == 4 && ledger.isConsistent)
    }

    @Test func theInvariantsHoldAfterARun() throws {
        #expect(try exercisedStore().ledger.isConsistent)
    }
}

/// ``EmissionLog``: restores and app openings are placed among the notifications, in order.
@Suite struct EmissionLogTests {
    @Test func theInvariantsHoldAfterARun() throws {
        let store = try exercisedStore()
        #expect(store.emissions.isConsistent)
        #expect(!store.emissions.restores.isEmpty && !store.emissions.appOpens.isEmpty)
    }

    @Test func discardingKeepsOnlyWhatIsLive() throws {
        var store = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [monthly]),
            start: testStart, retention: .liveState)
        try store.purchase(monthly.id, by: "alice")
        store.discardEmitted()
        #expect(store.notifications.isEmpty && store.entitlementChanges.isEmpty && store.emissions.isConsistent)
    }

    @Test func handingOnGivesTheRecordsAway() throws {
        var store = try exercisedStore()
        let sent = store.notifications.count
        var taken = 0
        store.emissions.handOn { notifications, changes in
            taken = notifications.count
            notifications = []
            changes = []
        }
        #expect(taken == sent && sent > 0 && store.notifications.isEmpty && store.entitlementChanges.isEmpty)
    }

    @Test func theOrderIsNotedOnlyForAPartsStore() throws {
        let plain = try exercisedStore()
        #expect(plain.emissions.notificationOrder.isEmpty && plain.emissions.changeOrder.isEmpty)
        var noting = makeFamilyStore()
        noting.emissions.noteOrder()
        try noting.purchase(familyMonthly.id, by: "alice")
        try noting.advance(to: at("P2M"))
        #expect(noting.emissions.isConsistent && noting.emissions.notesOrder)
        // Rule order-key: unique keys, in the order emitted within each kind of record.
        let notificationKeys = Array(noting.notificationOrderKeys(from: 0))
        let changeKeys = Array(noting.changeOrderKeys(from: 0))
        #expect(Set(notificationKeys + changeKeys).count == notificationKeys.count + changeKeys.count)
        #expect(notificationKeys == notificationKeys.sorted() && changeKeys == changeKeys.sorted())
        #expect(
            notificationKeys.count == noting.notifications.count && changeKeys.count == noting.entitlementChanges.count)
        #expect(
            noting.emissions.notificationOrder.map(\.instant)
                == noting.notifications.map(\.instant.millisecondsSince1970))
        #expect(
            noting.emissions.changeOrder.map(\.instant)
                == noting.entitlementChanges.map(\.instant.millisecondsSince1970))
        // Every record of one store run with and without the notes is the same.
        var quiet = makeFamilyStore()
        try quiet.purchase(familyMonthly.id, by: "alice")
        try quiet.advance(to: at("P2M"))
        #expect(quiet.notifications == noting.notifications && quiet.entitlementChanges == noting.entitlementChanges)
        // A part's store notes it (``ScenarioRunner/streamPart(_:part:partition:into:)`` keys its records from it).
        let scenario = try ScenarioDecoder(file: "parts.yaml").decode(
            TimelineChunksTests.head + "timeline:\n" + TimelineChunksTests.items(2))
        let part = TimelineDriver.prepared(
            scenario, retention: .everything, partition: ScenarioPartition(scenario), part: RunPart(index: 0, count: 2))
        #expect(part.store.emissions.notesOrder)
        #expect(!TimelineDriver.prepared(scenario, retention: .everything).store.emissions.notesOrder)
    }
}

/// The facade's read models and internal checks.
@Suite struct StoreReadModelTests {
    @Test func theDeviceViewIsAReadModelOfTheStore() throws {
        let store = try exercisedStore()
        for customer in store.customers {
            #expect(DeviceView(store).events(for: customer) == store.deviceEvents(for: customer))
        }
        #expect(!DeviceView(store).events(for: "alice").isEmpty)
    }

    @Test func everyPartIsConsistentAfterEachStepOfEveryScenario() throws {
        // A debug build also asserts this after every step (`checkParts()`); this reads it where a test can fail.
        let folder = PackagePaths.scenarios
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
        #expect(files.count > 10)
        for file in files.sorted() {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let scenario = try ScenarioDecoder(file: "Scenarios/\(file)", baseDirectory: folder.path).decode(text)
            var (store, stop) = TimelineDriver.prepared(scenario, retention: .everything)
            guard stop == nil else { continue }
            var driver = TimelineDriver(scenario)
            _ = driver.run(&store, stepping: .instants) { store, _, _ in
                #expect(store.partsAreConsistent, "\(file) at \(store.now)")
            }
            #expect(store.partsAreConsistent, "\(file)")
        }
    }
}

/// ``OrderKey``: (instant, group, sequence) order.
@Suite struct OrderKeyTests {
    @Test func keysOrderByInstantThenGroupThenSequence() {
        let keys = [
            OrderKey(instant: 2, group: 0, sequence: 0), OrderKey(instant: 1, group: 3, sequence: 1),
            OrderKey(instant: 1, group: 1, sequence: 5), OrderKey(instant: 1, group: 1, sequence: 2),
        ]
        #expect(
            keys.sorted() == [
                OrderKey(instant: 1, group: 1, sequence: 2), OrderKey(instant: 1, group: 1, sequence: 5),
                OrderKey(instant: 1, group: 3, sequence: 1), OrderKey(instant: 2, group: 0, sequence: 0),
            ])
    }
}

/// ``RunLimitMeter``: counts events and each chain's renewals against the limits.
@Suite struct RunLimitMeterTests {
    @Test func aCountPassesItsLimitOnlyAfterTheLimit() {
        var meter = RunLimitMeter()
        meter.limits.maximumEvents = 2
        meter.limits.maximumRenewalsPerSubscription = 1
        #expect(meter.countEvent() && meter.countEvent() && !meter.countEvent())
        #expect(meter.countRenewal(ofChainAt: 3) && !meter.countRenewal(ofChainAt: 3))
        #expect(meter.renewals == [0, 0, 0, 2])
    }
}

extension SimulatedStore {
    /// This store after `customer` (default alice) buys `productId`.
    fileprivate func purchasing(_ productId: String, by customer: String = "alice") throws -> SimulatedStore {
        var store = self
        try store.purchase(productId, by: customer)
        return store
    }
}
