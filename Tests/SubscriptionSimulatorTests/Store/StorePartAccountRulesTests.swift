import Testing

@testable import SubscriptionSimulator

/// The account, offer, extension, plan-change and price-increase rules the store's parts own since issue 44 (item 1,
/// session 4), each tested on the part alone: the store facade asks the part and carries out what follows.

private let annual = Product(
    id: "com.example.pro.annual", type: .autoRenewable, group: "pro", period: .oneYear,
    price: Price(decimal: "99.99")!, currency: "USD")

private func winBackOffer(_ conditions: WinBackConditions? = nil) -> SubscriptionOffer {
    var offer = SubscriptionOffer(id: "wb", type: .winBack, mode: .freeTrial, period: .months(1))
    offer.winBackConditions = conditions
    return offer
}

/// ``SubscriptionBook``: offer eligibility and the plan a redemption or plan change is on.
@Suite struct SubscriptionBookOfferRulesTests {
    @Test func introOfferOncePerGroup() {
        var subscriptions = partTestBook([partTestChain("alice")])
        #expect(subscriptions.introOfferAvailable(to: "alice", inGroup: "pro"))
        subscriptions.markIntroOfferUsed(SubscriptionBook.customerGroupKey("alice", "pro"))
        #expect(!subscriptions.introOfferAvailable(to: "alice", inGroup: "pro"))
        #expect(subscriptions.introOfferAvailable(to: "alice", inGroup: "other"), "each group has its own")
        #expect(subscriptions.introOfferAvailable(to: "bob", inGroup: "pro"), "each customer has their own")
    }

    @Test func offerForItsPlan() {
        let subscriptions = partTestBook([partTestChain("alice"), partTestChain("bob", phase: .expired)])
        let alice = subscriptions.chain(of: "alice", inGroup: "pro")
        let bob = subscriptions.chain(of: "bob", inGroup: "pro")
        #expect(
            subscriptions.redemptionPlan(ofOfferFor: .monthly, productId: monthly.id, chain: alice) == .upfront,
            "a running subscription redeems on its own plan")
        #expect(
            subscriptions.redemptionPlan(ofOfferFor: .monthly, productId: annual.id, chain: alice) == .upfront,
            "another product of the group: the up-front plan")
        #expect(
            subscriptions.redemptionPlan(ofOfferFor: .monthly, productId: monthly.id, chain: bob) == .monthly,
            "a lapsed subscription restarts on the offer's plan (offer-code-buys-its-plan)")
        #expect(subscriptions.redemptionPlan(ofOfferFor: .monthly, productId: monthly.id, chain: nil) == .monthly)
    }

    @Test func winBackOnlyAfterExpiry() throws {
        let subscriptions = partTestBook([
            partTestChain("alice"), partTestChain("bob", phase: .revoked), partTestChain("carol", phase: .expired),
        ])
        for name in ["alice", "bob"] {
            let key = try #require(subscriptions.chain(of: name, inGroup: "pro"))
            #expect(throws: StoreError.self, "\(name): not lapsed") {
                try subscriptions.checkWinBackRedemption(
                    winBackOffer(), of: key, productId: monthly.id, paidMilliseconds: 0, at: at("P2M"))
            }
        }
        let carol = try #require(subscriptions.chain(of: "carol", inGroup: "pro"))
        try subscriptions.checkWinBackRedemption(
            winBackOffer(), of: carol, productId: monthly.id, paidMilliseconds: 0, at: at("P2M"))
        let code = SubscriptionOffer(id: "code", type: .offerCode, mode: .freeTrial, period: .months(1))
        let alice = try #require(subscriptions.chain(of: "alice", inGroup: "pro"))
        try subscriptions.checkWinBackRedemption(
            code, of: alice, productId: monthly.id, paidMilliseconds: 0, at: at("P2M"))
    }

    @Test func winBackConditionsReadThePaidService() throws {
        let subscriptions = partTestBook([partTestChain("carol", phase: .expired)])
        let carol = try #require(subscriptions.chain(of: "carol", inGroup: "pro"))
        let offer = winBackOffer(WinBackConditions(paidMonths: 2))
        let month: Int64 = 31 * 86_400_000
        do throws(StoreError) {
            try subscriptions.checkWinBackRedemption(
                offer, of: carol, productId: monthly.id, paidMilliseconds: month, at: at("P3M"))
            Issue.record("one month paid does not meet paidMonths 2")
        } catch {
            guard case .winBackIneligible(_, _, _, let condition) = error else {
                Issue.record("refused under another rule: \(error)")
                return
            }
            #expect(condition.contains("(paidMonths)"))
        }
        try subscriptions.checkWinBackRedemption(
            offer, of: carol, productId: monthly.id, paidMilliseconds: 2 * month, at: at("P3M"))
    }

    @Test func winBackEligibilityListsOffersOnlyAfterExpiry() {
        var product = monthly
        product.offers = [winBackOffer()]
        var asked = 0
        let paid: () -> Int64 = {
            asked += 1
            return 0
        }
        let active = partTestChain("alice")
        let lapsed = partTestChain("carol", phase: .expired)
        #expect(
            SubscriptionBook.eligibleWinBackOfferIds(
                product, chain: active, state: active.state, paidMilliseconds: paid, at: at("P2M")
            ).isEmpty)
        #expect(
            SubscriptionBook.eligibleWinBackOfferIds(
                product, chain: lapsed, state: lapsed.state, paidMilliseconds: paid, at: at("P2M")) == ["wb"])
        #expect(asked == 0, "offers without conditions need no paid time")
    }

    @Test func planOfAChange() throws {
        let subscriptions = partTestBook([
            partTestChain("alice"), partTestChain("bob", annual, ownership: .familyShared),
        ])
        let alice = try #require(subscriptions.purchasedChain(of: "alice", inGroup: "pro"))
        #expect(subscriptions.purchasedChain(of: "bob", inGroup: "pro") == nil, "a member's share is not theirs")
        #expect(subscriptions.planOfChange(alice, to: monthly.id, chosen: nil) == .upfront)
        #expect(subscriptions.planOfChange(alice, to: annual.id, chosen: nil) == .upfront)
        #expect(subscriptions.planOfChange(alice, to: annual.id, chosen: .monthly) == .monthly, "the plan chosen")
    }
}

/// ``SubscriptionBook``: renewal-date extensions and billing issues.
@Suite struct SubscriptionBookExtensionRulesTests {
    @Test func membersExtendedWithTheirPurchaser() {
        let subscriptions = partTestBook([partTestChain("alice"), partTestChain("bob", ownership: .familyShared)])
        let bobsKeys = [ChainID(index: 1)]
        #expect(
            subscriptions.memberShareToRefuse(among: bobsKeys, of: monthly.id, ownChain: nil) == ChainID(index: 1))
        #expect(
            subscriptions.memberShareToRefuse(among: bobsKeys, of: monthly.id, ownChain: ChainID(index: 0)) == nil,
            "a customer with a subscription of their own extends that one")
        #expect(subscriptions.memberShareToRefuse(among: bobsKeys, of: annual.id, ownChain: nil) == nil)
    }

    @Test func twoExtensionsPer365Days() {
        var subscriptions = partTestBook([partTestChain("alice")])
        let key = ChainID(index: 0)
        subscriptions.noteExtension(of: key, at: testStart)
        subscriptions.noteExtension(of: key, at: at("P100D"))
        #expect(subscriptions.extensionRequest(key, days: 7, at: at("P200D")).extensionsInPastYear == 2)
        #expect(subscriptions.extensionRequest(key, days: 7, at: at("P366D")).extensionsInPastYear == 1)
        #expect(subscriptions.isConsistent)
    }

    @Test func aThirdExtensionMakesTheSubscriptionIneligible() {
        var subscriptions = partTestBook([partTestChain("alice")])
        let key = ChainID(index: 0)
        #expect(!subscriptions.extensionIneligible(key, days: 7, in: LifecycleContext(now: at("P2D"))))
        subscriptions.noteExtension(of: key, at: testStart)
        subscriptions.noteExtension(of: key, at: at("P1D"))
        #expect(subscriptions.extensionIneligible(key, days: 7, in: LifecycleContext(now: at("P2D"))))
        #expect(subscriptions.isConsistent)
    }

    @Test func massExtensionConsidersPurchasersNotEnded() {
        let subscriptions = partTestBook([
            partTestChain("alice"), partTestChain("bob", phase: .billingRetry), partTestChain("carol", phase: .expired),
            partTestChain("dan", phase: .revoked), partTestChain("erin", ownership: .familyShared),
            partTestChain("fay", annual),
        ])
        let considered = subscriptions.chains.indices.filter {
            subscriptions.massExtensionConsiders(chainAt: $0, of: monthly.id)
        }
        #expect(considered == [0, 1])
    }

    @Test func billingIssuesOfAFailingRenewal() {
        let subscriptions = partTestBook([
            partTestChain("alice", phase: .billingRetry, failure: .billingError),
            partTestChain("alice", annual, phase: .gracePeriod, failure: .billingError),
            partTestChain("bob", phase: .billingRetry, failure: .productNotForSale),
            partTestChain("carol", ownership: .familyShared, phase: .billingRetry, failure: .billingError),
            partTestChain("dan", phase: .active),
        ])
        let all = subscriptions.chains.indices.map { ChainID(index: $0) }
        #expect(subscriptions.billingIssues(among: all) == [monthly.id, annual.id])
    }
}

/// ``PriceIncreaseSchedule`` and ``PriceTarget``: who waits for a notice, and what an increase changes.
@Suite struct PriceIncreaseNoticeRulesTests {
    @Test func anEndedSubscriptionIsToldNothing() {
        var schedule = PriceIncreaseSchedule()
        let number = schedule.add(PriceIncreaseSchedulePartTests.increase())
        let active = partTestChain("alice").state
        let expired = partTestChain("bob", phase: .expired).state
        #expect(schedule.awaitsNotice(chainAt: 0, in: active, of: number))
        #expect(!schedule.awaitsNotice(chainAt: 1, in: expired, of: number))
        _ = schedule.tell(0, of: number)
        #expect(!schedule.awaitsNotice(chainAt: 0, in: active, of: number), "told once")
    }

    @Test func aNoticeMovesWithTheRenewal() {
        let increase = PriceIncreaseSchedulePartTests.increase(effective: "60d")
        let state = partTestChain("alice").state
        let notice = PriceIncreaseSchedule.noticeInstant(of: increase, for: state)
        #expect(PriceIncreaseSchedule.noticeMoved(of: increase, for: state, at: notice.adding(milliseconds: -1)))
        #expect(!PriceIncreaseSchedule.noticeMoved(of: increase, for: state, at: notice))
        var retrying = state
        retrying.phase = .billingRetry
        #expect(!PriceIncreaseSchedule.noticeMoved(of: increase, for: retrying, at: testStart), "only while active")
    }

    @Test func onePricePerCurrency() throws {
        var product = monthly
        product.prices["FRA"] = Price(decimal: "9.99")!
        let base = try PriceTarget.upfront(product, to: Price(decimal: "10.99")!, in: nil)
        let france = try PriceTarget.upfront(product, to: Price(decimal: "10.99")!, in: "FRA")
        #expect(base.raising(product, to: Price(decimal: "10.99")!).price == Price(decimal: "10.99")!)
        let raised = france.raising(product, to: Price(decimal: "10.99")!)
        #expect(raised.prices["FRA"] == Price(decimal: "10.99")! && raised.price == monthly.price)
    }

    @Test func commitmentKeepsItsPriceOnlyWhenRunningToTheProduct() throws {
        let target = try PriceTarget.upfront(monthly, to: Price(decimal: "10.99")!, in: nil)
        let usa = Storefront.unitedStates
        #expect(!target.keepsCommitmentPrice(partTestChain("alice"), in: usa), "no commitment")
        #expect(!target.keepsCommitmentPrice(partTestChain("bob", annual), in: usa))
    }
}

/// ``CustomerDirectory``: storefronts and account fields.
@Suite struct CustomerDirectoryAccountRulesTests {
    @Test func storefrontFixedPerCustomer() {
        var directory = CustomerDirectory()
        var ids = IdentifierSource(seed: 1)
        let alice = directory.register("alice", ids: &ids)
        #expect(!directory.storefrontIsFixed(ofCustomerAt: alice))
        directory.addChain(ChainID(index: 0), toCustomerAt: alice)
        #expect(directory.storefrontIsFixed(ofCustomerAt: alice))
    }

    @Test func theAppsStorefrontUnlessTheirOwn() {
        var directory = CustomerDirectory()
        let app = Storefront.unitedStates
        directory.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "alice")
        #expect(directory.storefront(of: "alice", default: app).countryCode == "FRA")
        #expect(directory.storefront(of: "bob", default: app).countryCode == "USA")
    }

    @Test func appTransactionIdPerCustomer() {
        var directory = CustomerDirectory()
        var ids = IdentifierSource(seed: 1)
        _ = directory.register("alice", ids: &ids)
        _ = directory.register("bob", ids: &ids)
        let alice = directory.appTransactionId(of: "alice")
        #expect(alice != nil && alice != directory.appTransactionId(of: "bob"))
        #expect(directory.appTransactionId(of: "nobody") == nil)
    }
}
