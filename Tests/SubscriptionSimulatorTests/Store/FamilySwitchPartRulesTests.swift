import Testing

@testable import SubscriptionSimulator

/// The Family Sharing and refund rules the parts own since issue 44 (session 6: the sharing switches, the offers,
/// restores and delays of shares, member grants, refund branches), each on the part alone: ``FamilyBook``
/// (`Store/FamilyBook+Switches.swift`, `Store/FamilyBook+Shares.swift`), the ``TransactionLedger``'s member
/// transactions and refund requests, the ``SubscriptionBook``'s refund reads. A store made through the public API only
/// provides the parts' contents.

@Suite struct FamilyBookSwitchRulesTests {
    @Test func theMainSwitchIsRefusedWhenAlreadySet() throws {
        var book = FamilyBook()
        do {
            try book.setShareWithFamily(true, for: "alice")
            Issue.record("the switch is on already")
        } catch { #expect(familyRule(error) == "share-with-family-switch") }
        try book.setShareWithFamily(false, for: "alice")
        #expect(!book.sharesNewPurchases("alice"))
    }

    @Test func aSwitchTurnsASubscriptionOrAnOwnedNonConsumableOnly() throws {
        let chain = ChainID(index: 4)
        #expect(
            try FamilyBook.switchedPurchase(familyMonthly, by: "alice", chain: chain, oneTime: nil)
                == .subscription(chain: chain))
        #expect(
            try FamilyBook.switchedPurchase(familyLifetime, by: "alice", chain: nil, oneTime: 7)
                == .nonConsumable(transactionIndex: 7))
        do {
            _ = try FamilyBook.switchedPurchase(familyLifetime, by: "alice", chain: nil, oneTime: nil)
            Issue.record("a non-consumable not owned")
        } catch { #expect(familyRule(error) == "sharing-needs-a-purchase") }
        do {
            _ = try FamilyBook.switchedPurchase(coins, by: "alice", chain: nil, oneTime: 1)
            Issue.record("a consumable")
        } catch { #expect(familyRule(error) == "shareable-types") }
    }

    @Test func sharingStartsOnlyForAShareableProductOfAShareableType() throws {
        try FamilyBook.checkCanStartSharing(familyMonthly)
        do {
            try FamilyBook.checkCanStartSharing(coins)
            Issue.record("a consumable")
        } catch { #expect(familyRule(error) == "shareable-types") }
        do {
            try FamilyBook.checkCanStartSharing(laterShareable)
            Issue.record("not shareable")
        } catch { #expect(familyRule(error) == "sharing-needs-a-shareable-product") }
    }

    @Test func aProductIsMadeShareableOnceAndNeverTurnedOff() throws {
        #expect(try FamilyBook.madeShareable(laterShareable).familyShareable)
        do {
            _ = try FamilyBook.madeShareable(familyLifetime)
            Issue.record("already shareable")
        } catch { #expect(familyRule(error) == "make-shareable-once") }
        do {
            _ = try FamilyBook.madeShareable(season)
            Issue.record("a non-renewing subscription")
        } catch { #expect(familyRule(error) == "shareable-types") }
        #expect(familyRule(FamilyBook.turnOffRefusal(familyLifetime)) == "family-sharing-cannot-be-turned-off")
        #expect(familyRule(FamilyBook.turnOffRefusal(laterShareable)) == "sharing-needs-a-shareable-product")
    }

    @Test func stoppingASubscriptionsSharingEndsItsSharesOnce() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("1h"))
        let key = try alicesChain(store)
        var book = store.familyBook
        var subscriptions = store.subscriptionBook
        let ended = try book.stopSharing(
            .subscription(chain: key), of: familyMonthly, by: "alice", subscriptions: &subscriptions)
        #expect(ended.map { book.shares[$0].member } == ["bob", "carol"])
        #expect(!subscriptions.chains[key.index].sharingOn)
        do {
            _ = try book.stopSharing(
                .subscription(chain: key), of: familyMonthly, by: "alice", subscriptions: &subscriptions)
            Issue.record("sharing is off already")
        } catch { #expect(familyRule(error) == "stop-sharing-needs-sharing-on") }
        try book.startSharing(.subscription(chain: key), of: familyMonthly, by: "alice", subscriptions: &subscriptions)
        #expect(subscriptions.chains[key.index].sharingOn)
        do {
            try book.startSharing(
                .subscription(chain: key), of: familyMonthly, by: "alice", subscriptions: &subscriptions)
            Issue.record("sharing is on already")
        } catch { #expect(familyRule(error) == "start-sharing-needs-sharing-off") }
    }

    @Test func aNewPurchaseIsSharedByTheMainSwitch() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        let key = try alicesChain(store)
        var subscriptions = store.subscriptionBook
        var book = store.familyBook
        #expect(book.startSharingNewPurchase(chain: key, of: familyMonthly, subscriptions: &subscriptions) == "alice")
        #expect(subscriptions.chains[key.index].sharingOn)
        book.setSharesNewPurchases(false, for: "alice")
        #expect(book.startSharingNewPurchase(chain: key, of: familyMonthly, subscriptions: &subscriptions) == nil)
        #expect(!subscriptions.chains[key.index].sharingOn)
    }
}

@Suite struct FamilyBookOfferRulesTests {
    @Test func anOfferGoesToEveryoneButThePurchaserWithWhatThePurchaseGivesNow() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        let source = Share.Source.subscription(chain: try alicesChain(store))
        var book = store.familyBook
        let offers = book.offers(
            of: source, to: ["alice", "bob", "dave"], subscriptions: store.subscriptionBook, ledger: store.ledger,
            catalog: store.catalog)
        #expect(offers.map { book.shares[$0.share].member } == ["bob", "dave"])
        // The purchase's family delay is pending for bob and carol: the offer joins it.
        let pending = try #require(book.pendingGrantInstant(of: source))
        #expect(offers.allSatisfy { $0.input == .offered(joiningPendingAt: pending, start: .grantNow) })
        #expect(
            book.offers(
                of: source, toFamilyOf: "erin", subscriptions: store.subscriptionBook, ledger: store.ledger,
                catalog: store.catalog
            ).isEmpty)
    }

    @Test func aNewcomerIsOfferedTheFamilysSharedPurchases() throws {
        var store = makeFamilyStore(members: ["bob"])
        try store.purchase(familyMonthly.id, by: "alice")
        try store.purchase(familyLifetime.id, by: "bob")
        try store.advance(to: at("1h"))
        var book = store.familyBook
        let family = try #require(book.family(of: "alice"))
        book.add("carol", toFamilyAt: family)
        let offers = book.joinOffers(
            inFamily: family, directory: store.directory, subscriptions: store.subscriptionBook, ledger: store.ledger,
            catalog: store.catalog)
        #expect(offers.map { book.shares[$0.share].member } == ["bob", "carol", "alice", "carol"])
        #expect(offers.allSatisfy { $0.input == .offered(joiningPendingAt: nil, start: .grantNow) })
    }

    @Test func aNewPurchasesDelayStartsForEveryoneElse() throws {
        let store = makeFamilyStore()
        var book = store.familyBook
        let source = Share.Source.nonConsumable(transactionIndex: 0)
        let moves = book.delayedShares(of: source, purchaser: "bob", grantAt: at("1h"))
        #expect(moves.map { book.shares[$0.share].member } == ["alice", "carol"])
        #expect(moves.allSatisfy { $0.input == .delayStarted(at: at("1h")) })
        let again = book.delayedShares(of: source, purchaser: "bob", grantAt: at("1h"))
        #expect(again.map { $0.share } == moves.map { $0.share }, "each share is made once")
        #expect(book.delayedShares(of: source, purchaser: "erin", grantAt: at("1h")).isEmpty)
    }

    @Test func aMemberRestoresTheNonConsumablesOthersShared() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        try store.purchase(familyMonthly.id, by: "alice")
        var book = store.familyBook
        let moves = book.restoredShares(
            for: "carol", directory: store.directory, subscriptions: store.subscriptionBook, ledger: store.ledger,
            catalog: store.catalog)
        #expect(moves.map { book.shares[$0.share].source } == [.nonConsumable(transactionIndex: 0)])
        #expect(moves.map { book.shares[$0.share].member } == ["carol"] && moves.allSatisfy { $0.input == .restored })
        #expect(
            book.restoredShares(
                for: "bob", directory: store.directory, subscriptions: store.subscriptionBook, ledger: store.ledger,
                catalog: store.catalog
            ).isEmpty, "the purchaser restores their own purchase, not a share")
    }

    @Test func aMemberGrantOfANonConsumableIsTheirOwnTransaction() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        var book = store.familyBook
        let id = book.share(of: .nonConsumable(transactionIndex: 0), purchaser: "bob", with: "carol")
        let record = book.grantNonConsumable(share: id, transactionId: "77", ledger: store.ledger, at: at("2h"))
        #expect(record.customer == "carol" && record.transactionId == "77" && record.ownership == .familyShared)
        #expect(book.shares[id].memberTransactionIndex == store.ledger.nextIndex)
    }

    @Test func aRefundEndsTheSharesOfANonConsumableOnly() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        try store.advance(to: at("1h"))
        #expect(
            store.familyBook.sharesEnded(byRefundOf: 0, ledger: store.ledger).map { store.familyBook.shares[$0].member }
                == ["alice", "carol"])
        try store.purchase(familyMonthly.id, by: "alice")
        let subscription = try #require(store.subscriptionBook.chains.last?.firstTransactionIndex)
        #expect(store.familyBook.sharesEnded(byRefundOf: subscription, ledger: store.ledger).isEmpty)
    }

    @Test func aGrantEventIsScheduledAndNotedToCancel() throws {
        let store = makeFamilyStore()
        var book = store.familyBook
        var scheduler = store.scheduler
        let id = book.share(of: .nonConsumable(transactionIndex: 0), purchaser: "bob", with: "carol")
        try book.scheduleGrant(ofShare: id, at: at("1h"), group: 0, scheduler: &scheduler)
        #expect(book.grantEvent(of: id) != nil)
    }

    @Test func theAccessToRevokeNamesItsTransaction() {
        #expect(MemberAccess.chain(ChainID(index: 2), transaction: 5).transaction == 5)
        #expect(MemberAccess.transaction(9).transaction == 9)
    }
}

@Suite struct LedgerMemberAndRefundRulesTests {
    @Test func aMembersFirstTransactionTakesTheChainsOriginalIdThenTheirOwnCounter() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("1h"))
        let bob = try #require(store.familyBook.fanOutTargets(of: try alicesChain(store)).first)
        var chain = store.subscriptionBook.chains[bob.index]
        var directory = store.directory
        let owner = try #require(directory.positions["bob"])
        let purchaserRecord = store.transactions[0]
        chain.currentTransactionIndex = -1
        let first = TransactionLedger.memberSubscriptionTransaction(
            of: chain, ownerAt: owner, like: purchaserRecord, purchaseDate: at("1h"), reason: .purchase,
            currency: nil, directory: &directory, ids: store.ids, at: at("1h"))
        #expect(first.transactionId == chain.originalTransactionId && first.customer == "bob")
        chain.currentTransactionIndex = 1
        let next = TransactionLedger.memberSubscriptionTransaction(
            of: chain, ownerAt: owner, like: purchaserRecord, purchaseDate: at("1h"), reason: .renewal,
            currency: "EUR", directory: &directory, ids: store.ids, at: at("1h"))
        #expect(
            next.transactionId != chain.originalTransactionId
                && next.originalTransactionId == chain.originalTransactionId)
        #expect(
            next.currency == "EUR" && next.reason == .renewal && next.webOrderLineItemId != first.webOrderLineItemId)
    }

    @Test func aRefundRequestIsRecordedWithWhetherAppleAskedForConsumption() throws {
        var store = makeStore()
        try store.purchase(coins.id, by: "alice")
        try store.purchase(lifetime.id, by: "alice")
        var ledger = store.ledger
        #expect(ledger.sendsConsumptionRequest(about: 0) && !ledger.sendsConsumptionRequest(about: 1))
        ledger.recordRefundRequest(of: 0, reason: .other, consumptionRequested: true, at: at("1h"))
        let request = try #require(ledger.refundRequests.last)
        #expect(request.transactionIndex == 0 && request.requestedAt == at("1h") && request.consumptionRequested)
    }

    @Test func aReversedRefundOfANonRenewingTermGivesItBack() throws {
        var store = makeStore()
        try store.purchase(season.id, by: "alice")
        try store.refund(season.id, of: "alice")
        var ledger = store.ledger
        ledger.reverseRefund(of: 0, catalog: store.catalog, at: at("1d"))
        #expect(ledger.transactions[0].revocation == nil)
        #expect(ledger.termRestoredByReversal(of: 0, product: season) == .months(3))
    }
}

@Suite struct SubscriptionBookRefundReadTests {
    @Test func onlyTheCurrentTransactionNamesItsChainAndARevokedOneIsReversedThroughIt() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        let key = try #require(store.subscriptionBook.chain(of: "alice", inGroup: "pro"))
        let current = store.subscriptionBook.chains[key.index].currentTransactionIndex
        #expect(store.subscriptionBook.chain(currentAt: current, in: store.ledger, catalog: store.catalog) == key)
        #expect(store.subscriptionBook.chain(currentAt: 0, in: store.ledger, catalog: store.catalog) == nil)
        #expect(
            store.subscriptionBook.revokedChain(currentAt: current, in: store.ledger, catalog: store.catalog) == nil)
        try store.refund(monthly.id, of: "alice")
        #expect(
            store.subscriptionBook.revokedChain(currentAt: current, in: store.ledger, catalog: store.catalog) == key)
    }
}
