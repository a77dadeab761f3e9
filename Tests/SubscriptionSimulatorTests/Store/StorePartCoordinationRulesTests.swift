import Testing

@testable import SubscriptionSimulator

/// The refund, extension, price-increase, plan-change and offer rules the store's parts own since issue 44 (item 1,
/// session 5), each tested on the part alone: the store facade asks the part and carries out what follows.

private let yearly = Product(
    id: "com.example.pro.yearly", type: .autoRenewable, group: "pro", period: .oneYear,
    price: Price(decimal: "99.99")!, currency: "USD")

/// A chain of `customer` to `product` in `phase`, as the store would append it.
private func subscription(
    _ customer: String, _ product: Product = monthly, ownership: Ownership = .purchased,
    phase: SubscriptionPhase = .active, current: Int = -1
) -> SubscriptionChain {
    var state = SubscriptionLifecycle.freshState(
        PurchaseRequest(productId: product.id, period: product.period!), at: testStart)
    state.phase = phase
    return SubscriptionChain(
        originalTransactionId: "300000000000000\(customer.count)", customer: customer, group: product.group!,
        groupIdentifier: "21000001", ownership: ownership, sharedFrom: nil, sharingOn: false, state: state,
        originalPurchaseDate: testStart, recentSubscriptionStartDate: testStart, currentTransactionIndex: current)
}

/// A storefront by customer name: "fr…" customers shop in France, the others in the United States.
private func storefrontOf(_ customer: String) -> Storefront {
    customer.hasPrefix("fr") ? Storefronts.storefront(countryCode: "FRA")! : .unitedStates
}

private func transaction(_ type: ProductType, productId: String, customer: String = "alice") -> TransactionRecord {
    TransactionRecord(
        transactionId: "1", originalTransactionId: "1", webOrderLineItemId: nil, customer: customer,
        productId: productId, productType: type, subscriptionGroupIdentifier: nil, purchaseDate: testStart,
        originalPurchaseDate: testStart, expiresDate: nil, ownership: .purchased, reason: .purchase, offer: nil,
        price: Price(decimal: "0.99")!, currency: "USD", revocation: nil, lastModified: testStart)
}

/// ``MassExtension``: one request's days, the subscriptions it considers and its summary.
@Suite struct MassExtensionRulesTests {
    @Test func extendByOneToNinetyDays() throws {
        for days in [0, 91] {
            #expect(throws: StoreError.self) {
                _ = try MassExtension(
                    productId: monthly.id, days: days, requestIdentifier: "r", storefrontCountryCodes: [])
            }
        }
        let request = try MassExtension(
            productId: monthly.id, days: 90, requestIdentifier: "r", storefrontCountryCodes: [])
        #expect(request.isConsistent)
    }

    @Test func consideredOnlyInTheRequestsStorefronts() throws {
        let subscriptions = partTestBook([
            subscription("alice"), subscription("fred"), subscription("bob", phase: .expired),
            subscription("carol", ownership: .familyShared),
        ])
        let everywhere = try MassExtension(
            productId: monthly.id, days: 7, requestIdentifier: "r", storefrontCountryCodes: [])
        let france = try MassExtension(
            productId: monthly.id, days: 7, requestIdentifier: "r", storefrontCountryCodes: ["FRA"])
        let all = subscriptions.chains.indices.filter {
            everywhere.considers(
                chainAt: $0, in: subscriptions, storefront: storefrontOf(subscriptions.chains[$0].customer))
        }
        let french = subscriptions.chains.indices.filter {
            france.considers(
                chainAt: $0, in: subscriptions, storefront: storefrontOf(subscriptions.chains[$0].customer))
        }
        #expect(all == [0, 1], "purchasers whose subscription has not ended")
        #expect(french == [1])
    }

    @Test func massExtensionSummaryCountsPurchasers() throws {
        var request = try MassExtension(
            productId: monthly.id, days: 7, requestIdentifier: "r", storefrontCountryCodes: ["USA"])
        request.noteSucceeded()
        request.noteSucceeded()
        request.noteFailed()
        let summary = request.summary
        #expect(summary.succeededCount == 2 && summary.failedCount == 1)
        #expect(summary.requestIdentifier == "r" && summary.productId == monthly.id)
        #expect(summary.storefrontCountryCodes == ["USA"])
        #expect(request.isConsistent)
    }

    @Test func massExtensionExtendsEligibleOnly() {
        let ineligible = StoreError.lifecycle(.maximumExtensionsReached, customer: "alice", productId: monthly.id)
        #expect(MassExtension.skips(ineligible), "skipped: no notification, not counted")
        #expect(!MassExtension.skips(.lifecycle(.invalidExtendByDays(100), customer: "alice", productId: monthly.id)))
        #expect(!MassExtension.skips(.unknownCustomer("alice")), "any other refusal stops the request")
    }
}

/// ``FamilyBook``: the members' current transactions a change of the purchaser's reaches.
@Suite struct FamilyBookFanOutTests {
    @Test func fanOutReachesGrantedMembersCurrentTransactions() {
        let subscriptions = partTestBook([
            subscription("alice", current: 0), subscription("bob", ownership: .familyShared, current: 4),
            subscription("carol", ownership: .familyShared, current: -1),
        ])
        var family = FamilyBook()
        let purchaser = ChainID(index: 0)
        #expect(family.fanOutCurrentTransactions(of: purchaser, in: subscriptions).isEmpty, "nothing shared")
        family.createFamily(organizer: "alice")
        family.add("bob", toFamilyAt: 0)
        family.add("carol", toFamilyAt: 0)
        let source = Share.Source.subscription(chain: purchaser)
        family.grant(family.share(of: source, purchaser: "alice", with: "bob"), memberChain: ChainID(index: 1))
        family.grant(family.share(of: source, purchaser: "alice", with: "carol"), memberChain: ChainID(index: 2))
        #expect(
            family.fanOutCurrentTransactions(of: purchaser, in: subscriptions) == [4],
            "a member chain without a transaction yet is skipped")
    }
}

/// ``SubscriptionBook`` and ``TransactionLedger``: what a refund reads and decides.
@Suite struct RefundCoordinationRulesTests {
    @Test func aRefundOfTheCurrentTransactionRunsThroughItsChain() {
        let subscriptions = partTestBook([subscription("alice", current: 3)])
        let record = transaction(.autoRenewable, productId: monthly.id)
        #expect(subscriptions.chain(of: record, product: monthly) == ChainID(index: 0))
        #expect(subscriptions.chain(currentAt: 3, of: record, product: monthly) == ChainID(index: 0))
        #expect(subscriptions.chain(currentAt: 2, of: record, product: monthly) == nil, "an earlier period")
        let oneTime = transaction(.nonConsumable, productId: lifetime.id)
        #expect(subscriptions.chain(of: oneTime, product: lifetime) == nil)
        #expect(subscriptions.chain(of: record, product: nil) == nil, "a product the catalogue lost")
    }

    @Test func consumptionRequestForConsumablesAndSubscriptionsOnly() {
        #expect(TransactionLedger.sendsConsumptionRequest(for: .autoRenewable))
        #expect(TransactionLedger.sendsConsumptionRequest(for: .consumable))
        #expect(!TransactionLedger.sendsConsumptionRequest(for: .nonConsumable))
        #expect(!TransactionLedger.sendsConsumptionRequest(for: .nonRenewing))
    }

    @Test func refundReversalRestoresANonRenewingTerm() throws {
        var store = makeStore()
        try store.purchase(season.id, by: "alice")
        try store.purchase(lifetime.id, by: "alice")
        #expect(store.ledger.termRestoredByReversal(of: 0, product: season) == season.duration)
        #expect(store.ledger.termRestoredByReversal(of: 1, product: lifetime) == nil)
    }

    @Test func purchasePositionCountsFromOne() throws {
        var store = makeStore()
        try store.purchase(coins.id, by: "alice")
        try store.purchase(coins.id, by: "bob")
        try store.purchase(coins.id, by: "alice")
        #expect(try store.ledger.purchasePosition(of: 0) == 1)
        #expect(try store.ledger.purchasePosition(of: 2) == 2)
        #expect(try store.ledger.purchasePosition(of: 1) == 1)
    }
}

/// ``PriceTarget``, ``PriceIncreaseSchedule`` and ``CommitmentPriceLocks``: whom an increase reaches and who keeps a
/// price.
@Suite struct PriceIncreaseCoordinationRulesTests {
    @Test func anIncreaseReachesItsPlanInItsStorefronts() throws {
        let france = try PriceTarget.upfront(
            {
                var product = monthly
                product.prices["FRA"] = Price(decimal: "9.99")!
                return product
            }(), to: Price(decimal: "10.99")!, in: "FRA")
        #expect(france.reaches(subscription("fred"), in: storefrontOf("fred")))
        #expect(!france.reaches(subscription("alice"), in: storefrontOf("alice")), "another storefront")
        #expect(!france.reaches(subscription("frank", yearly), in: storefrontOf("frank")), "another product")
        #expect(!france.reaches(subscription("fay", ownership: .familyShared), in: storefrontOf("fay")), "a member")
    }

    @Test func priceIncreaseFirstRenewalTellsEachReachedChainOnce() throws {
        let subscriptions = partTestBook([
            subscription("alice"), subscription("bob", phase: .expired), subscription("carol", yearly),
            subscription("dan"),
        ])
        var schedule = PriceIncreaseSchedule()
        let number = schedule.add(PriceIncreaseSchedulePartTests.increase())
        let catalog = try Catalog(products: [monthly, yearly])
        let target = schedule.target(of: number, in: catalog)
        #expect(target.productId == monthly.id && target.plan == .upfront && target.storefront == nil)
        #expect(
            schedule.awaitingNotice(of: number, target: target, in: subscriptions, storefront: storefrontOf)
                == [ChainID(index: 0), ChainID(index: 3)])
        _ = schedule.tell(0, of: number)
        #expect(
            schedule.awaitingNotice(of: number, target: target, in: subscriptions, storefront: storefrontOf)
                == [ChainID(index: 3)])
    }

    @Test func commitmentPriceIncreaseAtCommitmentRenewal() throws {
        var plan = yearly
        plan.prices["FRA"] = Price(decimal: "109.99")!
        plan.monthlyCommitment = CommitmentPlan(
            monthlyPrice: Price(decimal: "9.99")!, prices: ["FRA": Price(decimal: "11.99")!])
        let catalog = try Catalog(products: [plan])
        let commitment = CommitmentState(billingPeriodNumber: 3, expiresDate: at("P1Y"), autoRenew: true)
        var fred = subscription("fred", plan)
        fred.state.commitment = commitment
        var alice = subscription("alice", plan)
        alice.state.commitment = commitment
        let subscriptions = partTestBook([fred, subscription("frank", plan), alice])
        let target = try PriceTarget.monthly(plan, to: Price(decimal: "12.99")!, in: "FRA")
        var locks = CommitmentPriceLocks()
        locks.keepPrices(for: target, of: subscriptions, catalog: catalog, storefront: storefrontOf)
        let kept = locks.kept(of: "fred", inGroup: "21000001")
        #expect(kept?.price == Price(decimal: "11.99")! && kept?.currency == "EUR", "the price it was sold at there")
        #expect(locks.kept(of: "frank", inGroup: "21000001") == nil, "no commitment runs")
        #expect(locks.kept(of: "alice", inGroup: "21000001") == nil, "another storefront")
        #expect(locks.isConsistent)
    }
}

/// ``SubscriptionBook``: an offer redemption's refusals.
@Suite struct OfferRedemptionRulesTests {
    @Test func offerForItsPlanRefusesAnotherPlan() throws {
        let subscriptions = partTestBook([subscription("alice")])
        var offer = SubscriptionOffer(id: "m", type: .promotional, mode: .freeTrial, period: .months(1))
        offer.plan = .monthly
        #expect(throws: StoreError.self, "a running up-front subscription redeems on its own plan") {
            try subscriptions.checkRedemptionPlan(of: offer, productId: monthly.id, chain: ChainID(index: 0))
        }
        try subscriptions.checkRedemptionPlan(of: offer, productId: monthly.id, chain: nil)
        offer.plan = nil
        try subscriptions.checkRedemptionPlan(of: offer, productId: monthly.id, chain: ChainID(index: 0))
    }

    @Test func promotionalOfferForSubscribers() throws {
        for type in [OfferType.promotional, .winBack] {
            let offer = SubscriptionOffer(id: "p", type: type, mode: .freeTrial, period: .months(1))
            #expect(throws: StoreError.self) {
                try SubscriptionBook.checkStartsSubscription(offer, customer: "alice", productId: monthly.id)
            }
        }
        let code = SubscriptionOffer(id: "c", type: .offerCode, mode: .freeTrial, period: .months(1))
        try SubscriptionBook.checkStartsSubscription(code, customer: "alice", productId: monthly.id)
    }

    @Test func aMemberHasNoSubscriptionToChangeWithAnOffer() throws {
        let subscriptions = partTestBook([subscription("alice"), subscription("bob", ownership: .familyShared)])
        try subscriptions.checkOwnSubscription(ChainID(index: 0), productId: yearly.id)
        #expect(throws: StoreError.self) {
            try subscriptions.checkOwnSubscription(ChainID(index: 1), productId: yearly.id)
        }
    }
}

/// ``OriginalTransactionAccess``: what a one-time purchase's original id gives.
@Suite struct OriginalTransactionAccessRulesTests {
    @Test func oneTimeAccessByType() {
        let owned = OriginalTransactionAccess(
            oneTime: transaction(.nonConsumable, productId: lifetime.id), termEnd: nil, at: testStart)
        #expect(owned?.kind == .nonConsumable && owned?.grantsAccess == true)
        let consumed = OriginalTransactionAccess(
            oneTime: transaction(.consumable, productId: coins.id), termEnd: nil, at: testStart)
        #expect(consumed?.grantsAccess == false)
        let term = transaction(.nonRenewing, productId: season.id)
        #expect(OriginalTransactionAccess(oneTime: term, termEnd: at("P3M"), at: at("P1M"))?.grantsAccess == true)
        #expect(OriginalTransactionAccess(oneTime: term, termEnd: nil, at: at("P1M"))?.grantsAccess == false)
        #expect(
            OriginalTransactionAccess(
                oneTime: transaction(.autoRenewable, productId: monthly.id), termEnd: nil, at: testStart) == nil)
    }
}

/// ``PriceIncreaseSchedule``: an increase with a start date enters the schedule by its rules.
@Suite struct PriceIncreaseSchedulingRulesTests {
    @Test func anIncreaseWithAStartDateIsScheduledByItsRules() throws {
        var schedule = PriceIncreaseSchedule()
        let newPrice = Price(decimal: "10.99")!
        let target = try PriceTarget.upfront(monthly, to: newPrice, in: nil)
        #expect(throws: StoreError.self, "rule price-increase-notice-lead") {
            _ = try schedule.schedule(target, to: newPrice, effective: at("1d"), consentRequired: false, at: testStart)
        }
        #expect(schedule.upcoming == 0, "a refusal schedules nothing")
        let number = try schedule.schedule(
            target, to: newPrice, effective: at("60d"), consentRequired: false, at: testStart)
        let increase = schedule.parts.increases[number]
        #expect(increase.newPrice == newPrice && !increase.needsConsent && increase.effective == at("60d"))
        #expect(throws: StoreError.self, "rule one-scheduled-price-change") {
            _ = try schedule.schedule(target, to: newPrice, effective: at("90d"), consentRequired: nil, at: testStart)
        }
        #expect(schedule.upcoming == 1 && schedule.isConsistent)
    }
}

/// ``ServerRequestRecords``: which subscription a cancellation-page view is about, and its request.
@Suite struct CancellationViewRulesTests {
    @Test func retentionViewNeedsARenewingSubscription() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.purchase(weekly.id, by: "alice")
        try store.cancel(weekly.id, by: "alice")
        let subscriptions = store.subscriptions(for: "alice")
        let any = try ServerRequestRecords.cancellableSubscription(
            among: subscriptions, productId: nil, customer: "alice")
        #expect(any.state.productId == monthly.id)
        #expect(throws: StoreError.self, "auto-renew off: no Cancel button") {
            _ = try ServerRequestRecords.cancellableSubscription(
                among: subscriptions, productId: weekly.id, customer: "alice")
        }
        #expect(throws: StoreError.self, "no such subscription") {
            _ = try ServerRequestRecords.cancellableSubscription(among: [], productId: nil, customer: "alice")
        }
    }

    @Test func retentionIdsFromTheSeedAndTheViewsNumber() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        let subscription = try #require(store.subscriptions(for: "alice").first)
        let records = ServerRequestRecords()
        let first = records.nextCancellationRequest(
            about: subscription, appAppleId: 1, locale: "en-US", seed: 7, epoch: 0, environment: .sandbox,
            at: testStart)
        let again = records.nextCancellationRequest(
            about: subscription, appAppleId: 1, locale: "en-US", seed: 7, epoch: 0, environment: .sandbox,
            at: testStart)
        let otherSeed = records.nextCancellationRequest(
            about: subscription, appAppleId: 1, locale: "en-US", seed: 8, epoch: 0, environment: .sandbox,
            at: testStart)
        #expect(first == again, "the same seed and view number: the same request")
        #expect(first.requestIdentifier != otherSeed.requestIdentifier)
        #expect(first.productId == monthly.id && first.originalTransactionId == subscription.originalTransactionId)
    }
}
