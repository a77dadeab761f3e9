import Foundation
import SimctlServer
import SubscriptionSimulator
import Testing

@Suite struct ServerAPITests {
    /// The store the server should hold: the library driven by the same actions.
    struct Reference {
        var store: SimulatedStore

        init() throws {
            var empty = try decodeScenario(familyServeScenario)
            empty.until = empty.start
            store = ScenarioRunner.execute(empty).store
        }

        mutating func perform(_ action: ScenarioAction) throws { try TimelineDriver.perform(action, on: &store) }
        mutating func advance(to instant: Instant) throws { try store.advance(to: instant) }
    }

    func originalTransactionId(_ server: SimulatorServer, _ customer: String) -> String? {
        server.stateJSON().value(at: "customers")?.arrayItems?.first { $0.value(at: "customer") == .string(customer) }?
            .value(at: "subscriptions.0.originalTransactionId")?.stringValue
    }

    func expectReadViewsMatch(_ server: SimulatorServer, _ reference: Reference) {
        let api = ServerAPI(reference.store)
        for customer in ["alice", "bob"] {
            guard let id = originalTransactionId(server, customer) else { continue }
            let statuses = server.get("/inApps/v1/subscriptions/\(id)")
            #expect(statuses.status == 200)
            #expect(statuses.bodyText == CanonicalJSON.string(api.allSubscriptionStatuses(for: customer)))
            let history = server.get("/inApps/v2/history/\(id)")
            #expect(history.bodyText == CanonicalJSON.string(api.transactionHistory(for: customer)))
            let refunds = server.get("/inApps/v2/refund/lookup/\(id)")
            #expect(refunds.bodyText == CanonicalJSON.string(try! api.refundHistory(for: customer)))
            let info = server.get("/inApps/v1/transactions/\(id)")
            #expect(info.bodyText == CanonicalJSON.string(try! api.transactionInfo(transactionId: id)))
        }
    }

    @Test func familyBillingStoryMatchesTheScenarioRunAndTheReadViews() throws {
        let transport = RecordingTransport()
        let server = try makeServer(transport: transport)
        var reference = try Reference()
        let start = reference.store.now
        func at(_ text: String) -> Instant { start.adding(CalendarDurationSyntax.parse(text)!) }

        #expect(
            server.control(
                "/simctl/v1/actions", #"{"purchase": {"customer": "alice", "product": "\#(familyProduct)"}}"#
            ).status == 200)
        try reference.perform(.purchase(customer: "alice", product: familyProduct))
        expectReadViewsMatch(server, reference)

        #expect(server.control("/simctl/v1/advance", #"{"by": "20d"}"#).status == 200)
        try reference.advance(to: at("20d"))
        expectReadViewsMatch(server, reference)

        #expect(server.control("/simctl/v1/actions", #"{"failBilling": {"customer": "alice"}}"#).status == 200)
        reference.store.failBilling(for: "alice")
        #expect(server.control("/simctl/v1/advance", #"{"to": "\#(at("P1M20D"))"}"#).status == 200)
        try reference.advance(to: at("P1M20D"))
        expectReadViewsMatch(server, reference)

        #expect(server.control("/simctl/v1/actions", #"{"fixBilling": {"customer": "alice"}}"#).status == 200)
        try reference.perform(.fixBilling(customer: "alice"))
        #expect(server.control("/simctl/v1/advance", #"{"to": "\#(at("P2M"))"}"#).status == 200)
        try reference.advance(to: at("P2M"))
        expectReadViewsMatch(server, reference)

        // The notifications delivered are the ones `simctl run` gives for the scenario file, byte for byte.
        let file = repositoryRoot + "/Scenarios/family-billing-grace-recovery.yaml"
        let run = try ScenarioRunner.run(
            try ScenarioDecoder(file: file).decode(String(contentsOfFile: file, encoding: .utf8)))
        #expect(transport.requests.map(\.body) == DeliveryItem.items(of: run.store).map(\.body))
        #expect(transport.requests.count == 8)
    }

    @Test func statusFilterAndApplesErrors() throws {
        let server = try makeServer()
        _ = server.control(
            "/simctl/v1/actions", #"{"purchase": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        let id = try #require(originalTransactionId(server, "alice"))
        let active = server.get("/inApps/v1/subscriptions/\(id)", query: [("status", "1")])
        #expect(active.json.value(at: "data.0.lastTransactions.0.status") == .integer(1))
        let expired = server.get("/inApps/v1/subscriptions/\(id)", query: [("status", "2")])
        #expect(expired.json.value(at: "data") == .array([]))
        let cases: [(String, [(name: String, value: String)], Int, Int64)] = [
            ("/inApps/v1/subscriptions/abc", [], 400, 4_000_006),
            ("/inApps/v1/subscriptions/\(String(repeating: "9", count: 41))", [], 400, 4_000_006),
            ("/inApps/v1/subscriptions/999999", [], 404, 4_040_010),
            ("/inApps/v1/subscriptions/\(id)", [("status", "9")], 400, 4_000_031),
            ("/inApps/v2/history/\(id)", [("revision", "nope")], 400, 4_000_005),
            ("/inApps/v2/history/\(id)", [("sort", "UP")], 400, 4_000_021),
            ("/inApps/v2/history/\(id)", [("startDate", "x")], 400, 4_000_015),
            ("/inApps/v2/history/\(id)", [("startDate", "5"), ("endDate", "5")], 400, 4_000_013),
            ("/inApps/v1/transactions/123", [], 404, 4_040_010),
            ("/inApps/v2/refund/lookup/\(id)", [("revision", "D1.1")], 400, 4_000_005),
        ]
        for (path, query, status, code) in cases {
            let response = server.get(path, query: query)
            #expect(response.status == status, "\(path)")
            #expect(response.json.value(at: "errorCode") == .integer(code), "\(path) \(response.bodyText)")
            #expect(response.json.value(at: "errorMessage")?.stringValue?.isEmpty == false)
            #expect(response.headers.contains(ServerHeader(name: "Content-Type", value: "application/json")))
        }
    }

    @Test func historyPagesWithItsRevision() throws {
        let server = try makeServer()
        _ = server.control(
            "/simctl/v1/actions", #"{"purchase": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        _ = server.control("/simctl/v1/advance", #"{"by": "P2Y"}"#)
        let id = try #require(originalTransactionId(server, "alice"))
        let first = server.get("/inApps/v2/history/\(id)")
        #expect(first.json.value(at: "signedTransactions")?.arrayItems?.count == 20)
        #expect(first.json.value(at: "hasMore") == .bool(true))
        let revision = try #require(first.json.value(at: "revision")?.stringValue)
        let second = server.get("/inApps/v2/history/\(id)", query: [("revision", revision)])
        #expect(second.json.value(at: "signedTransactions")?.arrayItems?.count == 5)
        #expect(second.json.value(at: "hasMore") == .bool(false))
    }

    @Test func notificationHistoryHasSendAttemptsFiltersAndPages() throws {
        // Every first attempt fails, so each notification has a retry 1 h later.
        let transport = RecordingTransport(fail: { $0.attempt == 1 })
        // Production keeps 180 days of history (the sandbox 30).
        let production = familyServeScenario.replacingOccurrences(
            of: "  gracePeriod: 16d", with: "  gracePeriod: 16d\n  environment: Production")
        let server = try makeServer(transport: transport, scenario: production)
        for customer in ["alice", "carol", "dave"] {
            let purchase = #"{"purchase": {"customer": "\#(customer)", "product": "\#(familyProduct)"}}"#
            #expect(server.control("/simctl/v1/actions", purchase).status == 200)
        }
        _ = server.control("/simctl/v1/advance", #"{"by": "P1Y"}"#)
        let now = try #require(server.stateJSON().value(at: "now")?.integerValue)
        let start = now - 150 * 86_400_000
        let body = #"{"startDate": \#(start), "endDate": \#(now + 86_400_000)}"#
        let first = server.post("/inApps/v1/notifications/history", body)
        #expect(first.status == 200, "\(first.bodyText)")
        let items = try #require(first.json.value(at: "notificationHistory")?.arrayItems)
        #expect(items.count == 20)  // alice, bob (family), carol and dave: five renewals each
        #expect(first.json.value(at: "hasMore") == .bool(false))
        let attempts = try #require(items[0].value(at: "sendAttempts")?.arrayItems)
        #expect(
            attempts.map { $0.value(at: "sendAttemptResult") } == [
                .string("UNSUCCESSFUL_HTTP_RESPONSE_CODE"), .string("SUCCESS"),
            ])
        let payload = try JWS.decodePayload(try #require(items[0].value(at: "signedPayload")?.stringValue))
        #expect(payload.value(at: "notificationType") == .string("DID_RENEW"))

        let aliceId = try #require(originalTransactionId(server, "alice"))
        let onlyAlice = server.post(
            "/inApps/v1/notifications/history",
            #"{"startDate": \#(start), "endDate": \#(now + 1), "transactionId": "\#(aliceId)"}"#)
        #expect(onlyAlice.json.value(at: "notificationHistory")?.arrayItems?.count == 5)
        let failures = server.post(
            "/inApps/v1/notifications/history", #"{"startDate": \#(start), "endDate": \#(now), "onlyFailures": true}"#)
        // endDate is inclusive: the four renewals sent at the clock, whose retry is an hour away, are failures so far.
        #expect(failures.json.value(at: "notificationHistory")?.arrayItems?.count == 4)
        let before = server.post(
            "/inApps/v1/notifications/history",
            #"{"startDate": \#(start), "endDate": \#(now - 1), "onlyFailures": true}"#)
        #expect(before.json.value(at: "notificationHistory")?.arrayItems?.count == 0)

        // 24 notifications in the last 179 days (six renewals each): pages of 20 joined by the token.
        let all = #"{"startDate": \#(now - 179 * 86_400_000), "endDate": \#(now + 1)}"#
        let page1 = server.post("/inApps/v1/notifications/history", all)
        #expect(page1.json.value(at: "notificationHistory")?.arrayItems?.count == 20)
        #expect(page1.json.value(at: "hasMore") == .bool(true))
        let token = try #require(page1.json.value(at: "paginationToken")?.stringValue)
        let page2 = server.handle(
            ServerRequest(
                method: "POST", path: "/inApps/v1/notifications/history", query: [("paginationToken", token)],
                headers: [("Authorization", "Bearer \(TestAPIKey().token())")], body: Array(all.utf8)))
        #expect(page2.json.value(at: "notificationHistory")?.arrayItems?.count == 4)
        #expect(page2.json.value(at: "hasMore") == .bool(false))
        let wrongBody = server.handle(
            ServerRequest(
                method: "POST", path: "/inApps/v1/notifications/history", query: [("paginationToken", token)],
                headers: [("Authorization", "Bearer \(TestAPIKey().token())")], body: Array(body.utf8)))
        #expect(wrongBody.json.value(at: "errorCode") == .integer(4_000_014))

        let errors: [(String, Int64)] = [
            ("[]", 4_000_000), ("{}", 4_000_015), (#"{"startDate": 1}"#, 4_000_016),
            (#"{"startDate": \#(now - 181 * 86_400_000), "endDate": \#(now)}"#, 4_000_012),
            (#"{"startDate": \#(now), "endDate": \#(now - 1)}"#, 4_000_013),
            (#"{"startDate": \#(start), "endDate": \#(now), "notificationType": "NOPE"}"#, 4_000_018),
            (#"{"startDate": \#(start), "endDate": \#(now), "notificationSubtype": "INITIAL_BUY"}"#, 4_000_018),
            (
                #"{"startDate": \#(start), "endDate": \#(now), "notificationType": "DID_RENEW", "transactionId": "1"}"#,
                4_000_019
            ),
            (#"{"startDate": \#(start), "endDate": \#(now), "transactionId": "x"}"#, 4_000_006),
        ]
        for (bad, code) in errors {
            let response = server.post("/inApps/v1/notifications/history", bad)
            #expect(response.status == 400, "\(bad)")
            #expect(response.json.value(at: "errorCode") == .integer(code), "\(bad): \(response.bodyText)")
        }
    }

    @Test func testNotificationIsDeliveredAndItsStatusReadable() throws {
        let transport = RecordingTransport()
        let server = try makeServer(transport: transport)
        let response = server.post("/inApps/v1/notifications/test", "")
        #expect(response.status == 200)
        let token = try #require(response.json.value(at: "testNotificationToken")?.stringValue)
        #expect(transport.requests.map(\.item.notificationType) == ["TEST"])
        let status = server.get("/inApps/v1/notifications/test/\(token)")
        #expect(status.status == 200)
        let payload = try JWS.decodePayload(try #require(status.json.value(at: "signedPayload")?.stringValue))
        #expect(payload.value(at: "notificationType") == .string("TEST"))
        #expect(payload.value(at: "data.bundleId") == .string("com.example.nightsky"))
        #expect(status.json.value(at: "sendAttempts.0.sendAttemptResult") == .string("SUCCESS"))
        #expect(server.get("/inApps/v1/notifications/test/abc_123").json.value(at: "errorCode") == .integer(4_040_008))
        #expect(server.get("/inApps/v1/notifications/test/no%20pe").json.value(at: "errorCode") == .integer(4_000_020))
        let without = try makeServer(transport: nil)
        let refused = without.post("/inApps/v1/notifications/test", "")
        #expect(refused.status == 404)
        #expect(refused.json.value(at: "errorCode") == .integer(4_040_007))
    }
}

extension JSONValue {
    var arrayItems: [JSONValue]? { if case .array(let items) = self { return items } else { return nil } }
}
