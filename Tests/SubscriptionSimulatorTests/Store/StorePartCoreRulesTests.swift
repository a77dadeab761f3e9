import Testing

@testable import SubscriptionSimulator

/// The rules the store facade's core operations moved into the parts (issue 44, session 6): sending notifications,
/// refreshing entitlements, recording transactions, the app transaction, access by `originalTransactionId`, order ids
/// and the StoreKit store's app; each tested on the part alone (no store).

/// A directory with `names` registered in order.
private func directory(_ names: [String]) -> CustomerDirectory {
    var directory = CustomerDirectory()
    var ids = IdentifierSource(seed: 1)
    for name in names { _ = directory.register(name, ids: &ids) }
    return directory
}

/// A purchase of `product` by `customer` with transaction id `id`, as the store builds it before recording it.
private func record(
    _ product: Product, by customer: String, id: String, original: String? = nil, ownership: Ownership = .purchased,
    purchased: Instant = testStart
) -> TransactionRecord {
    TransactionRecord(
        transactionId: id, originalTransactionId: original ?? id, webOrderLineItemId: nil, customer: customer,
        productId: product.id, productType: product.type, subscriptionGroupIdentifier: nil, purchaseDate: purchased,
        originalPurchaseDate: purchased, expiresDate: product.type == .autoRenewable ? at("P1M") : nil,
        ownership: ownership, reason: .purchase, offer: nil, price: product.price, currency: "USD", revocation: nil,
        lastModified: purchased)
}

private let catalog = try! Catalog(products: [monthly, lifetime, coins, season])

/// `record` recorded in `ledger` as the store records it (customer at `position`).
private func append(
    _ record: TransactionRecord, at position: Int, to ledger: inout TransactionLedger,
    directory: inout CustomerDirectory, now: Instant = testStart
) {
    _ = ledger.record(
        record, customerAt: position, productAt: nil, directory: &directory, serverRequests: ServerRequestRecords(),
        locks: CommitmentPriceLocks(), catalog: catalog, defaultStorefront: AppConfiguration(bundleId: "b").storefront,
        seed: 1, at: now)
}

/// ``EmissionLog``: what sending a notification records.
@Suite struct EmissionLogSendingRulesTests {
    /// Rule ids-per-customer: each notification's UUID is its recipient's next; the recipient is marked for a
    /// refresh; the notification carries the recipient's event group (rule order-key).
    @Test func sendUsesTheRecipientsUUIDAndGroup() {
        var directory = directory(["alice", "bob"])
        directory.setEventGroups([7, 9])
        var bob = directory.records[1]
        let expected = bob.nextNotificationUUID()
        var log = EmissionLog()
        log.noteOrder()
        log.send(
            .subscribed, .initialBuy, to: "bob", at: 1, directory: &directory,
            transaction: record(monthly, by: "bob", id: "1"), renewal: nil, status: .active, restored: false,
            at: testStart)
        #expect(log.notifications.count == 1)
        #expect(log.notifications[0].uuid == expected && log.notifications[0].recipient == "bob")
        #expect(log.notificationOrder[0].group == 9)
        #expect(directory.toRefresh == [1])
        #expect(directory.records[0].notificationUUIDs == 0 && directory.records[1].notificationUUIDs == 1)
    }

    /// Rule ``SentNotification/isAboutTheApp``: no recipient, no transaction, event group 0.
    @Test func aboutTheAppHasNoCustomer() {
        var log = EmissionLog()
        log.noteOrder()
        var ids = IdentifierSource(seed: 1)
        let sent = log.sendAboutTheApp(.test, nil, summary: nil, uuid: ids.nextStoreNotificationUUID(), at: testStart)
        #expect(sent.recipient == nil && sent.transaction == nil && sent.isAboutTheApp)
        #expect(log.notifications == [sent] && log.notificationOrder[0].group == 0)
    }

    /// Rule rescind-consent: `RESCIND_CONSENT`, no subtype, with the customer's app transaction and no `data`.
    @Test func rescindConsentCarriesTheAppTransaction() {
        var directory = directory(["alice"])
        let app = AppTransactionRecord(
            appTransactionId: "a", originalPurchaseDate: testStart, originalPlatform: .iOS,
            receiptCreationDate: at("P1D"))
        var log = EmissionLog()
        log.sendRescindConsent(to: "alice", at: 0, appTransaction: app, directory: &directory, at: at("P1D"))
        let sent = log.notifications[0]
        #expect(sent.type == .rescindConsent && sent.subtype == nil && sent.appTransaction == app)
        #expect(sent.transaction == nil && sent.renewal == nil && directory.toRefresh == [0])
    }

    /// Rule test-notification-token: the UUID, an underscore, the signed date in milliseconds; it finds the test.
    @Test func testNotificationTokenFindsItsTest() {
        var log = EmissionLog()
        var ids = IdentifierSource(seed: 1)
        let sent = log.sendAboutTheApp(.test, nil, summary: nil, uuid: ids.nextStoreNotificationUUID(), at: testStart)
        let token = EmissionLog.testNotificationToken(of: sent)
        #expect(token == "\(sent.notificationUUID)_\(testStart.millisecondsSince1970)")
        #expect(log.testNotification(token: token) == sent)
        #expect(log.testNotification(token: sent.notificationUUID) == nil)
    }
}

/// ``CustomerDirectory/refreshEntitlements(book:ledger:emissions:at:)``.
@Suite struct EntitlementRefreshRulesTests {
    /// Each marked customer once, in the order first named; a change is logged only when the products differ.
    @Test func logsEachChangeOnceInNameOrder() {
        var directory = directory(["alice", "bob", "carol"])
        let book = partTestBook([partTestChain("bob"), partTestChain("alice", phase: .expired)])
        directory.addChain(ChainID(index: 0), toCustomerAt: 1)
        directory.addChain(ChainID(index: 1), toCustomerAt: 0)
        for position in [2, 1, 0, 1] { directory.needsRefresh(ofCustomerAt: position) }
        var emissions = EmissionLog()
        directory.refreshEntitlements(book: book, ledger: TransactionLedger(), emissions: &emissions, at: testStart)
        #expect(emissions.entitlementChanges.map(\.customer) == ["bob"])
        #expect(emissions.entitlementChanges[0].products == [monthly.id])
        #expect(directory.records[1].entitlements == [monthly.id] && directory.toRefresh.isEmpty)
        // Nothing changed since: a second refresh logs nothing.
        directory.needsRefresh(ofCustomerAt: 1)
        directory.refreshEntitlements(book: book, ledger: TransactionLedger(), emissions: &emissions, at: testStart)
        #expect(emissions.entitlementChanges.count == 1)
    }
}

/// ``TransactionLedger``: recording a transaction, and dropping superseded renewals.
@Suite struct TransactionRecordingRulesTests {
    /// A one-time purchase is indexed by customer; every record gets the customer's `appTransactionId` and the
    /// next place in the modification order.
    @Test func recordsIndexOneTimePurchasesAndSetAccountFields() {
        var directory = directory(["alice"])
        var ledger = TransactionLedger()
        append(record(monthly, by: "alice", id: "1"), at: 0, to: &ledger, directory: &directory)
        append(record(lifetime, by: "alice", id: "2"), at: 0, to: &ledger, directory: &directory)
        #expect(directory.records[0].oneTimePurchases == [1])
        #expect(ledger.transactions.map(\.modificationSequence) == [1, 2])
        #expect(ledger.transactions[1].appTransactionId == directory.records[0].appTransactionId)
    }

    /// Superseded renewals stay while the window is small (at most 4,096).
    @Test func smallWindowsStay() {
        var directory = directory(["alice"])
        var ledger = TransactionLedger()
        for id in 1...3 { append(record(monthly, by: "alice", id: "\(id)"), at: 0, to: &ledger, directory: &directory) }
        ledger.dropSupersededRenewals(book: partTestBook([partTestChain("alice", current: 2)]))
        #expect(ledger.transactions.windowCount == 3)
    }
}

/// Read models: the app transaction, access by `originalTransactionId`, order ids, the current chain.
@Suite struct CoreReadModelRulesTests {
    /// Rule app-transaction-of-a-customer: the first transaction's purchase date, else the store's start; nil for
    /// a customer never met.
    @Test func appTransactionOfACustomer() {
        var directory = directory(["alice", "bob"])
        var ledger = TransactionLedger()
        append(record(coins, by: "alice", id: "1", purchased: at("P2D")), at: 0, to: &ledger, directory: &directory)
        func app(_ name: String) -> AppTransactionRecord? {
            AppTransactionRecord(
                of: name, directory: directory, transactions: ledger.transactions, platform: .iOS, start: testStart,
                at: at("P3D"))
        }
        #expect(app("alice")?.originalPurchaseDate == at("P2D"))
        #expect(app("bob")?.originalPurchaseDate == testStart)
        #expect(app("bob")?.receiptCreationDate == at("P3D"))
        #expect(app("carol") == nil)
    }

    /// A chain's id gives the chain; a one-time purchase's original id gives it; another id gives nil.
    @Test func accessByOriginalTransactionId() {
        var directory = directory(["alice"])
        var ledger = TransactionLedger()
        append(record(lifetime, by: "alice", id: "9"), at: 0, to: &ledger, directory: &directory)
        let chain = partTestChain("alice")
        let book = partTestBook([chain])
        let subscription = OriginalTransactionAccess(
            of: chain.originalTransactionId, book: book, ledger: ledger, at: testStart)
        #expect(subscription?.kind == .subscription && subscription?.grantsAccess == true)
        let oneTime = OriginalTransactionAccess(of: "9", book: book, ledger: ledger, at: testStart)
        #expect(oneTime?.kind == .nonConsumable && oneTime?.productId == lifetime.id)
        #expect(OriginalTransactionAccess(of: "8", book: book, ledger: ledger, at: testStart) == nil)
    }

    /// Rule order-id-from-the-seed: a purchased transaction's order id finds it; a family member's has none.
    @Test func orderIdsOfPurchasesOnly() {
        var directory = directory(["alice", "bob"])
        var ledger = TransactionLedger()
        append(record(lifetime, by: "alice", id: "1"), at: 0, to: &ledger, directory: &directory)
        append(
            record(lifetime, by: "bob", id: "2", ownership: .familyShared), at: 1, to: &ledger, directory: &directory)
        let id = ServerRequestRecords.orderId(of: ledger.transactions[0], seed: 1)
        #expect(id == ServerRequestRecords.orderId(ofTransaction: "1", seed: 1))
        #expect(ServerRequestRecords.orderId(of: ledger.transactions[1], seed: 1) == nil)
        let found = ServerRequestRecords.transactions(inOrder: id!, among: ledger.transactions, seed: 1)
        #expect(found.map(\.transactionId) == ["1"])
        #expect(ServerRequestRecords.transactions(inOrder: "nope", among: ledger.transactions, seed: 1).isEmpty)
    }

    /// The customer's chain in the product's group counts only while the product is its current one.
    @Test func currentChainOfAProduct() {
        let book = partTestBook([partTestChain("alice")])
        let other = Product(
            id: "com.example.pro.yearly", type: .autoRenewable, group: monthly.group, period: .oneYear,
            price: Price(decimal: "99.99")!, currency: "USD")
        #expect(book.chain(of: "alice", current: monthly) == ChainID(index: 0))
        #expect(book.chain(of: "alice", current: other) == nil)
        #expect(book.chain(of: "bob", current: monthly) == nil)
        #expect(book.chain(of: "alice", current: lifetime) == nil)
    }

    /// A StoreKit file's settings: `_billingGracePeriodEnabled` gives 16 days, `_storefront` the storefront.
    @Test func storeKitApp() throws {
        var configuration = StoreKitConfiguration(
            file: "f.storekit", products: [monthly], groups: [], storefront: nil, currency: "USD",
            billingGracePeriodEnabled: true, otherSettings: [], formatVersion: nil, notes: [])
        #expect(configuration.app(bundleId: "b").gracePeriod == .sixteenDays)
        #expect(configuration.app(bundleId: "b").storefront == AppConfiguration(bundleId: "b").storefront)
        configuration.billingGracePeriodEnabled = nil
        #expect(configuration.app(bundleId: "b").gracePeriod == AppConfiguration(bundleId: "b").gracePeriod)
        #expect(try configuration.catalog(file: "f.storekit").products.map(\.id) == [monthly.id])
    }
}

/// The sale status, charge identifiers, storefront, lifecycle check, retention app id and consumption bodies.
@Suite struct CorePartRulesTests {
    /// Off sale, a product cannot be bought; taking it off twice or restoring it while on sale is refused.
    @Test func saleStatus() throws {
        var status = SaleStatus()
        #expect(status.isForSale(monthly.id))
        try status.remove(monthly.id)
        #expect(!status.isForSale(monthly.id) && status.isForSale(lifetime.id))
        #expect(throws: StoreError.productNotForSale(monthly.id)) { try status.checkForSale(monthly.id) }
        #expect(throws: StoreError.alreadyRemovedFromSale(monthly.id)) { try status.remove(monthly.id) }
        try status.restore(monthly.id)
        #expect(status.removed.isEmpty)
        #expect(throws: StoreError.alreadyOnSale(monthly.id)) { try status.restore(monthly.id) }
    }

    /// Reference §2.5: a first charge's transaction id is the chain's originalTransactionId; a later one is the
    /// customer's next (rule ids-per-customer); the web order line item id is the customer's next either way.
    @Test func chargeIdentifiers() {
        var directory = directory(["alice"])
        let ids = IdentifierSource(seed: 1)
        let first = directory.chargeIdentifiers(of: partTestChain("alice"), customerAt: 0, ids: ids)
        #expect(first.transaction == .text(partTestChain("alice").originalTransactionId))
        #expect(first.webOrderLineItem == ids.webOrderLineItemIdentifier(ofCustomerAt: 0, counter: 1))
        let renewal = directory.chargeIdentifiers(of: partTestChain("alice", current: 0), customerAt: 0, ids: ids)
        #expect(renewal.transaction == ids.transactionIdentifier(ofCustomerAt: 0, counter: 1))
        #expect(renewal.webOrderLineItem == ids.webOrderLineItemIdentifier(ofCustomerAt: 0, counter: 2))
    }

    /// Rule storefront-fixed-per-customer: the storefront changes until the customer has a purchase; setting the
    /// one they are in is always allowed.
    @Test func storefrontFixedOnceBought() throws {
        var directory = directory(["alice"])
        let usa = AppConfiguration(bundleId: "b").storefront
        let france = try #require(Storefronts.storefront(countryCode: "FRA"))
        try directory.setStorefront(france, ofCustomerAt: 0, default: usa)
        #expect(directory.storefront(of: "alice", default: usa) == france)
        directory.addChain(ChainID(index: 0), toCustomerAt: 0)
        try directory.setStorefront(france, ofCustomerAt: 0, default: usa)
        #expect(throws: StoreError.storefrontFixed(customer: "alice", storefront: "FRA")) {
            try directory.setStorefront(usa, ofCustomerAt: 0, default: usa)
        }
    }

    /// The lifecycle table's refusal, without a change: turning auto-renew on twice is refused.
    @Test func checkAllowedThrowsTheTablesRule() throws {
        let app = AppConfiguration(bundleId: "b")
        let chain = partTestChain("alice")
        try LifecycleContext.checkAllowed(
            .autoRenewDisabled, on: chain, directory: directory(["alice"]), saleStatus: SaleStatus(), app: app,
            at: testStart)
        #expect(throws: StoreError.self) {
            try LifecycleContext.checkAllowed(
                .autoRenewEnabled, on: chain, directory: directory(["alice"]), saleStatus: SaleStatus(), app: app,
                at: testStart)
        }
    }

    /// A cancellation-page view needs the app's `appAppleId`; a consumption body is kept under the transaction it
    /// was received for.
    @Test func appAppleIdAndConsumptionBodies() throws {
        #expect(try ServerRequestRecords.requireAppAppleId(42) == 42)
        #expect(throws: StoreError.self) { try ServerRequestRecords.requireAppAppleId(nil) }
        var records = ServerRequestRecords()
        records.keep(
            ConsumptionInformation(transactionId: "x", version: 1, receivedAt: testStart, body: .null), for: "7")
        #expect(records.consumptionInformation.map(\.transactionId) == ["7"])
    }
}
