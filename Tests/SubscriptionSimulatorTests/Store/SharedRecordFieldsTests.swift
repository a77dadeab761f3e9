import Testing

@testable import SubscriptionSimulator

/// The store's compact representations (issue 15 part 1): a transaction's shared fields in one box that renewals
/// reuse, ids kept as their parts, and products found by index. Each must read exactly as the plain values did.
@Suite struct SharedRecordFieldsTests {
    static let start = Instant(millisecondsSince1970: 1_767_225_600_000)
    static let monthly = Product(
        id: "com.example.monthly", type: .autoRenewable, group: "main", period: .oneMonth,
        price: Price(decimal: "9.99")!)

    /// A store where alice has bought the monthly plan and renewed twice (three transactions in one chain).
    func renewedTwice() throws -> SimulatedStore {
        var store = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [Self.monthly]),
            start: Self.start, seed: 7)
        try store.purchase(Self.monthly.id, by: "alice")
        try store.advance(by: .days(65))
        return store
    }

    @Test func renewalsOfOneSubscriptionShareTheirFieldsBox() throws {
        let store = try renewedTwice()
        #expect(store.transactions.count == 3)
        #expect(store.transactions[1].box === store.transactions[2].box)
        #expect(store.transactions[1].transactionId != store.transactions[2].transactionId)
    }

    @Test func settingASharedFieldChangesOnlyThatRecord() throws {
        let store = try renewedTwice()
        let renewal = store.transactions[2]
        var changed = renewal
        changed.customer = "zed"
        changed.storefront = Storefront(countryCode: "FRA", id: "143442")
        #expect(changed.customer == "zed")
        #expect(changed.storefront.countryCode == "FRA")
        #expect(renewal.customer == "alice")
        #expect(store.transactions[1].customer == "alice")
        #expect(store.transactions[1].storefront == .unitedStates)
        #expect(changed != renewal)
    }

    @Test func recordsWithEqualFieldsAreEqualWhateverBoxHoldsThem() throws {
        let store = try renewedTwice()
        let r = store.transactions[2]
        let rebuilt = TransactionRecord(
            transactionId: r.transactionId, originalTransactionId: r.originalTransactionId,
            webOrderLineItemId: r.webOrderLineItemId, customer: r.customer, productId: r.productId,
            productType: r.productType, subscriptionGroupIdentifier: r.subscriptionGroupIdentifier,
            purchaseDate: r.purchaseDate, originalPurchaseDate: r.originalPurchaseDate, expiresDate: r.expiresDate,
            ownership: r.ownership, reason: r.reason, offer: r.offer, price: r.price, currency: r.currency,
            revocation: r.revocation, lastModified: r.lastModified, appTransactionId: r.appTransactionId,
            appAccountToken: r.appAccountToken, storefront: r.storefront,
            modificationSequence: r.modificationSequence, isUpgraded: r.isUpgraded)
        #expect(rebuilt.box !== r.box)
        #expect(rebuilt == r)
        #expect(rebuilt.hashValue == r.hashValue)
    }

    @Test(arguments: [0, 7, 123_456, 1_000_000, UInt64.max])
    func generatedIdentifiersReadAsRuleIdsKeepTheWholeSeedWritesThem(seed: UInt64) {
        // The rule's own words: prefix, the seed's digits padded to six, the counter padded to nine.
        func padded(_ value: UInt64, to width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        for counter: UInt32 in [1, 42, 999_999_999, 1_000_000_000] {
            let id = GeneratedIdentifier(seed: seed, prefixDigit: UInt8(ascii: "3"), counter: counter)
            #expect(id.text == "3" + padded(seed, to: 6) + padded(UInt64(counter), to: 9), "seed \(seed)")
        }
    }

    /// An identifier fits 24 bytes with its case in the padding of its parts (no tag byte after them): every
    /// notification copies a record with two of them (issue 27).
    @Test func aStoreIdentifierKeepsItsCaseInsideItsParts() {
        #expect(MemoryLayout<GeneratedIdentifier>.size == 24)
        #expect(MemoryLayout<StoreIdentifier>.size == 24)
        #expect(MemoryLayout<StoreIdentifier?>.size == 24)
    }

    @Test func aWebOrderLineItemIdIsEqualHeldAsPartsOrAsText() throws {
        let generated = StoreIdentifier.generated(
            GeneratedIdentifier(seed: 7, prefixDigit: UInt8(ascii: "3"), counter: 2))
        let text = StoreIdentifier.text("3000007000000002")
        #expect(generated == text)
        #expect(generated.hashValue == text.hashValue)
        #expect(generated != .text("3000007000000003"))
        let store = try renewedTwice()
        var record = store.transactions[2]
        #expect(record.webOrderLineItemId == "3000007100000003")
        record.webOrderLineItemId = "3000007100000003"
        #expect(record == store.transactions[2])
    }

    @Test func aRenewalsTransactionIdIsKeptAsPartsAndReadsAsTheSameDigits() throws {
        let store = try renewedTwice()
        let first = store.transactions[0]
        let renewal = store.transactions[1]
        // The first transaction's id is its originalTransactionId (text); renewals' ids are made as parts.
        #expect(first.transactionId == first.originalTransactionId)
        guard case .generated(let parts) = renewal.transactionIdentifier else {
            Issue.record("a renewal's transactionId should be kept as parts")
            return
        }
        #expect(parts.prefixDigit == UInt8(ascii: "2"))
        let source = IdentifierSource(seed: parts.seed)
        #expect(renewal.transactionId == source.transactionId(ofCustomerAt: Int(parts.owner), counter: parts.counter))
        var asText = renewal
        asText.transactionId = renewal.transactionId
        #expect(asText == renewal)
        #expect(asText.hashValue == renewal.hashValue)
        asText.transactionId = "2000007999999999"
        #expect(asText != renewal)
    }

    @Test(arguments: [3, 12])
    func theCatalogueFindsEveryProductByIdWhateverItsSize(count: Int) throws {
        let products = (0..<count).map {
            Product(id: "com.example.p\($0)", type: .consumable, price: Price(milliunits: Int64($0) * 1000))
        }
        let catalog = try Catalog(products: products)
        for (index, product) in products.enumerated() {
            #expect(catalog.index(of: product.id) == index)
            #expect(catalog[product.id]?.price == product.price)
        }
        #expect(catalog.index(of: "com.example.unknown") == nil)
        #expect(catalog["com.example.unknown"] == nil)
    }
}
