import Testing

@testable import SubscriptionSimulator

/// appTransactionId, storefronts, prices per storefront, appAccountToken, and ids that keep the whole seed.
@Suite struct AccountFieldsTests {
    let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    func decoded(_ n: SentNotification, _ store: SimulatedStore) -> JSONValue {
        NotificationEncoder.decodedView(of: n, app: store.app)
    }

    func familyStore(seed: UInt64 = 1) throws -> SimulatedStore {
        let shared = Product(
            id: "com.example.family.monthly", type: .autoRenewable, group: "family", period: .oneMonth,
            price: Price(decimal: "14.99")!, familyShareable: true, prices: ["FRA": Price(decimal: "14.49")!])
        var store = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [shared]),
            start: testStart, seed: seed)
        try store.createFamily(organizer: "alice", members: ["bob"])
        return store
    }

    @Test func idsKeepTheWholeSeed() throws {
        var a = makeStore(seed: 1_000_000)
        var b = makeStore(seed: 131_734)
        try a.purchase(monthly.id, by: "alice")
        try b.purchase(monthly.id, by: "alice")
        #expect(a.transactions[0].transactionId != b.transactions[0].transactionId)
        #expect(a.transactions[0].webOrderLineItemId != b.transactions[0].webOrderLineItemId)
        #expect(a.transactions[0].transactionId == "21000000100000001")
        // Seeds below a million keep Apple's 16 digits; up to 999,999,999 ids fit a signed 64-bit integer.
        #expect(IdentifierSource(seed: 131_734).identifier(prefix: "2", counter: 1) == "2131734000000001")
        #expect(Int64(IdentifierSource(seed: 999_999_999).identifier(prefix: "2", counter: 999_999_999)) != nil)
        let largest = IdentifierSource(seed: .max).identifier(prefix: "2", counter: 1)
        #expect(largest == "2" + String(UInt64.max) + "000000001")
    }

    @Test func appTransactionIdIsOnePerAccountAndDifferentPerFamilyMember() throws {
        var store = try familyStore()
        try store.purchase("com.example.family.monthly", by: "alice")
        try store.advance(by: .months(2))
        #expect(store.notifications.contains { $0.recipient == "bob" })
        for n in store.notifications {
            guard let recipient = n.recipient else { continue }
            let view = decoded(n, store)
            let expected = store.appTransactionId(of: recipient)
            #expect(view.value(at: "data.signedTransactionInfo.appTransactionId")?.stringValue == expected)
            #expect(view.value(at: "data.signedRenewalInfo.appTransactionId")?.stringValue == expected)
        }
        #expect(store.appTransactionId(of: "alice") != store.appTransactionId(of: "bob"))
        #expect(store.appTransactionId(of: "alice")?.allSatisfy(\.isNumber) == true)
    }

    @Test func priceInStorefrontCurrency() throws {
        var store = try familyStore()
        try store.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "alice")
        try store.purchase("com.example.family.monthly", by: "alice")
        let view = decoded(store.notifications[0], store)
        #expect(view.value(at: "data.signedTransactionInfo.storefront")?.stringValue == "FRA")
        #expect(view.value(at: "data.signedTransactionInfo.storefrontId")?.stringValue == "143442")
        #expect(view.value(at: "data.signedTransactionInfo.currency")?.stringValue == "EUR")
        #expect(view.value(at: "data.signedTransactionInfo.price") == .integer(14_490))
        #expect(view.value(at: "data.signedRenewalInfo.renewalPrice") == .integer(14_490))
        #expect(view.value(at: "data.signedRenewalInfo.currency")?.stringValue == "EUR")
        // No price in GBR: the purchase is refused, naming the rule.
        try store.setStorefront(Storefronts.storefront(countryCode: "GBR")!, for: "carol")
        #expect(throws: StoreError.noPriceInStorefront(productId: "com.example.family.monthly", storefront: "GBR")) {
            try store.purchase("com.example.family.monthly", by: "carol")
        }
        // A storefront is fixed once the customer has a transaction.
        #expect(throws: StoreError.storefrontFixed(customer: "alice", storefront: "FRA")) {
            try store.setStorefront(.unitedStates, for: "alice")
        }
    }

    @Test func storefrontFromCurrency() throws {
        func decode(_ currency: String, extra: String = "") throws -> Scenario {
            try ScenarioDecoder(file: "s.yaml").decode(
                """
                name: t
                start: 2026-03-01T09:00:00Z
                app: { bundleId: com.example.app\(extra) }
                products:
                  - { id: m, type: autoRenewable, group: pro, period: P1M, price: 9.99, currency: \(currency) }
                timeline:
                  - at: 0
                    purchase: { customer: alice, product: m }
                """)
        }
        #expect(try decode("GBP").app.storefront == Storefronts.storefront(countryCode: "GBR"))
        #expect(try decode("USD").app.storefront == .unitedStates)
        #expect(try decode("EUR", extra: ", storefront: DEU").app.storefront.countryCode == "DEU")
        #expect(throws: ScenarioError.self) { try decode("EUR") }
        let run = try ScenarioRunner.run(try decode("EUR", extra: ", storefront: DEU"))
        let view = NotificationEncoder.decodedView(of: run.store.notifications[0], app: run.store.app)
        #expect(view.value(at: "data.signedTransactionInfo.storefront")?.stringValue == "DEU")
        #expect(view.value(at: "data.signedTransactionInfo.currency")?.stringValue == "EUR")
    }

    @Test func appAccountTokenFollowsThePurchaserNeverTheMembers() throws {
        var store = try familyStore()
        try store.purchase("com.example.family.monthly", by: "alice", appAccountToken: token)
        try store.advance(by: .months(1))
        let alice = store.notifications.filter { $0.recipient == "alice" }
        #expect(alice.count == 2)  // SUBSCRIBED, then DID_RENEW: the renewal carries the token too
        for n in alice {
            #expect(decoded(n, store).value(at: "data.signedTransactionInfo.appAccountToken")?.stringValue == token)
            #expect(decoded(n, store).value(at: "data.signedRenewalInfo.appAccountToken")?.stringValue == token)
        }
        let bob = store.notifications.filter { $0.recipient == "bob" }
        #expect(!bob.isEmpty)
        for n in bob {
            #expect(decoded(n, store).value(at: "data.signedTransactionInfo.appAccountToken") == nil)
            #expect(decoded(n, store).value(at: "data.signedRenewalInfo.appAccountToken") == nil)
        }
    }

    @Test(arguments: [
        "7E3FB20B-4CDB-47CC-936D-99D65F608138", "7e3fb20b4cdb47cc936d99d65f608138", "not-a-uuid",
        "7e3fb20b-4cdb-47cc-936d-99d65f60813g", "",
    ])
    func appAccountTokenIsAUUID(text: String) throws {
        var store = makeStore()
        #expect(AppAccountToken.problem(with: text) != nil)
        #expect(throws: StoreError.self) { try store.purchase(monthly.id, by: "alice", appAccountToken: text) }
        #expect(store.notifications.isEmpty)
        #expect(AppAccountToken.problem(with: token) == nil)
    }
}
