import SimctlServer
import SubscriptionSimulator
import Testing

/// `GET /simctl/v1/deliveries` is bounded and paged (rule deliveries-answer-cap, docs/server.md), and a deprecated
/// action spelling sent to `POST /simctl/v1/actions` runs with a warning in the answer.
@Suite struct DeliveryPagingTests {
    /// One weekly subscriber renewing for `weeks` weeks, every notification delivered on its first attempt.
    func server(weeks: Int) throws -> SimulatorServer {
        let yaml = """
            name: weekly renewals
            start: 2026-03-01T09:00:00Z
            app: { bundleId: com.example.paging, appAppleId: 1234567890 }
            products:
              - { id: paging.weekly, type: autoRenewable, group: paging, period: P1W, price: 0.99 }
            timeline:
              - at: 0
                purchase: { customer: alice, product: paging.weekly }
            until: \(weeks * 7)d
            """
        let scenario = try decodeScenario(yaml, file: "paging.yaml")
        let server = try SimulatorServer(
            configuration: ServerConfiguration(scenario: scenario), transport: RecordingTransport())
        _ = server.deliverStartUp()
        #expect(server.control("/simctl/v1/advance", #"{"to": "\#(scenario.until)"}"#).status == 200)
        return server
    }

    func deliveries(_ server: SimulatorServer, _ query: [(name: String, value: String)] = []) -> ServerResponse {
        server.handle(ServerRequest(method: "GET", path: "/simctl/v1/deliveries", query: query))
    }

    func attempts(_ answer: ServerResponse) -> [JSONValue] {
        if case .array(let items)? = answer.json.value(at: "attempts") { return items }
        return []
    }

    @Test func pagesWalkTheLogOnceInItsOrder() throws {
        let server = try server(weeks: 9)
        let all = deliveries(server)
        #expect(all.status == 200)
        let count = attempts(all).count
        #expect(count == 10)  // SUBSCRIBED and nine renewals
        #expect(all.json.value(at: "attemptCount") == .integer(Int64(count)))
        #expect(all.json.value(at: "nextBefore") == nil)
        #expect(all.json.value(at: "undeliveredCount") == .integer(0))

        // Pages of three from the newest back: 8-10, 5-7, 2-4, 1.
        var walked: [[JSONValue]] = []
        var query: [(name: String, value: String)] = [(name: "limit", value: "3")]
        while true {
            let page = deliveries(server, query)
            #expect(page.status == 200)
            #expect(page.json.value(at: "attemptCount") == .integer(Int64(count)))
            walked.insert(attempts(page), at: 0)
            guard case .integer(let before)? = page.json.value(at: "nextBefore") else { break }
            query = [(name: "limit", value: "3"), (name: "before", value: String(before))]
            if walked.count > count { break }
        }
        #expect(walked.map(\.count) == [1, 3, 3, 3])
        #expect(walked.flatMap { $0 } == attempts(all))
        // Past the end is the latest page; before=1 is empty.
        #expect(attempts(deliveries(server, [(name: "before", value: "99")])) == attempts(all))
        #expect(attempts(deliveries(server, [(name: "before", value: "1")])).isEmpty)
    }

    @Test func theDefaultPageIsTheLatestThousand() throws {
        let server = try server(weeks: 1_050)
        let answer = deliveries(server)
        guard case .integer(let total)? = answer.json.value(at: "attemptCount") else {
            Issue.record("no attemptCount")
            return
        }
        #expect(total == 1_051)
        let page = attempts(answer)
        #expect(page.count == SimulatorServer.deliveryPageLimit)
        #expect(answer.json.value(at: "nextBefore") == .integer(total - 999))
        let older = attempts(deliveries(server, [(name: "before", value: String(total - 999))]))
        #expect(older.count == 51)
        #expect(older.first?.value(at: "notificationType") == .string("SUBSCRIBED"))
    }

    @Test(arguments: [
        ("limit", "0"), ("limit", "1001"), ("limit", "abc"), ("limit", ""), ("before", "0"), ("before", "-1"),
        ("before", "x"), ("before", "1234567890123456789"), ("after", "3"),
    ])
    func aBadQueryIs400SayingWhy(name: String, value: String) throws {
        let server = try server(weeks: 1)
        let answer = deliveries(server, [(name: name, value: value)])
        #expect(answer.status == 400)
        #expect(answer.bodyText.contains(name == "after" ? "deliveries takes limit and before" : "expected `\(name)`"))
    }

    @Test func aRepeatedParameterIs400() throws {
        let server = try server(weeks: 1)
        let answer = deliveries(server, [(name: "limit", value: "2"), (name: "limit", value: "3")])
        #expect(answer.status == 400)
        #expect(answer.bodyText.contains("given twice"))
    }

    @Test func aDeprecatedSpellingRunsWithAWarning() throws {
        let server = try server(weeks: 1)
        let answer = server.control(
            "/simctl/v1/actions", #"{"refund": {"customer": "alice", "product": "paging.weekly", "transaction": 1}}"#)
        #expect(answer.status == 200)
        #expect(answer.json.value(at: "action") == .string("refundTransaction"))
        #expect(answer.bodyText.contains("write `refundTransaction` with the same arguments"))
        let plain = server.control(
            "/simctl/v1/actions", #"{"cancel": {"customer": "alice", "product": "paging.weekly"}}"#)
        #expect(plain.status == 200)
        #expect(plain.json.value(at: "warnings") == nil)
    }
}
