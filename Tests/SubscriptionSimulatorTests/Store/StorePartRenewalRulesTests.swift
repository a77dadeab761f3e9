import Testing

@testable import SubscriptionSimulator

/// The per-renewal rules the store's read models and parts own since issue 44 (item 1, session 5): identifiers, the
/// charge's record, account fields, renewal info and entitlements, each tested on the part alone (no store).

private let basic = Product(
    id: "com.example.basic.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
    price: Price(decimal: "4.99")!, currency: "USD")
private let yearly: Product = {
    var product = Product(
        id: "com.example.pro.yearly", type: .autoRenewable, group: "pro", period: .oneYear,
        price: Price(decimal: "99.99")!, currency: "USD")
    product.monthlyCommitment = CommitmentPlan(monthlyPrice: Price(decimal: "9.99")!)
    return product
}()
private let catalog = try! Catalog(products: [monthly, basic, yearly, lifetime, season])

/// A directory with `names` registered in order.
private func directory(_ names: [String]) -> CustomerDirectory {
    var directory = CustomerDirectory()
    var ids = IdentifierSource(seed: 1)
    for name in names { _ = directory.register(name, ids: &ids) }
    return directory
}

/// A one-time purchase of `product` by the customer, as the store records it.
private func oneTime(_ product: Product, by customer: String, id: String) -> TransactionRecord {
    TransactionRecord(
        transactionId: id, originalTransactionId: id, webOrderLineItemId: nil, customer: customer,
        productId: product.id, productType: product.type, subscriptionGroupIdentifier: nil, purchaseDate: testStart,
        originalPurchaseDate: testStart, expiresDate: nil, ownership: .purchased, reason: .purchase, offer: nil,
        price: product.price, currency: "USD", revocation: nil, lastModified: testStart)
}

/// The record `ledger` builds for `chain`'s next charge of `product`, with fixed identifiers.
private func charge(
    _ chain: inout SubscriptionChain, _ product: Product = monthly, ledger: TransactionLedger,
    locks: inout CommitmentPriceLocks
) -> TransactionRecord {
    ledger.chargeRecord(
        of: &chain, transactionId: .text("t"), webOrderLineItem: .text("w"), purchaseDate: testStart,
        expiresDate: at("P1M"), offer: nil, reason: .purchase, catalog: catalog,
        productAt: catalog.index(of: product.id)!, locks: &locks, at: testStart)
}

/// ``CustomerDirectory``: the identifiers a customer's records carry.
@Suite struct CustomerDirectoryIdentifierRulesTests {
    @Test func idsPerCustomer() {
        var directory = directory(["alice", "bob"])
        let ids = IdentifierSource(seed: 1)
        let alice = [
            directory.nextTransactionIdentifier(ofCustomerAt: 0, ids: ids),
            directory.nextTransactionIdentifier(ofCustomerAt: 0, ids: ids),
        ]
        let bob = directory.nextTransactionIdentifier(ofCustomerAt: 1, ids: ids)
        let (a, b) = (Int(directory.records[0].idPosition), Int(directory.records[1].idPosition))
        #expect(alice[0] == ids.transactionIdentifier(ofCustomerAt: a, counter: 1))
        #expect(alice[1] == ids.transactionIdentifier(ofCustomerAt: a, counter: 2))
        #expect(bob == ids.transactionIdentifier(ofCustomerAt: b, counter: 1), "bob counts his own")
        let line = directory.nextWebOrderLineItemIdentifier(ofCustomerAt: 1, ids: ids)
        #expect(line == ids.webOrderLineItemIdentifier(ofCustomerAt: b, counter: 1), "a counter of its own")
        #expect(directory.isConsistent)
    }

    @Test func aShareIsPaidForByItsPurchaser() {
        let directory = directory(["alice", "bob"])
        var share = partTestChain("bob", ownership: .familyShared)
        #expect(directory.purchaser(of: share) == "bob", "no purchaser recorded: the chain's customer")
        share.purchaserPosition = 0
        #expect(directory.purchaser(of: share) == "alice")
    }
}

/// ``TransactionLedger``: the record a subscription's charge appends.
@Suite struct TransactionLedgerChargeRulesTests {
    @Test func aFirstChargeStartsTheChain() {
        var ledger = TransactionLedger()
        _ = ledger.append(oneTime(lifetime, by: "carol", id: "1"), at: testStart)
        var locks = CommitmentPriceLocks()
        var subscription = partTestChain("alice")
        let record = charge(&subscription, ledger: ledger, locks: &locks)
        #expect(subscription.firstTransactionIndex == 1 && subscription.currentTransactionIndex == 1)
        #expect(record.productId == monthly.id && record.price == monthly.price && record.currency == "USD")
        #expect(record.originalTransactionId == subscription.originalTransactionId)
        #expect(ledger.transactions.endIndex == 1, "built, not appended")
    }

    @Test func aRenewalSharesItsPreviousFields() {
        var ledger = TransactionLedger()
        var locks = CommitmentPriceLocks()
        var subscription = partTestChain("alice")
        subscription.transactionFields = ledger.append(
            charge(&subscription, ledger: ledger, locks: &locks), at: testStart)
        let renewal = charge(&subscription, ledger: ledger, locks: &locks)
        #expect(renewal.box === subscription.transactionFields, "same product: the same shared fields")
        #expect(subscription.firstTransactionIndex == 0 && subscription.currentTransactionIndex == 1)
        subscription.state.productId = basic.id
        let changed = charge(&subscription, basic, ledger: ledger, locks: &locks)
        #expect(changed.box !== subscription.transactionFields && changed.productId == basic.id)
        #expect(changed.price == basic.price)
    }

    @Test func commitmentPriceIncreaseAtCommitmentRenewal() {
        let ledger = TransactionLedger()
        var locks = CommitmentPriceLocks()
        locks.keep(StorefrontPrice(price: Price(decimal: "7.99")!, currency: "USD"), of: "alice", inGroup: "21000001")
        var subscription = partTestChain("alice", yearly)
        subscription.state.commitment = CommitmentState(
            billingPeriodNumber: 3, expiresDate: at("P1Y"), autoRenew: true)
        let kept = charge(&subscription, yearly, ledger: ledger, locks: &locks)
        #expect(kept.price == Price(decimal: "7.99")!, "the commitment's own price")
        #expect(kept.commitment?.price == CommitmentPlan.commitmentPrice(monthly: Price(decimal: "7.99")!))
        subscription.state.commitment?.billingPeriodNumber = 1
        let next = charge(&subscription, yearly, ledger: ledger, locks: &locks)
        #expect(next.price == Price(decimal: "9.99")!, "a new commitment keeps nothing: the plan's price")
        #expect(locks.isEmpty, "its lock is dropped")
    }
}

/// ``AccountFields``: the account-level fields of records and renewal info.
@Suite struct AccountFieldsRulesTests {
    @Test func setAppAccountTokenWinsOverTheApps() {
        var directory = directory(["alice"])
        directory.setAppAccountToken("00000000-0000-0000-0000-000000000001", for: "alice")
        var requests = ServerRequestRecords()
        let purchase = "2000000000000005"
        #expect(
            AccountFields.appAccountToken(
                of: "alice", purchase: purchase, directory: directory, serverRequests: requests)
                == "00000000-0000-0000-0000-000000000001")
        requests.setAppAccountToken("00000000-0000-0000-0000-000000000002", forOriginalTransactionId: purchase)
        #expect(
            AccountFields.appAccountToken(
                of: "alice", purchase: purchase, directory: directory, serverRequests: requests)
                == "00000000-0000-0000-0000-000000000002")
    }

    @Test func aMembersRecordCarriesNoToken() {
        var directory = directory(["alice"])
        directory.setAppAccountToken("00000000-0000-0000-0000-000000000001", for: "alice")
        for ownership in [Ownership.purchased, .familyShared] {
            var record = oneTime(lifetime, by: "alice", id: "1")
            record.shared.ownership = ownership
            AccountFields.add(
                to: &record, customerAt: 0, productAt: nil, directory: directory,
                serverRequests: ServerRequestRecords(), locks: CommitmentPriceLocks(), catalog: catalog,
                defaultStorefront: .unitedStates)
            #expect(record.appTransactionId == directory.records[0].appTransactionId)
            #expect(
                (record.appAccountToken != nil) == (ownership == .purchased), "\(ownership): token only when purchased")
        }
    }
}

/// ``RenewalInfoModel``: the renewal info built from the chain and the parts it reads.
@Suite struct RenewalInfoModelRulesTests {
    private func snapshot(_ chain: SubscriptionChain, directory: CustomerDirectory) -> RenewalSnapshot {
        RenewalInfoModel.snapshot(
            of: chain, state: chain.state, productAt: nil, catalog: catalog, directory: directory,
            serverRequests: ServerRequestRecords(), schedule: PriceIncreaseSchedule(), locks: CommitmentPriceLocks(),
            ledger: TransactionLedger(), defaultStorefront: .unitedStates, at: testStart)
    }

    @Test func aDowngradeRenewsAtThePendingProductsPrice() {
        var subscription = partTestChain("alice")
        #expect(snapshot(subscription, directory: directory(["alice"])).renewalPrice == monthly.price)
        subscription.state.pendingChange = PurchaseRequest(productId: basic.id, period: basic.period!)
        let info = snapshot(subscription, directory: directory(["alice"]))
        #expect(info.autoRenewProductId == basic.id && info.renewalPrice == basic.price, "reference §5.10")
        #expect(info.productId == monthly.id)
    }

    @Test func expirationIntentOnlyOnceEnded() {
        var subscription = partTestChain("alice")
        subscription.state.endReason = .customerCancelled
        #expect(snapshot(subscription, directory: directory(["alice"])).expirationIntent == nil, "active: none")
        subscription.state.phase = .expired
        #expect(snapshot(subscription, directory: directory(["alice"])).expirationIntent == .customerCancelled)
    }

    @Test func accountFieldsOfTheChainsCustomer() {
        var directory = directory(["alice", "bob"])
        directory.setAppAccountToken("00000000-0000-0000-0000-000000000001", for: "bob")
        let own = snapshot(partTestChain("bob"), directory: directory)
        #expect(own.appTransactionId == directory.records[1].appTransactionId)
        #expect(own.appAccountToken == "00000000-0000-0000-0000-000000000001")
        let share = snapshot(partTestChain("bob", ownership: .familyShared), directory: directory)
        #expect(share.appAccountToken == nil, "a member's share carries no token (§4.5)")
        #expect(snapshot(partTestChain("nobody"), directory: directory).appTransactionId == "", "an unknown customer")
    }

    @Test(arguments: [
        (SubscriptionPhase.active, true), (.gracePeriod, true), (.billingRetry, true), (.expired, false),
        (.revoked, false),
    ])
    func commitmentFieldsOnlyInACommitment(phase: SubscriptionPhase, inCommitment: Bool) {
        var state = partTestChain("alice", yearly).state
        state.phase = phase
        #expect(RenewalInfoModel.isInCommitment(state) == inCommitment)
    }
}

/// ``EntitlementModel``: which products a customer is entitled to.
@Suite struct EntitlementModelRulesTests {
    /// A directory and a book with `chains` (all of customer 0, "alice").
    private func parts(_ chains: [SubscriptionChain]) -> (CustomerDirectory, SubscriptionBook) {
        var directory = directory(["alice"])
        var book = SubscriptionBook()
        for chain in chains { directory.addChain(book.append(chain, customerAt: 0), toCustomerAt: 0) }
        return (directory, book)
    }

    @Test func oneSubscriptionDecidedWithoutDeriving() {
        var (directory, book) = parts([partTestChain("alice")])
        #expect(!EntitlementModel.unchanged(ofCustomerAt: 0, directory: directory, book: book), "newly entitled")
        directory.setEntitlements([monthly.id], ofCustomerAt: 0)
        #expect(EntitlementModel.unchanged(ofCustomerAt: 0, directory: directory, book: book))
        (directory, book) = parts([partTestChain("alice"), partTestChain("alice", basic)])
        directory.setEntitlements([basic.id, monthly.id], ofCustomerAt: 0)
        #expect(
            !EntitlementModel.unchanged(ofCustomerAt: 0, directory: directory, book: book),
            "two subscriptions: derive them")
    }

    @Test func derivedFromSubscriptionsAndPurchases() {
        let made = parts([
            partTestChain("alice"), partTestChain("alice", basic, phase: .expired),
            partTestChain("alice", yearly, phase: .gracePeriod),
        ])
        var directory = made.0
        let book = made.1
        var ledger = TransactionLedger()
        for (index, product) in [lifetime, lifetime, season].enumerated() {
            _ = ledger.append(oneTime(product, by: "alice", id: "\(index)"), at: testStart)
            directory.addOneTimePurchase(index, toCustomerAt: 0)
        }
        ledger.startTerm(of: 2, ending: at("P3M"))
        let during = EntitlementModel.derived(
            ofCustomerAt: 0, directory: directory, book: book, ledger: ledger, at: at("P1M"))
        #expect(during == [lifetime.id, season.id, monthly.id, yearly.id].sorted(), "sorted, each once")
        let after = EntitlementModel.derived(
            ofCustomerAt: 0, directory: directory, book: book, ledger: ledger, at: at("P3M"))
        #expect(after == [lifetime.id, monthly.id, yearly.id].sorted(), "a non-renewing term ends")
    }
}

/// ``PurchaseRequirements``: what the catalogue must offer in the customer's storefront before a purchase.
@Suite struct PurchaseRequirementRulesTests {
    private let france = Storefront(countryCode: "FRA", id: "143442")

    @Test func priceInStorefrontCurrency() throws {
        let book = SubscriptionBook()
        #expect(throws: StoreError.self, "no EUR price") {
            try PurchaseRequirements.checkPrice(of: monthly, for: "alice", in: france, plan: .upfront, book: book)
        }
        var priced = monthly
        priced.prices = ["FRA": Price(decimal: "9.49")!]
        try PurchaseRequirements.checkPrice(of: priced, for: "alice", in: france, plan: .upfront, book: book)
        try PurchaseRequirements.checkPrice(of: monthly, for: "alice", in: .unitedStates, plan: .upfront, book: book)
    }

    @Test func theIntroductoryOfferTheCustomerWouldGetNeedsAPriceToo() throws {
        var product = Product(
            id: "com.example.intro.monthly", type: .autoRenewable, group: "intro", period: .oneMonth,
            price: Price(decimal: "4.99")!, currency: "USD",
            introOffer: IntroductoryOffer(mode: .payUpFront, period: .months(3), price: Price(decimal: "9.99")!))
        product.prices = ["FRA": Price(decimal: "4.49")!]
        var book = SubscriptionBook()
        #expect(throws: StoreError.self, "a paid offer with no EUR price") {
            try PurchaseRequirements.checkPrice(of: product, for: "alice", in: france, plan: .upfront, book: book)
        }
        try PurchaseRequirements.checkPrice(of: product, for: "alice", in: france, plan: nil, book: book)
        book.markIntroOfferUsed(SubscriptionBook.customerGroupKey("alice", "intro"))
        try PurchaseRequirements.checkPrice(of: product, for: "alice", in: france, plan: .upfront, book: book)
    }

    @Test func commitmentPlanNeedsOneYearAndItsStorefronts() throws {
        var priced = yearly
        priced.prices = ["FRA": Price(decimal: "94.99")!]
        priced.monthlyCommitment?.prices = ["FRA": Price(decimal: "9.49")!]
        let catalog = try Catalog(products: [priced, monthly])
        #expect(throws: StoreError.self, "commitment-plan-needs-one-year") {
            try PurchaseRequirements.checkCommitmentPlan(of: monthly, in: france, catalog: catalog)
        }
        #expect(throws: StoreError.self, "commitment-storefronts: not sold in the USA") {
            try PurchaseRequirements.checkCommitmentPlan(of: priced, in: .unitedStates, catalog: catalog)
        }
        try PurchaseRequirements.checkCommitmentPlan(of: priced, in: france, catalog: catalog)
        #expect(throws: StoreError.self, "no price in the storefront") {
            try PurchaseRequirements.checkCommitmentPlan(
                of: priced, in: Storefront(countryCode: "GBR", id: "143444"), catalog: catalog)
        }
    }
}
