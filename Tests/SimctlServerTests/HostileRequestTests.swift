import SimctlServer
import SubscriptionSimulator
import Testing

/// Rule rejected-requests-change-nothing: malformed and hostile application-level requests each get a 4xx, the
/// server keeps answering, and the store's state (the state endpoint and its digest) is the same afterwards.
@Suite struct HostileRequestTests {
    static let garbage = [
        "", " ", "{", "}", "[]", "null", "true", "1", "\"text\"", "{\"a\":}", "{'a': 1}", "{\"a\": 1,}", "\u{0}",
        "{\"purchase\": null}", "{\"purchase\": []}", "{\"purchase\": {\"customer\": 5}}",
        "{\"purchase\": {\"customer\": \"\", \"product\": \"\"}}", String(repeating: "[", count: 5000),
        "{\"at\": \"P99999Y\", \"openApp\": {\"customer\": \"alice\"}}", "{\"by\": \"-1d\"}", "{\"to\": 1}",
        "{\"startDate\": \"1\", \"endDate\": \"2\"}", "{\"startDate\": 1e3, \"endDate\": 2}",
        "{\"startDate\": -5, \"endDate\": 99999999999999999999}", "\u{FEFF}{}", "{\"x\": \"\u{7}\"}",
    ]

    func hostileRequests() -> [ServerRequest] {
        let key = TestAPIKey()
        let good = "Bearer " + key.token()
        let badTokens = [
            "", "Bearer", "Bearer x.y.z", "Token " + key.token(), "Bearer " + key.token(bundleId: "evil"),
            "Bearer " + key.token(header: ["alg": .string("none"), "kid": .string("k")]),
            "Bearer " + key.token(iat: 1_000_000_000), "Bearer " + String(repeating: "A", count: 10_000),
        ]
        let ids = [
            "", "abc", "-1", "1.5", String(repeating: "9", count: 41), String(repeating: "1", count: 5000), "٣٣",
            "..%2F..", "1 OR 1=1", "0x10", "１２３",
        ]
        let applePaths = [
            "/inApps/v1/subscriptions/", "/inApps/v2/history/", "/inApps/v1/transactions/", "/inApps/v2/refund/lookup/",
        ]
        let badRevisions: [[(name: String, value: String)]] = [
            [("revision", "")], [("revision", "A-1.0")], [("revision", "Z1.1")],
            [("revision", String(repeating: "9", count: 40))], [("revision", "A1.1.1")],
        ]
        // Each endpoint's own parameters with values Apple refuses (parameters an endpoint does not define are
        // ignored, as Apple does).
        let badQueries: [String: [[(name: String, value: String)]]] = [
            "/inApps/v1/subscriptions/": [[("status", "0")], [("status", "x")], [("status", "")], [("status", "6")]],
            "/inApps/v2/history/": badRevisions + [
                [("startDate", "-1")], [("endDate", "abc")], [("sort", "SIDEWAYS")], [("productType", "MAGIC")],
                [("inAppOwnershipType", "X")], [("revoked", "maybe")], [("subscriptionGroupIdentifier", "abc")],
                [("productId", "")], [("startDate", "10"), ("endDate", "5")], [("revision", "D1.1")],
            ],
            "/inApps/v2/refund/lookup/": badRevisions + [[("revision", "D1.1")]],
        ]
        var requests: [ServerRequest] = []
        func add(
            _ method: String, _ path: String, _ query: [(name: String, value: String)] = [], token: String?,
            _ body: String = ""
        ) {
            requests.append(
                ServerRequest(
                    method: method, path: path, query: query,
                    headers: token.map { [(name: "Authorization", value: $0)] } ?? [], body: Array(body.utf8)))
        }
        // Apple's read endpoints: bad ids, bad queries, bad or missing tokens.
        for path in applePaths {
            for id in ids { add("GET", path + id, token: good) }
            for query in badQueries[path] ?? [] { add("GET", path + "2000000000000001", query, token: good) }
            for token in badTokens { add("GET", path + "2000000000000001", token: token) }
            add("GET", path + "2000000000000001", token: nil)
            add("GET", path + "12345", token: good)  // unknown id: 404
            for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] { add(method, path + "1", token: good) }
        }
        // Notification history: bodies, pagination tokens, tokens.
        let history = "/inApps/v1/notifications/history"
        for body in Self.garbage { add("POST", history, token: good, body) }
        let window = #"{"startDate": 1772000000000, "endDate": 1772500000000}"#
        for pagination in [
            "", "x", "1", "1.", ".1", "99999999999.0000000000000000", "1.zzzzzzzzzzzzzzzz", "-1.0000000000000000",
        ] {
            add("POST", history, [("paginationToken", pagination)], token: good, window)
        }
        for extra in [
            #""notificationType": "NOPE""#, #""notificationSubtype": "INITIAL_BUY""#, #""transactionId": "x""#,
            #""transactionId": 5"#, #""onlyFailures": "yes""#, #""notificationType": "TEST", "transactionId": "1""#,
            #""transactionId": "999""#,
        ] {
            add("POST", history, token: good, #"{"startDate": 1772000000000, "endDate": 1772500000000, \#(extra)}"#)
        }
        for token in badTokens { add("POST", history, token: token, window) }
        for token in badTokens { add("POST", "/inApps/v1/notifications/test", token: token) }
        for id in ids + ["abc_123", "00000000-0000-4000-8000-000000000000_1"] {
            add("GET", "/inApps/v1/notifications/test/" + id, token: good)
        }
        // Control API: every garbage body on every mutating route, unknown actions, forbidden actions, methods.
        for path in ["/simctl/v1/advance", "/simctl/v1/actions"] {
            for body in Self.garbage { add("POST", path, token: nil, body) }
        }
        for name in ScenarioAction.names + ["purchse", "buy", "delete", "reset", "advance", "at", "AT", "Purchase"] {
            add("POST", "/simctl/v1/actions", token: nil, #"{"\#(name)": {"customer": [7]}}"#)
            add(
                "POST", "/simctl/v1/actions", token: nil,
                #"{"\#(name)": {"customer": "alice", "product": "unknown.product"}}"#)
            add("POST", "/simctl/v1/actions", token: nil, #"{"at": "-1d", "\#(name)": {"customer": "alice"}}"#)
            add(
                "POST", "/simctl/v1/actions", token: nil,
                #"{"\#(name)": {"customer": "mallory", "product": "\#(familyProduct)", "extra": true}}"#)
        }
        for forbidden in [
            #"{"cancel": {"customer": "nobody", "product": "\#(familyProduct)"}}"#,
            #"{"stopSharing": {"customer": "bob", "product": "\#(familyProduct)"}}"#,
            #"{"joinFamily": {"customer": "alice"}}"#, #"{"leaveFamily": {"customer": "mallory"}}"#,
            #"{"refund": {"customer": "zed", "product": "\#(familyProduct)"}}"#,
        ] {
            add("POST", "/simctl/v1/actions", token: nil, forbidden)
        }
        for (method, path) in [
            ("PUT", "/simctl/v1/actions"), ("PUT", "/simctl/v1/advance"), ("DELETE", "/simctl/v1/reset"),
            ("POST", "/simctl/v1/state"), ("GET", "/simctl/v2/state"), ("GET", "/simctl"), ("POST", "/"),
            ("GET", "/inApps/v1/subscriptions"), ("GET", "/\u{0}"), ("BREW", "/simctl/v1/state"),
            ("GET", "/" + String(repeating: "a/", count: 500)),
        ] {
            add(method, path, token: good)
        }
        // Bad advances: before now, out of range, wrong keys.
        for body in [
            #"{"to": "2020-01-01T00:00:00Z"}"#, #"{"to": "10000-01-01T00:00:00Z"}"#, #"{"by": "P100000Y"}"#,
            #"{"by": "1d", "extra": 1}"#, #"{"to": "2026-13-01T00:00:00Z"}"#, #"{"by": ""}"#, #"{"by": null}"#,
        ] {
            add("POST", "/simctl/v1/advance", token: nil, body)
        }
        // Repeat the whole set with a few deterministic mutations (bytes cut) until there are at least 1,000.
        var random = RandomSource(seed: 13)
        let base = requests
        while requests.count < 1_200 {
            var request = base[random.nextInt(in: 0...(base.count - 1))]
            if !request.body.isEmpty {
                request.body = Array(request.body.prefix(random.nextInt(in: 0...(request.body.count - 1))))
                if request.path.hasPrefix("/simctl/v1/advance") && request.body.isEmpty { continue }
            } else {
                request.path += String(repeating: "x", count: random.nextInt(in: 1...3))
            }
            requests.append(request)
        }
        return requests
    }

    @Test func everyHostileRequestGetsA4xxAndChangesNothing() throws {
        let transport = RecordingTransport()
        let server = try makeServer(transport: transport)
        _ = server.control(
            "/simctl/v1/actions", #"{"purchase": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        _ = server.control("/simctl/v1/advance", #"{"by": "1d"}"#)
        let before = server.stateJSON()
        let deliveredBefore = transport.requests.count
        let requests = hostileRequests()
        #expect(requests.count >= 1_000)
        for request in requests {
            let response = server.handle(request)
            #expect(
                (400...499).contains(response.status),
                "\(request.summary) \(String(decoding: request.body, as: UTF8.self)): \(response.status)")
        }
        #expect(server.stateJSON() == before)
        #expect(server.stateJSON().value(at: "digest") == before.value(at: "digest"))
        #expect(transport.requests.count == deliveredBefore)
        // Still serving: a valid read and a valid action.
        let id = try #require(before.value(at: "customers.0.subscriptions.0.originalTransactionId")?.stringValue)
        #expect(server.get("/inApps/v1/subscriptions/\(id)").status == 200)
        #expect(server.control("/simctl/v1/advance", #"{"by": "1h"}"#).status == 200)
    }
}
