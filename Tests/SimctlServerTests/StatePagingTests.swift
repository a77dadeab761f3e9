import Foundation
import SubscriptionSimulator
import Testing

@testable import SimctlServer

/// The state answer is bounded and paged (rule state-answer-cap, docs/server.md "The state answer"): the caps hold
/// with many customers, a walk meets every customer exactly once, the digest covers every page, bad paging
/// parameters are 400 with the reason.
@Suite struct StatePagingTests {
    /// `count` customers, each buying the weekly plan at the start (a weekly plan: many renewals soon).
    static func scenario(customers count: Int) -> String {
        var text = """
            name: Many customers
            start: 2026-03-01T09:00:00Z
            app:
              bundleId: com.example.nightsky
              appAppleId: 1234567890
            products:
              - id: com.example.nightsky.weekly
                type: autoRenewable
                group: nightsky.pro
                period: P1W
                price: 1.99
            timeline:

            """
        for i in 0..<count {
            text += "  - { at: 0, purchase: { customer: c\(i), product: com.example.nightsky.weekly } }\n"
        }
        return text
    }

    static func state(_ server: SimulatorServer, _ query: [(String, String)] = []) -> ServerResponse {
        server.get("/simctl/v1/state", query: query.map { (name: $0.0, value: $0.1) }, token: nil)
    }

    /// The answer `stateAnswer` writes, parsed.
    static func parsed(_ server: SimulatorServer, _ snapshot: ServerState, _ query: StateQuery, pageBytes: Int? = nil)
        -> JSONValue
    {
        let text = server.stateAnswer(snapshot, query, pageBytes: pageBytes ?? SimulatorServer.statePageBytes)
        return (try? CanonicalJSON.parse(text)) ?? .null
    }

    static func names(_ answer: JSONValue) -> [String] {
        (answer.value(at: "customers")?.arrayItems ?? []).compactMap { $0.value(at: "customer")?.stringValue }
    }

    /// Every page: `limit` customers a page from the start, following `nextAfter`; the names and each page's digest.
    static func walk(_ server: SimulatorServer, limit: Int, between: (Int) -> Void = { _ in })
        -> (names: [String], digests: [String])
    {
        var names: [String] = []
        var digests: [String] = []
        var after: String?
        var pages = 0
        repeat {
            var query = [("limit", String(limit))]
            if let after { query.append(("after", after)) }
            let answer = Self.state(server, query)
            #expect(answer.status == 200, "\(answer.bodyText.prefix(300))")
            let json = answer.json
            names += Self.names(json)
            digests.append(json.value(at: "digest")?.stringValue ?? "")
            after = json.value(at: "nextAfter")?.stringValue
            between(pages)
            pages += 1
        } while after != nil && pages < 10_000
        return (names, digests)
    }

    @Test func theCapHoldsWithManyCustomers() throws {
        let server = try makeServer(scenario: Self.scenario(customers: 2_345))
        let store = server.locked { server.state.store }
        let first = Self.state(server).json
        #expect(first.value(at: "customerCount") == .integer(2_345))
        #expect(Self.names(first) == Array(store.customers.prefix(SimulatorServer.statePageDefault)))
        #expect(first.value(at: "nextAfter")?.stringValue == store.customers[SimulatorServer.statePageDefault - 1])
        let largest = Self.state(server, [("limit", "1000")]).json
        #expect(Self.names(largest).count == SimulatorServer.statePageLimit)
        #expect(largest.value(at: "nextAfter")?.stringValue == "c999")
        let last = Self.state(server, [("limit", "1000"), ("after", "c1999")]).json
        #expect(Self.names(last) == (2000..<2345).map { "c\($0)" })
        #expect(last.value(at: "nextAfter") == nil)
        // The page after the last customer is empty, and has no next page.
        let beyond = Self.state(server, [("after", "c2344")]).json
        #expect(Self.names(beyond).isEmpty && beyond.value(at: "nextAfter") == nil)
    }

    @Test func badPagingParametersAre400WithTheReason() throws {
        let server = try makeServer(scenario: Self.scenario(customers: 3))
        let cases: [([(String, String)], String)] = [
            ([("limit", "0")], "expected `limit` as a whole number from 1 to 1000"),
            ([("limit", "1001")], "expected `limit` as a whole number from 1 to 1000"),
            ([("limit", "-5")], "found '-5'"),
            ([("limit", "ten")], "found 'ten'"),
            ([("limit", "")], "expected `limit`"),
            ([("limit", "99999999999999999999")], "expected `limit`"),
            ([("after", "nobody")], "expected `after` as the name of a customer of the store"),
            ([("after", "")], "expected `after`"),
            ([("limit", "2"), ("limit", "3")], "query parameter 'limit' is given twice"),
            ([("customer", "c1"), ("limit", "3")], "takes no `limit` or `after`"),
            ([("customer", "c1"), ("after", "c0")], "takes no `limit` or `after`"),
            ([("page", "2")], "unknown query parameter 'page'; state takes customer=NAME, or limit=N and after=NAME"),
        ]
        for (query, message) in cases {
            let answer = Self.state(server, query)
            #expect(answer.status == 400, "\(query)")
            #expect(
                answer.json.value(at: "error")?.stringValue?.contains(message) == true, "\(query): \(answer.bodyText)")
        }
        #expect(Self.state(server, [("customer", "nobody")]).status == 404)
        #expect(Self.names(Self.state(server, [("customer", "c1")]).json) == ["c1"])
    }

    @Test func aWalkMeetsEveryCustomerOnceAndItsPagesShareTheDigest() throws {
        let server = try makeServer(scenario: Self.scenario(customers: 250))
        let store = server.locked { server.state.store }
        var seen: Set<String> = []
        for limit in [1, 7, 100, 250, 1000] {
            let (names, digests) = Self.walk(server, limit: limit)
            #expect(names == store.customers, "limit \(limit)")
            #expect(Set(digests).count == 1, "limit \(limit): one state, one digest on every page")
            #expect(digests.count == (250 + limit - 1) / limit)
            seen.formUnion(digests)
        }
        #expect(seen.count == 1, "every page of every size: one digest")
        // The fingerprint of every customer made from a page of all of them (this server's first answer) is the one
        // a separate pass makes (the first server's first answer was a page of one).
        let twin = try makeServer(scenario: Self.scenario(customers: 250))
        #expect(Self.walk(twin, limit: 1000).digests == [try #require(seen.first)])
        // Customers added during a walk come last: the walk meets every one, old and new, once.
        var added = 0
        let (names, digests) = Self.walk(server, limit: 40) { page in
            guard page < 3 else { return }
            let body = #"{"purchase": {"customer": "new\#(page)", "product": "com.example.nightsky.weekly"}}"#
            #expect(server.control("/simctl/v1/actions", body).status == 200)
            added += 1
        }
        #expect(names == store.customers + ["new0", "new1", "new2"])
        #expect(Set(names).count == names.count)
        #expect(Set(digests).count == 4, "each change shows in the digest of the pages after it")
        #expect(added == 3)
    }

    @Test func theDigestCoversCustomersOnOtherPages() throws {
        let server = try makeServer(scenario: Self.scenario(customers: 150))
        let before = Self.state(server).json
        #expect(Self.state(server).json == before, "an unchanged store: the same answer, digest included")
        // A change only the last page shows (an app account token on c149's transaction: no notification, no count).
        let otid = try #require(
            Self.state(server, [("customer", "c149")]).json.value(
                at: "customers.0.subscriptions.0.originalTransactionId")?
                .stringValue)
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let set = server.handle(
            ServerRequest(
                method: "PUT", path: "/inApps/v1/transactions/\(otid)/appAccountToken",
                headers: [(name: "Authorization", value: "Bearer \(TestAPIKey().token())")],
                body: Array(#"{"appAccountToken": "\#(token)"}"#.utf8)))
        #expect(set.status == 200, "\(set.bodyText)")
        let after = Self.state(server).json
        #expect(
            after.value(at: "customers") == before.value(at: "customers"), "the first page's customers are as they were"
        )
        #expect(after.value(at: "notificationsSent") == before.value(at: "notificationsSent"))
        #expect(after.value(at: "digest") != before.value(at: "digest"), "the digest covers c149 on page 2")
        let last = Self.state(server, [("after", "c99")]).json
        #expect(last.value(at: "digest") == after.value(at: "digest"))
        #expect(last.value(at: "customers.49.transactions.0.appAccountToken")?.stringValue == token)
    }

    @Test func eachCustomersListsAreBoundedWithTheirTotals() throws {
        let server = try makeServer(scenario: Self.scenario(customers: 2))
        // Three years of a weekly plan: 157 transactions each.
        #expect(server.control("/simctl/v1/advance", #"{"by": "P3Y"}"#).status == 200)
        let state = Self.state(server).json
        let c0 = try #require(state.value(at: "customers.0"))
        let total = try #require(c0.value(at: "transactionCount")?.integerValue)
        #expect(total > 150)
        let shown = try #require(c0.value(at: "transactions")?.arrayItems)
        #expect(shown.count == SimulatorServer.stateListLimit)
        // The latest ones, oldest first: the last is the subscription's latest transaction.
        #expect(
            shown.last?.value(at: "transactionId") == c0.value(at: "subscriptions.0.transactionId"))
        let store = server.locked { server.state.store }
        let all = store.transactions(for: "c0")
        #expect(Int(total) == all.count)
        #expect(shown.first?.value(at: "transactionId")?.stringValue == all[all.count - 100].transactionId)
        #expect(c0.value(at: "subscriptionCount") == .integer(1))
        #expect(c0.value(at: "entitlementCount") == .integer(1))
    }

    @Test func aPageStopsAtItsByteBudget() throws {
        let server = try makeServer(scenario: Self.scenario(customers: 300))
        let snapshot = server.locked { server.state }
        let whole = Self.parsed(server, snapshot, StateQuery(limit: 1000))
        #expect(Self.names(whole).count == 300)
        // With a budget of 20,000 bytes of customers a page, pages hold fewer and a walk still meets everyone.
        var names: [String] = []
        var after: String?
        repeat {
            let page = Self.parsed(server, snapshot, StateQuery(limit: 1000, after: after), pageBytes: 20_000)
            let customers = try #require(page.value(at: "customers")?.arrayItems)
            #expect(!customers.isEmpty)
            let bytes = customers.reduce(0) { $0 + CanonicalJSON.string($1).utf8.count }
            #expect(bytes <= 20_000)
            names += Self.names(page)
            after = page.value(at: "nextAfter")?.stringValue
        } while after != nil
        #expect(names == snapshot.store.customers)
        // One customer larger than the budget still makes a page of one.
        let tiny = Self.parsed(server, snapshot, StateQuery(limit: 10), pageBytes: 1)
        #expect(Self.names(tiny) == ["c0"])
        #expect(tiny.value(at: "nextAfter")?.stringValue == "c0")
    }
}
