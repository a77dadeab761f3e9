import Testing

@testable import SubscriptionSimulator

/// The read views' raw JSON, as a server would send it, kept as goldens in Golden/ServerAPI/ named
/// `<case>.<Apple's model>.json`. CI parses each with Apple's library models (Tests/Conformance/decode_server_api.py).
@Suite struct ServerAPIGoldenTests {
    /// A French family (alice purchases with an account token, bob shares), a refund of a one-time purchase, and a
    /// sync before and after a subscription refund.
    static func responses() throws -> [(name: String, body: JSONValue)] {
        let family = Product(
            id: "com.example.family.monthly", type: .autoRenewable, group: "family", period: .oneMonth,
            price: Price(decimal: "14.99")!, familyShareable: true, prices: ["FRA": Price(decimal: "14.49")!])
        var store = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app", appAppleId: 1_234_567_890),
            catalog: try Catalog(products: [family, lifetime]), start: testStart, seed: 11)
        try store.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "alice")
        try store.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "bob")
        try store.createFamily(organizer: "alice", members: ["bob"])
        try store.purchase(family.id, by: "alice", appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        try store.purchase(lifetime.id, by: "carol")
        try store.advance(by: .months(1))
        let synced = try ServerAPI(store).transactionHistory(for: "alice", query: TransactionHistoryQuery())
        try store.advance(by: .days(3))
        try store.refund(family.id, of: "alice")
        try store.refund(lifetime.id, of: "carol")
        let revision = synced.value(at: "revision")?.stringValue
        return [
            ("history-first-sync.HistoryResponse", synced),
            (
                "history-after-refund.HistoryResponse",
                try ServerAPI(store).transactionHistory(
                    for: "alice", query: TransactionHistoryQuery(revision: revision))
            ),
            (
                "history-member-descending.HistoryResponse",
                try ServerAPI(store).transactionHistory(for: "bob", query: TransactionHistoryQuery(sort: .descending))
            ),
            ("statuses-alice.StatusResponse", ServerAPI(store).allSubscriptionStatuses(for: "alice")),
            (
                "statuses-bob-revoked.StatusResponse",
                ServerAPI(store).allSubscriptionStatuses(
                    for: "bob", query: SubscriptionStatusQuery(statuses: [.revoked]))
            ),
            (
                "transaction-info.TransactionInfoResponse",
                try ServerAPI(store).transactionInfo(transactionId: store.transactions(for: "carol")[0].transactionId)
            ),
            ("refunds-carol.RefundHistoryResponse", try ServerAPI(store).refundHistory(for: "carol")),
            ("error-invalid-revision.ErrorPayload", ServerAPIError.invalidRequestRevision.body),
        ] + (try commitmentResponses())
    }

    /// A British customer on the monthly plan with a 12-month commitment, in billing period 3 (reference Appendix
    /// E.2): the transactions carry `billingPlanType` and `commitmentInfo`, the renewal info `renewalBillingPlanType`
    /// and its `commitmentInfo`.
    static func commitmentResponses() throws -> [(name: String, body: JSONValue)] {
        var annual = Product(
            id: "com.example.annual", type: .autoRenewable, group: "plus", period: .oneYear,
            price: Price(decimal: "109.99")!, currency: "GBP")
        annual.monthlyCommitment = CommitmentPlan(monthlyPrice: Price(decimal: "10.99")!)
        var store = SimulatedStore(
            app: AppConfiguration(
                bundleId: "com.example.app", appAppleId: 1_234_567_890,
                storefront: Storefronts.storefront(countryCode: "GBR")!),
            catalog: try Catalog(products: [annual]), start: testStart, seed: 11)
        try store.purchase(annual.id, by: "dora", plan: .monthly)
        try store.advance(by: .months(2))
        return [
            ("statuses-commitment.StatusResponse", ServerAPI(store).allSubscriptionStatuses(for: "dora")),
            (
                "history-commitment.HistoryResponse",
                try ServerAPI(store).transactionHistory(for: "dora", query: TransactionHistoryQuery())
            ),
        ]
    }

    @Test func readViewsMatchTheirGoldens() throws {
        for (name, body) in try Self.responses() {
            if let problem = checkGolden(CanonicalJSON.pretty(body) + "\n", "ServerAPI/\(name).json") {
                Issue.record("\(problem)")
            }
        }
    }
}
