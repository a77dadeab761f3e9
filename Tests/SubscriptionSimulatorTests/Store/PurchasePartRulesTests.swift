import Testing

@testable import SubscriptionSimulator

/// The purchase and sharing-switch rules the parts own since issue 44 (item 1, session 5: the facade's purchases,
/// billing and on-sale actions and the member side of Family Sharing), each tested on the part alone:
/// ``SubscriptionBook`` (`Store/SubscriptionBook+Purchases.swift`, `+Sharing.swift`), the ``TransactionLedger``'s
/// one-time purchases (`Store/TransactionLedger+OneTime.swift`), ``FamilyBook`` (`Store/FamilyBook+Shares.swift`) and
/// the lifecycle context (`Store/LifecycleContext+Store.swift`). A store made through the public API only provides
/// the parts' contents.

private func chain(of customer: String, inGroup group: String, _ store: SimulatedStore) throws -> ChainID {
    try #require(store.subscriptionBook.chain(of: customer, inGroup: group))
}

@Suite struct SubscriptionBookPurchaseRulesTests {
    @Test func theIntroductoryOfferIsOncePerGroupUnlessAnOfferIsRedeemed() throws {
        var store = makeStore()
        let groupKey = SubscriptionBook.customerGroupKey("alice", "trial")
        let intro = trialMonthly.introOffer(for: .upfront)
        #expect(intro != nil)
        func offer(_ redeemed: SubscriptionOffer? = nil) -> SubscriptionOffer? {
            store.subscriptionBook.offer(
                forPurchaseOf: trialMonthly, plan: .upfront, groupKey: groupKey, redeemed: redeemed)
        }
        #expect(offer() == intro)
        try store.purchase(trialMonthly.id, by: "alice")
        #expect(offer() == nil, "used")
        let redeemed = IntroductoryOffer(mode: .payAsYouGo, period: .months(1), price: Price(decimal: "1.99")!)
        #expect(offer(redeemed) == redeemed)
    }

    @Test func buyingAnotherProductOfTheGroupWhileActiveIsAPlanChange() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        let key = try chain(of: "alice", inGroup: "family", store)
        #expect(store.subscriptionBook.isPlanChange(buying: soloMonthly.id, on: key))
        #expect(!store.subscriptionBook.isPlanChange(buying: familyMonthly.id, on: key), "the same product")
        try store.cancel(familyMonthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        #expect(!store.subscriptionBook.isPlanChange(buying: soloMonthly.id, on: key), "expired")
    }

    @Test func buyingAgainIsARedemptionOrAPurchaseAgain() {
        let request = PurchaseRequest(productId: monthly.id, period: .oneMonth, offer: nil, plan: .upfront)
        #expect(SubscriptionBook.purchaseAgainInput(request, redeemed: nil) == .purchasedAgain(request))
        let offer = IntroductoryOffer(mode: .payAsYouGo, period: .months(1), price: Price(decimal: "1.99")!)
        #expect(
            SubscriptionBook.purchaseAgainInput(request, redeemed: offer)
                == .offerRedeemed(
                    OfferRedemption(productId: monthly.id, period: .oneMonth, offer: offer, plan: .upfront)))
    }

    @Test func theRecentStartRestartsOnlyAfterAGapOfMoreThanSixtyDays() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.cancel(monthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        let key = try chain(of: "alice", inGroup: "pro", store)
        let limit = store.subscriptionBook.chains[key.index].state.expiresDate.adding(
            BillingRules.recentStartGapAllowance)
        var book = store.subscriptionBook
        book.restartRecentSubscriptionAfterGap(of: key, ledger: store.ledger, at: limit)
        #expect(book.chains[key.index].recentSubscriptionStartDate == testStart, "exactly 60 days")
        let later = limit.adding(.milliseconds(1))
        book.restartRecentSubscriptionAfterGap(of: key, ledger: store.ledger, at: later)
        #expect(book.chains[key.index].recentSubscriptionStartDate == later)
    }

    @Test func aRevokedSubscriptionsServiceEndedAtItsRevocation() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("P1D"))
        try store.refund(monthly.id, of: "alice")
        let key = try chain(of: "alice", inGroup: "pro", store)
        let limit = at("P1D").adding(BillingRules.recentStartGapAllowance)
        #expect(
            limit
                < store.subscriptionBook.chains[key.index].state.expiresDate.adding(
                    BillingRules.recentStartGapAllowance))
        var book = store.subscriptionBook
        let later = limit.adding(.milliseconds(1))
        book.restartRecentSubscriptionAfterGap(of: key, ledger: store.ledger, at: later)
        #expect(book.chains[key.index].recentSubscriptionStartDate == later)
    }

    @Test func aFirstPurchaseOpensAPurchasedChainWithoutTransactions() {
        let state = SubscriptionLifecycle.initialPurchase(
            PurchaseRequest(productId: monthly.id, period: .oneMonth, offer: nil, plan: .upfront), at: at("1h")
        ).0
        let chain = SubscriptionBook.firstPurchaseChain(
            originalTransactionId: "42", customer: "alice", customerAt: 3, group: "pro", groupIdentifier: "g",
            state: state, at: at("1h"))
        #expect(chain.originalTransactionId == "42" && chain.customer == "alice" && chain.customerPosition == 3)
        #expect(chain.ownership == .purchased && chain.sharedFrom == nil && !chain.sharingOn)
        #expect(chain.originalPurchaseDate == at("1h") && chain.recentSubscriptionStartDate == at("1h"))
        #expect(chain.currentTransactionIndex == -1 && chain.state == state && chain.groupIdentifier == "g")
    }

    @Test func aFixedPaymentMethodReachesTheCustomersOwnSubscriptionsOnly() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.purchase(laterShareableMonthly.id, by: "bob")
        try store.advance(to: at("1h"))
        let bobs = store.chainKeys(of: "bob")
        #expect(bobs.count == 2, "bob's own and alice's share")
        #expect(store.subscriptionBook.purchasedChains(among: bobs) == [try chain(of: "bob", inGroup: "later", store)])
    }

    @Test func aProductBackOnSaleReachesItsPurchasersChains() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.purchase(laterShareableMonthly.id, by: "carol")
        try store.advance(to: at("1h"))
        #expect(
            store.subscriptionBook.purchasedChains(ofProduct: familyMonthly.id)
                == [try chain(of: "alice", inGroup: "family", store)])
        #expect(store.subscriptionBook.purchasedChains(ofProduct: soloMonthly.id).isEmpty)
    }
}

@Suite struct SubscriptionBookSharingRulesTests {
    @Test func stopSharingASubscriptionNeedsSharingOn() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        let key = try chain(of: "alice", inGroup: "family", store)
        var book = store.subscriptionBook
        try book.stopSharing(key, customer: "alice", productId: familyMonthly.id)
        #expect(!book.chains[key.index].sharingOn)
        #expect { try book.stopSharing(key, customer: "alice", productId: familyMonthly.id) } throws: {
            familyRule($0) == "stop-sharing-needs-sharing-on"
        }
    }

    @Test func startSharingASubscriptionNeedsSharingOff() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        let key = try chain(of: "alice", inGroup: "family", store)
        var book = store.subscriptionBook
        #expect { try book.startSharing(key, customer: "alice", productId: familyMonthly.id) } throws: {
            familyRule($0) == "start-sharing-needs-sharing-off"
        }
        try book.stopSharing(key, customer: "alice", productId: familyMonthly.id)
        try book.startSharing(key, customer: "alice", productId: familyMonthly.id)
        #expect(book.chains[key.index].sharingOn && book.isConsistent)
    }
}

@Suite struct LedgerOneTimeRulesTests {
    @Test func aNonConsumableIsBoughtOnce() throws {
        #expect(try TransactionLedger.checkOneTimePurchase(of: lifetime, by: "alice", owned: nil, at: at("0")) == nil)
        #expect {
            try TransactionLedger.checkOneTimePurchase(of: lifetime, by: "alice", owned: 0, at: at("0"))
        } throws: { error in
            guard case .nonConsumableAlreadyOwned("alice", lifetime.id) = error as? StoreError else { return false }
            return true
        }
    }

    @Test func aNonRenewingPurchaseNeedsADurationAndStartsItsTerm() throws {
        #expect(
            try TransactionLedger.checkOneTimePurchase(of: season, by: "alice", owned: nil, at: at("1h"))
                == at("1h").adding(.months(3)))
        let endless = Product(id: "com.example.endless", type: .nonRenewing, price: Price(decimal: "1")!)
        #expect {
            try TransactionLedger.checkOneTimePurchase(of: endless, by: "alice", owned: nil, at: at("0"))
        } throws: { error in
            guard case .nonRenewingWithoutDuration(endless.id) = error as? StoreError else { return false }
            return true
        }
        #expect(try TransactionLedger.checkOneTimePurchase(of: coins, by: "alice", owned: 0, at: at("0")) == nil)
    }

    @Test func aOneTimePurchaseIsItsOwnOriginalAtTheOffersPrice() {
        let record = TransactionLedger.oneTimePurchase(
            of: lifetime, by: "alice", transactionId: "7", offer: nil, at: at("1h"))
        #expect(record.transactionId == "7" && record.originalTransactionId == "7" && record.customer == "alice")
        #expect(record.purchaseDate == at("1h") && record.originalPurchaseDate == at("1h") && record.expiresDate == nil)
        #expect(record.ownership == .purchased && record.reason == .purchase && record.price == lifetime.price)
        #expect(record.productType == .nonConsumable && record.webOrderLineItemId == nil && record.revocation == nil)
        let offer = IntroductoryOffer(mode: .payAsYouGo, period: .months(1), price: Price(decimal: "1.99")!)
        let discounted = TransactionLedger.oneTimePurchase(
            of: lifetime, by: "alice", transactionId: "8", offer: offer, at: at("1h"))
        #expect(discounted.price == offer.price && discounted.offer == offer)
    }

    @Test func theUnrefundedPurchaseIsTheCustomersLatestOwnOne() throws {
        var store = makeStore()
        try store.purchase(coins.id, by: "alice")
        try store.purchase(coins.id, by: "alice")
        func unrefunded(_ customer: String) -> Int? {
            store.ledger.unrefundedOneTimePurchase(
                coins.id, ofCustomerAt: store.directory.positions[customer], in: store.directory)
        }
        #expect(unrefunded("alice") == 1)
        try store.refund(coins.id, of: "alice")
        #expect(unrefunded("alice") == 0)
        #expect(unrefunded("nobody") == nil)
    }

    @Test func aRestoreRedeliversTheCustomersUnrevokedNonConsumables() throws {
        var store = makeFamilyStore()
        try store.purchase(familyLifetime.id, by: "bob")
        try store.purchase(laterShareable.id, by: "bob")
        try store.purchase(familyMonthly.id, by: "bob")
        try store.refund(laterShareable.id, of: "bob")
        try store.advance(to: at("1h"))
        #expect(store.ledger.restoredNonConsumables(of: "bob").map(\.productId) == [familyLifetime.id])
        #expect(store.ledger.restoredNonConsumables(of: "alice").map(\.ownership) == [.familyShared], "shared")
    }

    @Test func aFullRefundOfAOneTimePurchaseEndsItsTerm() throws {
        var store = makeStore()
        try store.purchase(season.id, by: "alice")
        var ledger = store.ledger
        #expect(ledger.nonRenewingTerms[0] != nil)
        ledger.refundOneTimeInFull(0, reason: 1, at: at("1h"))
        let revocation = try #require(ledger.transactions[0].revocation)
        #expect(revocation.kind == .refundFull && revocation.reason == 1 && revocation.date == at("1h"))
        #expect(ledger.nonRenewingTerms[0] == nil && ledger.isConsistent)
    }
}

@Suite struct FamilyBookMemberRulesTests {
    @Test func aNewPurchaseIsSharedWhenShareableAndTheMainSwitchIsOn() throws {
        var store = makeFamilyStore()
        #expect(store.familyBook.sharesNewPurchase(of: familyMonthly, by: "alice"))
        #expect(!store.familyBook.sharesNewPurchase(of: laterShareableMonthly, by: "alice"), "not shareable")
        try store.setShareWithFamily(false, for: "alice")
        #expect(!store.familyBook.sharesNewPurchase(of: familyMonthly, by: "alice"), "switch off")
    }

    @Test func aMemberWhoHadTheShareKeepsTheirOriginalPurchaseDate() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("1h"))
        let key = try chain(of: "alice", inGroup: "family", store)
        let purchaser = PurchaserView(key, in: store.subscriptionBook, ledger: store.ledger)
        let share = try #require(store.familyBook.existingShare(of: .subscription(chain: key), with: "bob"))
        let dates = store.familyBook.memberGrantDates(
            ofShare: share, purchaser: purchaser, subscriptions: store.subscriptionBook, at: at("2h"))
        #expect(dates.originalPurchaseDate == at("1h") && dates.purchaseDate == at("2h"))
    }

    @Test func aMemberLosesOnlyTheAccessTheyStillHave() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.purchase(familyLifetime.id, by: "alice")
        try store.advance(to: at("1h"))
        let key = try chain(of: "alice", inGroup: "family", store)
        let subscriptionShare = try #require(
            store.familyBook.existingShare(of: .subscription(chain: key), with: "bob"))
        let lifetimeIndex = try #require(store.unrefundedOneTimePurchase(familyLifetime.id, of: "alice"))
        let lifetimeShare = try #require(
            store.familyBook.existingShare(of: .nonConsumable(transactionIndex: lifetimeIndex), with: "bob"))
        func access(_ id: Int, _ ledger: TransactionLedger) -> MemberAccess? {
            store.familyBook.accessToRevoke(ofShare: id, subscriptions: store.subscriptionBook, ledger: ledger)
        }
        let bobsChain = try #require(store.familyBook.shares[subscriptionShare].memberChain)
        #expect(
            access(subscriptionShare, store.ledger)
                == .chain(
                    bobsChain, transaction: store.subscriptionBook.chains[bobsChain.index].currentTransactionIndex))
        let bobsLifetime = try #require(store.familyBook.shares[lifetimeShare].memberTransactionIndex)
        #expect(access(lifetimeShare, store.ledger) == .transaction(bobsLifetime))
        var ledger = store.ledger
        ledger.revokeFamilyShared(bobsLifetime, reason: 0, at: at("2h"))
        #expect(access(lifetimeShare, ledger) == nil, "revoked once")
        try store.cancel(familyMonthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        #expect(access(subscriptionShare, store.ledger) == nil, "expired")
    }
}

@Suite struct LifecycleContextRulesTests {
    @Test func theContextReadsThePaymentMethodAndTheSale() throws {
        var store = makeStore(grace: .sixteenDays)
        try store.purchase(monthly.id, by: "alice")
        let key = try chain(of: "alice", inGroup: "pro", store)
        func context() -> LifecycleContext {
            LifecycleContext(
                for: store.subscriptionBook.chains[key.index], directory: store.directory,
                saleStatus: store.saleStatus, app: store.app, at: at("1h"))
        }
        #expect(context() == LifecycleContext(now: at("1h"), gracePeriod: .sixteenDays))
        store.failBilling(for: "alice")
        try store.removeFromSale(monthly.id)
        #expect(
            context()
                == LifecycleContext(
                    now: at("1h"), paymentSucceeds: false, productForSale: false, gracePeriod: .sixteenDays))
    }
}
