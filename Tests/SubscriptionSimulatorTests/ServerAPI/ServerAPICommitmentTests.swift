import Testing

@testable import SubscriptionSimulator

/// The App Store Server API answers carry a commitment's fields (reference Appendix E.2, E.4: Server API 1.21), and
/// the store refuses the plan where it cannot be bought (rule commitment-storefronts).
@Suite struct ServerAPICommitmentTests {
    static let annual: Product = {
        var product = Product(
            id: "com.example.plus.annual", type: .autoRenewable, group: "plus", period: .oneYear,
            price: Price(decimal: "109.99")!, currency: "GBP")
        product.monthlyCommitment = CommitmentPlan(monthlyPrice: Price(decimal: "10.99")!)
        return product
    }()

    static func store() throws -> SimulatedStore {
        let catalog = try Catalog(products: [annual])
        return SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app", appAppleId: 1_234_567_890), catalog: catalog,
            start: testStart, seed: 1)
    }

    @Test func statusesAndTransactionInfoCarryTheCommitmentFields() throws {
        var store = try Self.store()
        try store.setStorefront(Storefronts.storefront(countryCode: "GBR")!, for: "alice")
        try store.purchase(Self.annual.id, by: "alice", plan: .monthly)
        try store.advance(to: at("P2M5D"))
        let api = ServerAPI(store)
        let statuses = api.allSubscriptionStatuses(for: "alice")
        let last = statuses.value(at: "data.0.lastTransactions.0")
        let transaction = try JWS.decodePayload(last?.value(at: "signedTransactionInfo")?.stringValue ?? "")
        let renewal = try JWS.decodePayload(last?.value(at: "signedRenewalInfo")?.stringValue ?? "")
        #expect(transaction.value(at: "billingPlanType") == .string("MONTHLY"))
        #expect(transaction.value(at: "commitmentInfo.billingPeriodNumber") == .integer(3))
        #expect(transaction.value(at: "commitmentInfo.commitmentPrice") == .integer(131_880))
        #expect(transaction.value(at: "price") == .integer(10_990))
        #expect(renewal.value(at: "renewalBillingPlanType") == .string("MONTHLY"))
        #expect(renewal.value(at: "commitmentInfo.commitmentAutoRenewStatus") == .integer(1))
        #expect(
            renewal.value(at: "commitmentInfo.commitmentRenewalDate")
                == .integer(at("P1Y").millisecondsSince1970))
        let first = store.transactions[0].transactionId
        let info = try JWS.decodePayload(
            try api.transactionInfo(transactionId: first).value(at: "signedTransactionInfo")?.stringValue ?? "")
        #expect(info.value(at: "commitmentInfo.billingPeriodNumber") == .integer(1))
    }

    @Test func thePlanIsRefusedInTheUnitedStatesAndOnAProductWithoutIt() throws {
        var store = try Self.store()
        #expect(throws: StoreError.self) { try store.purchase(Self.annual.id, by: "bob", plan: .monthly) }
        #expect(store.transactions.isEmpty)
        var plain = Self.annual
        plain.monthlyCommitment = nil
        var other = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [plain]),
            start: testStart, seed: 1)
        try other.setStorefront(Storefronts.storefront(countryCode: "GBR")!, for: "carol")
        #expect(throws: StoreError.self) { try other.purchase(plain.id, by: "carol", plan: .monthly) }
    }

    /// The StoreKit device view: each month's transaction arrives in `Transaction.updates` with its commitment
    /// (StoreKit `Transaction.commitmentInfo`, reference Appendix E O6).
    @Test func deviceViewSeesEachMonthsTransactionWithItsPeriodNumber() throws {
        var store = try Self.store()
        try store.setStorefront(Storefronts.storefront(countryCode: "GBR")!, for: "alice")
        try store.purchase(Self.annual.id, by: "alice", plan: .monthly)
        try store.advance(to: at("P2M5D"))
        let numbers = store.deviceEvents(for: "alice").compactMap { event -> Int? in
            if case .transaction(_, let record) = event.kind { return record.commitment?.billingPeriodNumber }
            return nil
        }
        #expect(numbers == [1, 2, 3])
    }
}
