import Testing

@testable import SubscriptionSimulator

/// The Family Sharing rules the parts own since issue 44 (item 1, the share half of `SimulatedStore+Family.swift`),
/// each tested on the part alone: ``FamilyBook`` (who shares what, fan-out, the book's switches), the
/// ``TransactionLedger``'s member transactions and revocations, ``FamilyRules``. A store made through the public API
/// only provides the parts' contents.

private func purchase(_ productId: String, of customer: String, in store: SimulatedStore) throws -> Int {
    try #require(store.unrefundedOneTimePurchase(productId, of: customer))
}

@Suite struct FamilyBookShareRulesTests {
    @Test func aSubscriptionIsSharedOnlyWhileItsSharingIsOn() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        let source = Share.Source.subscription(chain: try alicesChain(store))
        let start = {
            store.familyBook.shareStart(
                of: source, subscriptions: store.subscriptionBook, ledger: store.ledger, catalog: store.catalog)
        }
        #expect(start() == .grantNow)
        try store.stopSharing(familyMonthly.id, by: "alice")
        #expect(start() == .nothing)
    }

    @Test func aSubscriptionInBillingRetryIsHeld() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M"))
        let source = Share.Source.subscription(chain: try alicesChain(store))
        #expect(
            store.familyBook.shareStart(
                of: source, subscriptions: store.subscriptionBook, ledger: store.ledger, catalog: store.catalog)
                == .holdUntilRecovery)
    }

    @Test func aNonConsumableIsSharedUntilItIsRefunded() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        let source = Share.Source.nonConsumable(transactionIndex: try purchase(familyLifetime.id, of: "bob", in: store))
        let start = {
            store.familyBook.shareStart(
                of: source, subscriptions: store.subscriptionBook, ledger: store.ledger, catalog: store.catalog)
        }
        #expect(start() == .grantNow)
        try store.refund(familyLifetime.id, of: "bob")
        #expect(start() == .nothing)
    }

    @Test func sharedSourcesAreInPurchaseOrderNotFamilyOrder() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        try store.purchase(familyMonthly.id, by: "alice")
        try store.purchase(laterShareable.id, by: "alice")  // not shareable: not a source
        let lifetime = try purchase(familyLifetime.id, of: "bob", in: store)
        let sources = store.familyBook.sharedSources(
            inFamily: 0, directory: store.directory, subscriptions: store.subscriptionBook, ledger: store.ledger,
            catalog: store.catalog)
        #expect(sources == [.nonConsumable(transactionIndex: lifetime), .subscription(chain: try alicesChain(store))])
    }

    @Test func aRestoreReachesNonConsumablesOthersBought() throws {
        var store = makeFamilyStore()
        try store.purchase(laterShareable.id, by: "alice")
        try store.purchase(familyMonthly.id, by: "alice")
        try store.makeFamilyShareable(laterShareable.id)
        let themes = try purchase(laterShareable.id, of: "alice", in: store)
        func restorable(_ customer: String) -> [Share.Source] {
            store.familyBook.restorableSources(
                for: customer, directory: store.directory, subscriptions: store.subscriptionBook, ledger: store.ledger,
                catalog: store.catalog)
        }
        #expect(restorable("bob") == [.nonConsumable(transactionIndex: themes)], "no subscription")
        #expect(restorable("alice").isEmpty, "not the purchaser's own")
        #expect(restorable("nobody").isEmpty, "in no family")
    }

    @Test func theFamilyDelayReachesEveryoneElseInTheFamily() {
        let store = makeFamilyStore()
        #expect(store.familyBook.othersInFamily(of: "bob") == ["alice", "carol"])
        #expect(store.familyBook.othersInFamily(of: "nobody").isEmpty)
    }

    @Test func theDelayEndsWithNothingForSomeoneWhoLeft() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        var book = store.familyBook
        let source = Share.Source.nonConsumable(transactionIndex: try purchase(familyLifetime.id, of: "bob", in: store))
        let alice = try #require(book.existingShare(of: source, with: "alice"))
        let carol = try #require(book.existingShare(of: source, with: "carol"))
        book.leave("carol", familyAt: 0)
        func input(_ id: Int) -> ShareInput {
            book.delayEndedInput(
                ofShare: id, subscriptions: store.subscriptionBook, ledger: store.ledger, catalog: store.catalog)
        }
        #expect(input(alice) == .delayEnded(sameFamily: true, start: .grantNow))
        #expect(input(carol) == .delayEnded(sameFamily: false, start: .grantNow))
    }

    @Test func stopSharingNeedsSharingOn() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        let index = try purchase(familyLifetime.id, of: "bob", in: store)
        var book = store.familyBook
        let ended = try book.stopSharing(
            nonConsumable: index, shareable: true, customer: "bob", productId: familyLifetime.id)
        #expect(ended.map { book.shares[$0].member } == ["alice", "carol"], "family order")
        #expect(book.nonConsumableSharingOff == [index])
        #expect {
            try book.stopSharing(nonConsumable: index, shareable: true, customer: "bob", productId: familyLifetime.id)
        } throws: { familyRule($0) == "stop-sharing-needs-sharing-on" }
        var fresh = store.familyBook
        #expect {
            try fresh.stopSharing(nonConsumable: index, shareable: false, customer: "bob", productId: familyLifetime.id)
        } throws: { familyRule($0) == "stop-sharing-needs-sharing-on" }
        #expect(book.isConsistent)
    }

    @Test func startSharingNeedsSharingOff() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        let index = try purchase(familyLifetime.id, of: "bob", in: store)
        var book = store.familyBook
        #expect { try book.startSharing(nonConsumable: index, customer: "bob", productId: familyLifetime.id) } throws: {
            familyRule($0) == "start-sharing-needs-sharing-off"
        }
        _ = try book.stopSharing(nonConsumable: index, shareable: true, customer: "bob", productId: familyLifetime.id)
        try book.startSharing(nonConsumable: index, customer: "bob", productId: familyLifetime.id)
        #expect(book.nonConsumableSharingOff.isEmpty && book.isConsistent)
    }

    @Test func aMembersChainIsTheirOwnFamilySharedOne() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        let key = try alicesChain(store)
        let purchaser = PurchaserView(key, in: store.subscriptionBook, ledger: store.ledger)
        let share = Share(source: .subscription(chain: key), purchaser: "alice", member: "bob", phase: .ended)
        let chain = FamilyBook.memberChain(
            for: share, purchaser: purchaser, originalTransactionId: "42", originalPurchaseDate: at("1h"),
            directory: store.directory)
        #expect(chain.customer == "bob" && chain.originalTransactionId == "42")
        #expect(chain.ownership == .familyShared && chain.sharedFrom == key && !chain.sharingOn)
        #expect(chain.state == purchaser.state && chain.group == "family")
        #expect(chain.originalPurchaseDate == at("1h") && chain.recentSubscriptionStartDate == at("1h"))
        #expect(chain.currentTransactionIndex == -1 && chain.purchaserPosition == 0)
    }

    @Test func sharesAreWellFormed() throws {
        #expect(try exercisedStore().familyBook.shares.allSatisfy(\.isWellFormed))
        let chain = Share.Source.subscription(chain: ChainID(index: 0))
        #expect(!Share(source: chain, purchaser: "alice", member: "alice", phase: .ended).isWellFormed, "one person")
        #expect(!Share(source: chain, purchaser: "alice", member: "bob", phase: .granted).isWellFormed, "holds nothing")
        var granted = Share(source: chain, purchaser: "alice", member: "bob", phase: .granted)
        granted.memberTransactionIndex = 3
        #expect(!granted.isWellFormed, "a transaction for a subscription")
        granted.memberTransactionIndex = nil
        granted.memberChain = ChainID(index: 1)
        #expect(granted.isWellFormed)
    }
}

@Suite struct LedgerFamilyRulesTests {
    @Test func aMembersSubscriptionTransactionHasItsOwnIdsAndNoOffer() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        var purchaserRecord = store.transactions[0]
        purchaserRecord.revocation = Revocation(date: at("0"), reason: 1, kind: .refundFull)
        let record = TransactionLedger.memberSubscriptionTransaction(
            like: purchaserRecord, member: "bob", transactionIdentifier: .text("7"), originalTransactionId: "5",
            webOrderLineItem: .text("9"), purchaseDate: at("1h"), originalPurchaseDate: at("1h"), reason: .renewal,
            currency: "EUR", at: at("2h"))
        #expect(record.customer == "bob" && record.ownership == .familyShared)
        #expect(record.transactionId == "7" && record.originalTransactionId == "5" && record.webOrderLineItemId == "9")
        #expect(record.purchaseDate == at("1h") && record.originalPurchaseDate == at("1h") && record.reason == .renewal)
        #expect(record.offer == nil && record.revocation == nil && record.lastModified == at("2h"))
        #expect(record.currency == "EUR")
        #expect(record.productId == purchaserRecord.productId && record.price == purchaserRecord.price)
        #expect(record.expiresDate == purchaserRecord.expiresDate)
    }

    @Test func aMembersNonConsumableTransactionIsBoughtNowWithItsOwnId() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        let purchaserRecord = store.transactions[0]
        let record = TransactionLedger.memberNonConsumableTransaction(
            like: purchaserRecord, member: "carol", transactionId: "8", at: at("1h"))
        #expect(record.customer == "carol" && record.ownership == .familyShared)
        #expect(record.transactionId == "8" && record.originalTransactionId == "8")
        #expect(record.purchaseDate == at("1h") && record.originalPurchaseDate == at("1h"))
        #expect(record.productId == familyLifetime.id && record.price == purchaserRecord.price)
    }

    @Test func aFamilyRevocationHasNoPercentageAndIsAModification() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        var ledger = store.ledger
        #expect(ledger.isUnrevoked(0))
        ledger.revokeFamilyShared(0, reason: 1, at: at("1h"))
        let revocation = try #require(ledger.transactions[0].revocation)
        #expect(revocation.kind == .familyRevoke && revocation.reason == 1 && revocation.date == at("1h"))
        #expect(revocation.percentage == nil && !revocation.isRefund)
        #expect(!ledger.isUnrevoked(0))
        #expect(ledger.transactions[0].modificationSequence == ledger.modifications && ledger.isConsistent)
    }
}

@Suite struct MemberAccessRuleTests {
    @Test func aMemberLosesASubscriptionOnlyUntilItEnded() {
        #expect(FamilyRules.memberKeepsAccess(.active))
        #expect(FamilyRules.memberKeepsAccess(.gracePeriod))
        #expect(FamilyRules.memberKeepsAccess(.billingRetry))
        #expect(!FamilyRules.memberKeepsAccess(.expired))
        #expect(!FamilyRules.memberKeepsAccess(.revoked))
    }
}
