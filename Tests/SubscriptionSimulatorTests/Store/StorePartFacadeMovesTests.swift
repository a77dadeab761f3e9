import Testing

@testable import SubscriptionSimulator

/// The price-increase, extension, plan-change and offer decisions the store's parts own since issue 44 (session 6),
/// each tested on the part alone: the store facade asks the part and carries out what follows.

private let yearly = Product(
    id: "com.example.pro.yearly", type: .autoRenewable, group: "pro", period: .oneYear,
    price: Price(decimal: "99.99")!, currency: "USD")

private let france = Storefronts.storefront(countryCode: "FRA")!

/// ``PriceTarget``, ``PriceIncreaseSchedule`` and ``CommitmentPriceLocks``.
@Suite struct PriceIncreaseFacadeMovesTests {
    @Test func aTargetOfEachPlan() throws {
        var plan = yearly
        plan.monthlyCommitment = CommitmentPlan(monthlyPrice: Price(decimal: "9.49")!, prices: [:])
        let upfront = try PriceTarget.of(.upfront, of: plan, to: Price(decimal: "109.99")!, in: nil)
        #expect(upfront.plan == .upfront && upfront.oldPrice == Price(decimal: "99.99")!)
        let monthlyTarget = try PriceTarget.of(.monthly, of: plan, to: Price(decimal: "9.99")!, in: nil)
        #expect(monthlyTarget.plan == .monthly && monthlyTarget.oldPrice == Price(decimal: "9.49")!)
        #expect(throws: StoreError.self, "rule price-increase-raises-price") {
            _ = try PriceTarget.of(.upfront, of: plan, to: Price(decimal: "9.99")!, in: nil)
        }
    }

    @Test func commitmentPriceIncreaseAtCommitmentRenewalOnlyForTheMonthlyPrice() throws {
        var plan = yearly
        plan.prices["FRA"] = Price(decimal: "109.99")!
        plan.monthlyCommitment = CommitmentPlan(
            monthlyPrice: Price(decimal: "9.99")!, prices: ["FRA": Price(decimal: "11.99")!])
        let catalog = try Catalog(products: [plan])
        var fred = partTestChain("fred", plan)
        fred.state.commitment = CommitmentState(billingPeriodNumber: 3, expiresDate: at("P1Y"), autoRenew: true)
        let subscriptions = partTestBook([fred])
        var locks = CommitmentPriceLocks()
        locks.keepPrices(
            for: try PriceTarget.upfront(plan, to: Price(decimal: "119.99")!, in: "FRA"), of: subscriptions,
            catalog: catalog, directory: CustomerDirectory(), default: france)
        #expect(locks.isEmpty, "a rise of the up-front price locks nothing")
        locks.keepPrices(
            for: try PriceTarget.monthly(plan, to: Price(decimal: "12.99")!, in: "FRA"), of: subscriptions,
            catalog: catalog, directory: CustomerDirectory(), default: france)
        #expect(locks.kept(of: "fred", inGroup: "21000001")?.price == Price(decimal: "11.99")!)
    }

    @Test func priceIncreaseFirstRenewalByIncreaseNumber() throws {
        let subscriptions = partTestBook([partTestChain("alice"), partTestChain("bob", phase: .expired)])
        var schedule = PriceIncreaseSchedule()
        let number = schedule.add(PriceIncreaseSchedulePartTests.increase())
        let catalog = try Catalog(products: [monthly])
        let us: (String) -> Storefront = { _ in .unitedStates }
        #expect(
            schedule.awaitingNotice(of: number, in: subscriptions, catalog: catalog, storefront: us)
                == schedule.awaitingNotice(
                    of: number, target: schedule.target(of: number, in: catalog), in: subscriptions, storefront: us))
        #expect(schedule.awaitingNotice(of: number, in: subscriptions, catalog: catalog, storefront: us).count == 1)
        let state = subscriptions.chains[0].state
        #expect(
            schedule.noticeInstant(of: number, for: state)
                == PriceIncreaseSchedule.noticeInstant(of: schedule.parts.increases[number], for: state))
    }
}

/// ``SubscriptionBook``, ``ServerRequestRecords`` and ``RenewalExtensionRecord``: renewal-date extensions.
@Suite struct ExtensionFacadeMovesTests {
    @Test func membersExtendedWithTheirPurchaserRefused() throws {
        let subscriptions = partTestBook([partTestChain("alice"), partTestChain("bob", ownership: .familyShared)])
        #expect(throws: StoreError.self) {
            try subscriptions.refuseMemberShare(
                among: [ChainID(index: 1)], of: monthly.id, ownChain: nil, customer: "bob")
        }
        try subscriptions.refuseMemberShare(
            among: [ChainID(index: 0)], of: monthly.id, ownChain: ChainID(index: 0), customer: "alice")
    }

    @Test func massExtensionExtendsEligibleOnly() throws {
        var subscriptions = partTestBook([
            partTestChain("alice"), partTestChain("bob", phase: .expired), partTestChain("carol"),
        ])
        let app = AppConfiguration(bundleId: "com.example.app")
        subscriptions.failNextExtension(of: ChainID(index: 2))
        #expect(subscriptions.massExtensionStep(ChainID(index: 0), days: 7, app: app, at: testStart) == .extend)
        #expect(subscriptions.massExtensionStep(ChainID(index: 1), days: 7, app: app, at: testStart) == .skip)
        #expect(subscriptions.massExtensionStep(ChainID(index: 2), days: 7, app: app, at: testStart) == .fail)
        #expect(
            subscriptions.massExtensionStep(ChainID(index: 2), days: 7, app: app, at: testStart) == .extend,
            "the mark is used once")
    }

    @Test func extensionRequestIdentifierOnce() {
        var records = ServerRequestRecords()
        let current = TransactionRecord(
            transactionId: "2", originalTransactionId: "1", webOrderLineItemId: "w2", customer: "alice",
            productId: monthly.id, productType: .autoRenewable, subscriptionGroupIdentifier: "21000001",
            purchaseDate: testStart, originalPurchaseDate: testStart, expiresDate: at("P1M7D"), ownership: .purchased,
            reason: .renewal, offer: nil, price: Price(decimal: "9.99")!, currency: "USD", revocation: nil,
            lastModified: testStart)
        let anonymous = RenewalExtensionRecord(extended: current, of: "1", requestIdentifier: nil, at: testStart)
        #expect(anonymous.webOrderLineItemId == "w2" && anonymous.effectiveDate == at("P1M7D"))
        records.recordExtension(anonymous)
        #expect(records.earlierExtension(of: "1", requestIdentifier: nil) == nil, "without an identifier: extends")
        let named = RenewalExtensionRecord(extended: current, of: "1", requestIdentifier: "r", at: testStart)
        records.recordExtension(named)
        #expect(records.earlierExtension(of: "1", requestIdentifier: "r") == named)
        #expect(records.earlierExtension(of: "2", requestIdentifier: "r") == nil, "another subscription")
    }
}

/// ``SubscriptionBook``, ``TransactionLedger`` and ``PurchaseRequirements``: plan changes, offers, paid days.
@Suite struct PlanChangeAndOfferFacadeMovesTests {
    @Test func aPlanChangeMovesTheCustomersOwnSubscription() throws {
        let subscriptions = partTestBook([partTestChain("alice"), partTestChain("bob", ownership: .familyShared)])
        #expect(try subscriptions.chainToChange(of: "alice", to: yearly) == ChainID(index: 0))
        #expect(throws: StoreError.self, "a member's share is the purchaser's") {
            _ = try subscriptions.chainToChange(of: "bob", to: yearly)
        }
        let oneTime = Product(
            id: "coins", type: .consumable, price: Price(decimal: "0.99")!, currency: "USD")
        #expect(throws: StoreError.self, "not a subscription") {
            _ = try subscriptions.chainToChange(of: "alice", to: oneTime)
        }
    }

    @Test func howAPlanChangeTakesEffect() throws {
        let subscriptions = partTestBook([partTestChain("alice")])
        let catalog = try Catalog(products: [monthly, yearly])
        let key = ChainID(index: 0)
        let same = subscriptions.planChange(key, to: monthly, chosen: nil, in: catalog)
        #expect(same.kind == .currentProduct && same.plan == .upfront)
        let other = subscriptions.planChange(key, to: yearly, chosen: nil, in: catalog)
        #expect(other.kind == PlanChangeKind.of(from: monthly, to: yearly) && other.plan == .upfront)
        #expect(
            subscriptions.planChangeKind(key, to: yearly, in: catalog) == PlanChangeKind.of(from: monthly, to: yearly))
    }

    @Test func offerNotificationChoice() {
        let subscriptions = partTestBook([
            partTestChain("alice"), partTestChain("bob", phase: .expired), partTestChain("carol", phase: .revoked),
            partTestChain("dan", phase: .billingRetry),
        ])
        #expect(subscriptions.redemption(chain: nil) == .starts)
        #expect(subscriptions.redemption(chain: ChainID(index: 0)) == .onSubscription(ChainID(index: 0)))
        #expect(subscriptions.redemption(chain: ChainID(index: 1)) == .restarts(ChainID(index: 1)))
        #expect(subscriptions.redemption(chain: ChainID(index: 2)) == .restarts(ChainID(index: 2)))
        #expect(subscriptions.redemption(chain: ChainID(index: 3)) == .onSubscription(ChainID(index: 3)))
    }

    @Test func offerCodeBuysItsPlan() {
        var offer = SubscriptionOffer(id: "c", type: .offerCode, mode: .freeTrial, period: .months(1))
        #expect(SubscriptionBook.startPlan(of: offer) == .upfront)
        offer.plan = .monthly
        #expect(SubscriptionBook.startPlan(of: offer) == .monthly)
    }

    @Test func winBackEligibilityWithTheLedgersPaidService() throws {
        let subscriptions = partTestBook([partTestChain("alice")])
        let winBack = SubscriptionOffer(id: "w", type: .winBack, mode: .freeTrial, period: .months(1))
        #expect(throws: StoreError.self, "not after expiry") {
            try subscriptions.checkWinBackRedemption(
                winBack, of: ChainID(index: 0), productId: monthly.id, ledger: TransactionLedger(), at: testStart)
        }
        let code = SubscriptionOffer(id: "c", type: .offerCode, mode: .freeTrial, period: .months(1))
        try subscriptions.checkWinBackRedemption(
            code, of: ChainID(index: 0), productId: monthly.id, ledger: TransactionLedger(), at: testStart)
    }

    @Test func paidDaysOfServiceIsZeroWithoutAPurchase() {
        let ledger = TransactionLedger()
        #expect(ledger.paidDaysOfService(of: nil, at: at("P1Y")) == 0)
        #expect(ledger.paidDaysOfService(of: partTestChain("bob", ownership: .familyShared), at: at("P1Y")) == 0)
        #expect(ledger.paidDaysOfService(of: partTestChain("alice"), at: at("P1Y")) == 0, "nothing charged")
    }

    @Test func priceInStorefrontCurrencyForAnOffer() throws {
        let offer = SubscriptionOffer(id: "p", type: .promotional, mode: .freeTrial, period: .months(1))
        try PurchaseRequirements.checkOfferPrice(of: monthly, offer: offer, in: .unitedStates)
        #expect(throws: StoreError.self, "no price in France") {
            try PurchaseRequirements.checkOfferPrice(of: monthly, offer: offer, in: france)
        }
    }
}
