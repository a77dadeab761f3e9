import Testing

@testable import SubscriptionSimulator

/// The App Store Server API read views: typed queries, Apple's shapes and error codes, and the history revision.
@Suite struct ServerAPIReadTests {
    func items(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items) = value { return items }
        return []
    }

    /// The decoded `signedTransactions` of a history or refund history page.
    func signed(_ response: JSONValue) throws -> [JSONValue] {
        try items(response.value(at: "signedTransactions")).map { try JWS.decodePayload($0.stringValue ?? "") }
    }

    func ids(_ response: JSONValue) throws -> [String] {
        try signed(response).compactMap { $0.value(at: "transactionId")?.stringValue }
    }

    func revision(_ response: JSONValue) -> String { response.value(at: "revision")?.stringValue ?? "" }

    @Test func historyRevisionIsAModificationToken() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(by: .months(1))
        let first = try ServerAPI(store).transactionHistory(for: "alice", query: TransactionHistoryQuery())
        #expect(try ids(first).count == 2)
        #expect(first.value(at: "hasMore") == .bool(false))
        // Nothing changed: the stored revision gives an empty page and the same revision.
        let unchanged = try ServerAPI(store).transactionHistory(
            for: "alice", query: TransactionHistoryQuery(revision: revision(first)))
        #expect(try ids(unchanged).isEmpty)
        #expect(revision(unchanged) == revision(first))
        // Refund the current period: the refunded transaction, already seen, comes back with its revocation.
        try store.advance(by: .days(5))
        try store.refund(monthly.id, of: "alice")
        let later = try ServerAPI(store).transactionHistory(
            for: "alice", query: TransactionHistoryQuery(revision: revision(first)))
        let changed = try signed(later)
        #expect(changed.count == 1)
        #expect(changed.first?.value(at: "transactionId")?.stringValue == (try ids(first)).last)
        #expect(changed.first?.value(at: "revocationDate")?.integerValue == store.now.millisecondsSince1970)
    }

    @Test func historyRevisionSeesAChangeAtTheInstantOfTheSync() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        let first = try ServerAPI(store).transactionHistory(for: "alice", query: TransactionHistoryQuery())
        try store.refund(monthly.id, of: "alice")  // same virtual instant as the sync
        let later = try ServerAPI(store).transactionHistory(
            for: "alice", query: TransactionHistoryQuery(revision: revision(first)))
        #expect(try signed(later).first?.value(at: "revocationType")?.stringValue == "REFUND_FULL")
    }

    @Test func historyPagesHoldTwentyTransactions() throws {
        var store = makeStore()
        for _ in 0..<25 {
            try store.purchase(coins.id, by: "alice")
            try store.advance(by: .hours(1))
        }
        let first = try ServerAPI(store).transactionHistory(for: "alice", query: TransactionHistoryQuery())
        #expect(try ids(first).count == 20)
        #expect(first.value(at: "hasMore") == .bool(true))
        let second = try ServerAPI(store).transactionHistory(
            for: "alice", query: TransactionHistoryQuery(revision: revision(first)))
        #expect(try ids(second).count == 5)
        #expect(second.value(at: "hasMore") == .bool(false))
        #expect(Set(try ids(first)).isDisjoint(with: try ids(second)))
        // Descending: newest first, and its revision continues towards older transactions.
        let newest = try ServerAPI(store).transactionHistory(
            for: "alice", query: TransactionHistoryQuery(sort: .descending))
        #expect(try ids(newest) == (try ids(first) + ids(second)).reversed().prefix(20).map { $0 })
        let older = try ServerAPI(store).transactionHistory(
            for: "alice", query: TransactionHistoryQuery(revision: revision(newest), sort: .descending))
        #expect(try ids(older) == (try ids(first)).prefix(5).reversed().map { $0 })
    }

    @Test func historyResponseHasApplesFields() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        guard case .object(let members) = try ServerAPI(store).transactionHistory(for: "alice", query: .init()) else {
            Issue.record("not an object")
            return
        }
        #expect(
            members.keys.sorted() == [
                "appAppleId", "bundleId", "environment", "hasMore", "revision", "signedTransactions",
            ])
        #expect(members["appAppleId"] == .integer(1_234_567_890))
    }

    @Test func historyFiltersAreApples() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(by: .days(1))
        try store.purchase(lifetime.id, by: "alice")
        try store.purchase(coins.id, by: "alice")
        try store.advance(by: .days(1))
        try store.refund(coins.id, of: "alice")
        func products(_ query: TransactionHistoryQuery) throws -> [String] {
            try signed(try ServerAPI(store).transactionHistory(for: "alice", query: query)).compactMap {
                $0.value(at: "productId")?.stringValue
            }
        }
        #expect(try products(.init(productIds: [lifetime.id])) == [lifetime.id])
        #expect(try products(.init(productTypes: [.consumable, .nonConsumable])).sorted() == [coins.id, lifetime.id])
        #expect(
            try products(.init(subscriptionGroupIdentifiers: [store.catalog.subscriptionGroupIdentifier(for: "pro")]))
                == [monthly.id])
        #expect(try products(.init(revoked: true)) == [coins.id])
        #expect(try products(.init(revoked: false)).sorted() == [lifetime.id, monthly.id])
        #expect(try products(.init(startDate: at("1d"))).sorted() == [coins.id, lifetime.id])
        #expect(try products(.init(endDate: at("1d"))) == [monthly.id])
        #expect(try products(.init(inAppOwnershipType: .familyShared)).isEmpty)
    }

    @Test(arguments: [
        ("sort", "UP", Int64(4_000_021)), ("productType", "SUBSCRIPTION", 4_000_022), ("productId", "", 4_000_023),
        ("subscriptionGroupIdentifier", "pro", 4_000_024), ("inAppOwnershipType", "SHARED", 4_000_026),
        ("revoked", "yes", 4_000_030), ("startDate", "yesterday", 4_000_015), ("endDate", "-1", 4_000_016),
        ("revision", "20", 4_000_005),
    ])
    func historyParametersAreValidatedWithApplesErrorCodes(name: String, value: String, code: Int64) {
        #expect(throws: ServerAPIError.self) { try TransactionHistoryQuery.parse([(name, value)]) }
        do {
            _ = try TransactionHistoryQuery.parse([(name, value)])
        } catch {
            #expect(error.errorCode == code)
            #expect(error.httpStatus == 400)
            #expect(error.body.value(at: "errorCode") == .integer(code))
        }
    }

    @Test func historyQueryParsesEveryApplesParameter() throws {
        let query = try TransactionHistoryQuery.parse([
            ("startDate", "1000"), ("endDate", "2000"), ("productId", "a"), ("productId", "b"),
            ("productType", "AUTO_RENEWABLE"), ("sort", "DESCENDING"), ("subscriptionGroupIdentifier", "21000001"),
            ("inAppOwnershipType", "FAMILY_SHARED"), ("revoked", "false"), ("revision", "D5.1"),
        ])
        #expect(
            query
                == TransactionHistoryQuery(
                    revision: "D5.1", startDate: Instant(millisecondsSince1970: 1000),
                    endDate: Instant(millisecondsSince1970: 2000), productIds: ["a", "b"],
                    productTypes: [.autoRenewable], sort: .descending, subscriptionGroupIdentifiers: ["21000001"],
                    inAppOwnershipType: .familyShared, revoked: false))
        #expect(throws: ServerAPIError.startDateAfterEndDate) {
            try TransactionHistoryQuery.parse([("startDate", "2000"), ("endDate", "2000")])
        }
        // A revision continues the query it came from: an ascending token with DESCENDING is refused.
        #expect(throws: ServerAPIError.invalidRequestRevision) {
            try TransactionHistoryQuery.parse([("revision", "A5.1"), ("sort", "DESCENDING")])
        }
    }

    @Test func statusFilterKeepsOnlyTheListedStatuses() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.purchase(weekly.id, by: "alice")
        try store.refund(weekly.id, of: "alice")
        let revoked = ServerAPI(store).allSubscriptionStatuses(
            for: "alice", query: SubscriptionStatusQuery(statuses: [.revoked]))
        let groups = items(revoked.value(at: "data"))
        #expect(groups.count == 1)
        #expect(items(groups.first?.value(at: "lastTransactions")).map { $0.value(at: "status") } == [.integer(5)])
        #expect(items(ServerAPI(store).allSubscriptionStatuses(for: "alice").value(at: "data")).count == 2)
        #expect(
            try SubscriptionStatusQuery.parse([("status", "1"), ("status", "4")]).statuses == [.active, .gracePeriod])
        #expect(throws: ServerAPIError.invalidStatus) { try SubscriptionStatusQuery.parse([("status", "6")]) }
    }

    @Test func transactionInfoReturnsTheTransactionInItsLatestState() throws {
        var store = makeStore()
        try store.purchase(lifetime.id, by: "alice")
        let id = store.transactions[0].transactionId
        try store.refund(lifetime.id, of: "alice")
        let response = try ServerAPI(store).transactionInfo(transactionId: id)
        guard case .object(let members) = response else {
            Issue.record("not an object")
            return
        }
        #expect(members.keys.sorted() == ["signedTransactionInfo"])
        let payload = try JWS.decodePayload(members["signedTransactionInfo"]?.stringValue ?? "")
        #expect(payload.value(at: "transactionId")?.stringValue == id)
        #expect(payload.value(at: "revocationReason") == .integer(0))
        #expect(throws: ServerAPIError.transactionIdNotFound) {
            try ServerAPI(store).transactionInfo(transactionId: "1")
        }
        #expect(throws: ServerAPIError.invalidTransactionId) {
            try ServerAPI(store).transactionInfo(transactionId: "abc")
        }
    }

    @Test func refundHistoryListsRefundsByRevocationDateWithARevision() throws {
        var store = makeStore()
        try store.purchase(lifetime.id, by: "alice")
        try store.purchase(coins.id, by: "alice")
        try store.advance(by: .days(2))
        try store.refund(coins.id, of: "alice")
        try store.advance(by: .days(2))
        try store.refund(lifetime.id, of: "alice")
        let first = try ServerAPI(store).refundHistory(for: "alice")
        guard case .object(let members) = first else {
            Issue.record("not an object")
            return
        }
        #expect(members.keys.sorted() == ["hasMore", "revision", "signedTransactions"])
        #expect(try signed(first).compactMap { $0.value(at: "productId")?.stringValue } == [coins.id, lifetime.id])
        try store.purchase(coins.id, by: "alice")
        try store.refund(coins.id, of: "alice")
        let next = try ServerAPI(store).refundHistory(
            for: "alice", query: RefundHistoryQuery(revision: revision(first)))
        #expect(try signed(next).count == 1)
        #expect(throws: ServerAPIError.invalidRequestRevision) { try RefundHistoryQuery.parse([("revision", "x")]) }
    }

    /// Rule transaction-id-is-decimal (``ServerAPI/checkTransactionId(_:)``), in every read that takes an id.
    @Test func transactionIdIsDecimal() throws {
        let api = ServerAPI(makeStore())
        for id in ["", "12a", "\u{0661}\u{0662}", String(repeating: "1", count: 41)] {
            #expect(throws: ServerAPIError.invalidTransactionId) { try ServerAPI.checkTransactionId(id) }
            #expect(throws: ServerAPIError.invalidTransactionId) { try api.customer(forTransactionId: id) }
            #expect(throws: ServerAPIError.invalidTransactionId) { try api.transactionInfo(transactionId: id) }
        }
        let longest = String(repeating: "9", count: 40)
        #expect(throws: Never.self) { try ServerAPI.checkTransactionId(longest) }
        #expect(throws: ServerAPIError.transactionIdNotFound) { try api.customer(forTransactionId: longest) }
    }

    @Test func anyIdOfTheCustomerFindsTheCustomer() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.purchase(monthly.id, by: "bob")
        #expect(try ServerAPI(store).customer(forTransactionId: store.transactions[1].transactionId) == "bob")
        #expect(try ServerAPI(store).customer(forTransactionId: store.appTransactionId(of: "alice")!) == "alice")
        #expect(throws: ServerAPIError.transactionIdNotFound) { try ServerAPI(store).customer(forTransactionId: "42") }
    }

    /// Rule app-transaction-id-not-supported: the endpoints whose path takes a `transactionId` or an
    /// `originalTransactionId` refuse a customer's `appTransactionId` with 4000048; the `anyTransactionId` ones accept
    /// it; an id nobody has stays "not found".
    @Test func anAppTransactionIdIsRefusedWhereOnlyATransactionIdIsTaken() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        let appTransactionId = try #require(store.appTransactionId(of: "alice"))
        let refused = ServerAPIError.appTransactionIdNotSupported
        #expect((refused.httpStatus, refused.errorCode) == (400, 4_000_048))
        let api = ServerAPI(store)
        #expect(throws: refused) { try api.transactionInfo(transactionId: appTransactionId) }
        #expect(throws: refused) { try ServerAPI.finishTransaction(in: &store, transactionId: appTransactionId) }
        #expect(throws: refused) {
            try ServerAPI.sendConsumptionInformation(
                in: &store, transactionId: appTransactionId, version: 2,
                body: Array(#"{"customerConsented": true}"#.utf8))
        }
        #expect(throws: refused) {
            try ServerAPI.setAppAccountToken(
                in: &store, originalTransactionId: appTransactionId,
                body: Array(#"{"appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138"}"#.utf8))
        }
        #expect(throws: refused) {
            try ServerAPI.extendRenewalDate(
                in: &store, originalTransactionId: appTransactionId,
                body: Array(#"{"extendByDays": 3, "extendReasonCode": 1, "requestIdentifier": "r1"}"#.utf8))
        }
        // The anyTransactionId endpoints find the customer by it.
        #expect(try api.customer(forTransactionId: appTransactionId) == "alice")
        // An id nobody has is still not found, in each endpoint's own code.
        #expect(throws: ServerAPIError.transactionIdNotFound) { try api.transactionInfo(transactionId: "42") }
        #expect(throws: ServerAPIError.originalTransactionIdNotFound) {
            try ServerAPI.extendRenewalDate(
                in: &store, originalTransactionId: "42",
                body: Array(#"{"extendByDays": 3, "extendReasonCode": 1, "requestIdentifier": "r1"}"#.utf8))
        }
    }
}
