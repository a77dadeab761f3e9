import Foundation
import SimctlServer
import SubscriptionSimulator
import Testing

@testable import SimctlCommand

/// The dashboard's endpoints (issue 48): the notification list, the state's subscription details, the description
/// of the actions, the resend, and the page itself.
@Suite struct DashboardEndpointTests {
    func request(_ method: String, _ path: String, query: [(name: String, value: String)] = [], body: String = "")
        -> ServerRequest
    {
        ServerRequest(method: method, path: path, query: query, body: Array(body.utf8))
    }

    func purchase(_ server: SimulatorServer, _ customer: String = "alice") {
        let answer = server.control(
            "/simctl/v1/actions", #"{"purchase": {"customer": "\#(customer)", "product": "\#(familyProduct)"}}"#)
        #expect(answer.status == 200, "\(answer.bodyText)")
    }

    @Test func theNotificationListIsNewestFirstPagedAndDecoded() throws {
        let server = try makeServer()
        purchase(server)
        #expect(server.control("/simctl/v1/advance", #"{"by": "P1M"}"#).status == 200)
        let all = server.handle(request("GET", "/simctl/v1/notifications")).json
        guard case .array(let items)? = all.value(at: "notifications"), let total = all.value(at: "total")?.integerValue
        else {
            Issue.record("no notifications in \(all)")
            return
        }
        // alice's purchase, bob's share an hour later, then each one's renewal.
        #expect(total == 4 && items.count == 4)
        #expect(items.map { $0.value(at: "sequence")?.integerValue } == [4, 3, 2, 1])
        #expect(items.last?.value(at: "notificationType") == .string("SUBSCRIBED"))
        #expect(items.last?.value(at: "recipient") == .string("alice"))
        #expect(items.first?.value(at: "notificationType") == .string("DID_RENEW"))
        #expect(all.value(at: "nextBefore") == nil)
        for item in items {
            // The decoded payload is the signed one's, with the nested transaction decoded in place.
            let signed = try #require(item.value(at: "signedPayload")?.stringValue)
            let payload = try JWS.decodePayload(signed)
            #expect(item.value(at: "payload.notificationUUID") == payload.value(at: "notificationUUID"))
            #expect(item.value(at: "payload.notificationType") == item.value(at: "notificationType"))
            #expect(item.value(at: "payload.data.signedTransactionInfo.productId") == .string(familyProduct))
            #expect(item.value(at: "delivered") == .bool(true))
        }

        // Pages: two at a time, then the rest with `before`.
        let first = server.handle(request("GET", "/simctl/v1/notifications", query: [("limit", "2")])).json
        #expect(first.value(at: "nextBefore") == .integer(3))
        let second = server.handle(
            request("GET", "/simctl/v1/notifications", query: [("limit", "2"), ("before", "3")])
        ).json
        guard case .array(let rest)? = second.value(at: "notifications") else {
            Issue.record("no second page in \(second)")
            return
        }
        #expect(rest.map { $0.value(at: "sequence")?.integerValue } == [2, 1])
        #expect(second.value(at: "nextBefore") == nil)

        for query in [
            [("limit", "0")], [("limit", "101")], [("before", "x")], [("page", "1")], [("limit", "1"), ("limit", "2")],
        ] {
            let answer = server.handle(request("GET", "/simctl/v1/notifications", query: query))
            #expect(answer.status == 400, "\(query): \(answer.bodyText)")
        }
    }

    @Test func theStateCarriesExpiryAutoRenewAccessAndFamily() throws {
        let server = try makeServer()
        purchase(server)
        #expect(server.control("/simctl/v1/advance", #"{"by": "2h"}"#).status == 200)
        let state = server.stateJSON()
        guard case .array(let customers)? = state.value(at: "customers") else {
            Issue.record("no customers in \(state)")
            return
        }
        let alice = try #require(customers.first { $0.value(at: "customer") == .string("alice") })
        let bob = try #require(customers.first { $0.value(at: "customer") == .string("bob") })
        #expect(alice.value(at: "family.organizer") == .string("alice"))
        #expect(alice.value(at: "family.members") == .array([.string("bob")]))
        #expect(bob.value(at: "family.organizer") == .string("alice"))
        #expect(state.value(at: "scenario") == .string("Family billing, driven by the control API"))
        let own = try #require(alice.value(at: "subscriptions.0"))
        #expect(own.value(at: "expiresDate") == .string("2026-04-01T09:00:00Z"))
        #expect(own.value(at: "autoRenewStatus") == .integer(1))
        #expect(own.value(at: "entitled") == .bool(true))
        #expect(own.value(at: "statusName") == .string("active"))
        #expect(own.value(at: "inAppOwnershipType") == .string("PURCHASED"))
        #expect(own.value(at: "purchaser") == .string("alice"))
        let share = try #require(bob.value(at: "subscriptions.0"))
        #expect(share.value(at: "inAppOwnershipType") == .string("FAMILY_SHARED"))
        #expect(share.value(at: "purchaser") == .string("alice"))

        // Cancelled: auto-renew off; refunded: revoked, no access.
        let cancel = server.control(
            "/simctl/v1/actions", #"{"cancel": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        #expect(cancel.status == 200)
        #expect(server.stateJSON().value(at: "customers.0.subscriptions.0.autoRenewStatus") == .integer(0))
        let refund = server.control(
            "/simctl/v1/actions", #"{"refund": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        #expect(refund.status == 200)
        let after = server.stateJSON()
        #expect(after.value(at: "customers.0.subscriptions.0.statusName") == .string("revoked"))
        #expect(after.value(at: "customers.0.subscriptions.0.entitled") == .bool(false))
    }

    @Test func theActionsAreDescribedFromTheActionTable() throws {
        let server = try makeServer()
        let answer = server.handle(request("GET", "/simctl/v1/actions"))
        #expect(answer.status == 200)
        let description = answer.json
        guard case .array(let actions)? = description.value(at: "actions") else {
            Issue.record("no actions in \(description)")
            return
        }
        #expect(actions.map { $0.value(at: "name")?.stringValue } == ScenarioActionSpec.all.map(\.name))
        #expect(description.value(at: "at.name") == .string("at"))
        #expect(description.value(at: "products") == .array([.string(familyProduct)]))
        #expect(server.handle(request("GET", "/simctl/v1/actions", query: [("x", "1")])).status == 400)
        #expect(server.handle(request("DELETE", "/simctl/v1/actions")).status == 405)

        // A body made from the description alone, every argument given a value of its type: the decoder takes every
        // key the description names (no "unknown key"), and every few-valued argument lists its values.
        for action in actions {
            let name = try #require(action.value(at: "name")?.stringValue)
            guard case .array(let arguments)? = action.value(at: "arguments") else { continue }
            var members: [String: JSONValue] = [:]
            for argument in arguments {
                let key = try #require(argument.value(at: "name")?.stringValue)
                let kind = try #require(argument.value(at: "kind")?.stringValue)
                if kind == "choice" || kind == "plan" || kind == "bool" || kind == "product" {
                    guard case .array(let choices)? = argument.value(at: "choices"), let first = choices.first else {
                        Issue.record("\(name).\(key) (\(kind)) lists no choices")
                        continue
                    }
                    members[key] = argument.value(at: "type") == .string("boolean") ? .bool(true) : first
                    continue
                }
                switch argument.value(at: "type")?.stringValue {
                case "integer": members[key] = .integer(1)
                case "array": members[key] = .array([.string("USA")])
                default:
                    switch kind {
                    case "customer": members[key] = .string("alice")
                    case "price": members[key] = .string("19.99")
                    case "time": members[key] = .string("1d")
                    case "storefront": members[key] = .string("USA")
                    default: members[key] = .string("x")
                    }
                }
            }
            let body = CanonicalJSON.string(.object([name: .object(members)]))
            let performed = server.control("/simctl/v1/actions", body)
            #expect(
                !performed.bodyText.contains("unknown key") && !performed.bodyText.contains("missing key"),
                "\(body): \(performed.bodyText)")
        }
    }

    @Test func aResendMakesOneMoreAttemptOfTheSameBody() throws {
        let transport = RecordingTransport()
        let server = try makeServer(transport: transport)
        purchase(server)
        let list = server.handle(request("GET", "/simctl/v1/notifications")).json
        let uuid = try #require(list.value(at: "notifications.0.notificationUUID")?.stringValue)
        let before = transport.requests.count
        let answer = server.handle(request("POST", "/simctl/v1/notifications/\(uuid)/resend"))
        #expect(answer.status == 200, "\(answer.bodyText)")
        #expect(answer.json.value(at: "resend.attempt") == .integer(2))
        #expect(answer.json.value(at: "resend.sendAttemptResult") == .string("SUCCESS"))
        #expect(answer.json.value(at: "resend.resend") == .bool(true))
        #expect(transport.requests.count == before + 1)
        let original = try #require(transport.requests.first { $0.item.notificationUUID == uuid })
        #expect(transport.requests.last?.body == original.body)
        let deliveries = server.handle(request("GET", "/simctl/v1/deliveries")).json
        #expect(deliveries.value(at: "resends.0.notificationUUID") == .string(uuid))
        #expect(server.stateJSON().value(at: "resends") == .integer(1))

        #expect(server.handle(request("POST", "/simctl/v1/notifications/no-such-uuid/resend")).status == 404)
        let quiet = try makeServer(transport: nil)
        purchase(quiet)
        let refused = quiet.handle(request("POST", "/simctl/v1/notifications/\(uuid)/resend"))
        #expect(refused.status == 409)
        #expect(refused.bodyText.contains("--deliver"))
    }

    @Test func thePageIsSelfContainedAndCallsOnlyServedEndpoints() throws {
        let server = try makeServer()
        let root = server.handle(request("GET", "/"))
        #expect(root.status == 303)
        #expect(root.headers.contains(ServerHeader(name: "Location", value: "/simctl/v1/ui")))
        var texts: [String] = []
        for (path, type) in [
            ("/simctl/v1/ui", "text/html"), ("/simctl/v1/ui/dashboard.js", "text/javascript"),
            ("/simctl/v1/ui/dashboard.css", "text/css"),
        ] {
            let answer = server.handle(request("GET", path))
            #expect(answer.status == 200)
            #expect(answer.headers.contains(ServerHeader(name: "Content-Type", value: type + "; charset=utf-8")))
            let policy = try #require(answer.headers.first { $0.name == "Content-Security-Policy" }?.value)
            #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"))
            // No URL of another site: no scheme anywhere in the page, its script or its stylesheet.
            #expect(!answer.bodyText.contains("http:") && !answer.bodyText.contains("https:"), "\(path)")
            #expect(!answer.bodyText.contains("//cdn") && !answer.bodyText.contains("@import"), "\(path)")
            texts.append(answer.bodyText)
        }
        // Every file the page loads is one the server serves.
        let html = texts[0]
        for attribute in ["src=\"", "href=\""] {
            for piece in html.components(separatedBy: attribute).dropFirst() {
                let url = String(piece.prefix { $0 != "\"" })
                #expect(url.hasPrefix("/simctl/v1/ui/") || url.hasPrefix("data:") || url.hasPrefix("#"), "\(url)")
            }
        }
        // Every control API call of the script names a route the server serves.
        let served = SimulatorServer.servedPaths
        let script = texts[1]
        var calls: [(method: String, path: String)] = []
        for piece in script.components(separatedBy: "call(\"").dropFirst() {
            // `call("GET", "/state")`: a literal path; `call(method, path, body)` is the helper itself.
            let method = String(piece.prefix { $0 != "\"" })
            let rest = piece.dropFirst(method.count)
            guard rest.hasPrefix("\", \"/") else { continue }
            calls.append((method, String(rest.dropFirst(5).prefix { $0 != "\"" && $0 != "?" })))
        }
        for piece in script.components(separatedBy: "change(\"/").dropFirst() {
            calls.append(("POST", String(piece.prefix { $0 != "\"" })))
        }
        for (method, tail) in calls {
            let path = "/simctl/v1/" + tail
            let matches = served.contains { route in
                guard route.method == method else { return false }
                let want = route.path.split(separator: "/", omittingEmptySubsequences: false)
                let have = path.split(separator: "/", omittingEmptySubsequences: false)
                // `/notifications/" + uuid + "/resend`: the script's literal stops at the parameter.
                if path.hasSuffix("/notifications/") { return route.path.hasPrefix(path) }
                return want.count == have.count && zip(want, have).allSatisfy { $0 == "*" || $0 == $1 }
            }
            #expect(matches, "\(method) \(path)")
        }
        #expect(calls.count >= 8)
    }
}

/// The Host and Origin rules of the dashboard and `/simctl/` (rule browser-host-allowed, rule
/// browser-same-origin-changes).
@Suite struct BrowserSafetyTests {
    func server(allowing names: [String] = [], listen: String = "127.0.0.1") throws -> SimulatorServer {
        var configuration = ServerConfiguration(scenario: try decodeScenario(familyServeScenario))
        configuration.allowedHosts = names
        configuration.listenHost = listen
        return try SimulatorServer(configuration: configuration)
    }

    func get(_ server: SimulatorServer, _ path: String, host: String?, token: Bool = false) -> ServerResponse {
        var headers: [(name: String, value: String)] = host.map { [(name: "Host", value: $0)] } ?? []
        if token { headers.append((name: "Authorization", value: "Bearer \(TestAPIKey().token())")) }
        return server.handle(ServerRequest(method: "GET", path: path, headers: headers))
    }

    @Test(arguments: [
        "127.0.0.1:8080", "localhost:8080", "LOCALHOST", "app.localhost:1", "[::1]:8080", "10.1.2.3:8080",
        "192.168.0.7", "[fe80::1]:80",
    ])
    func loopbackNamesAndAddressesPass(host: String) throws {
        let server = try server()
        #expect(get(server, "/simctl/v1/state", host: host).status == 200)
        #expect(get(server, "/", host: host).status == 303)
    }

    @Test(arguments: [
        "evil.example:8080", "evil.example", "127.0.0.1.nip.io:8080", "simctl:8080", "localhost.evil.example", "",
    ])
    func otherNamesAreRefusedOnTheDashboardAndTheControlAPI(host: String) throws {
        let server = try server()
        for path in ["/", "/simctl/v1/ui", "/simctl/v1/state", "/simctl/v1/health", "/simctl/v1/nowhere"] {
            let answer = get(server, path, host: host)
            #expect(answer.status == 403, "\(host) \(path): \(answer.bodyText)")
            #expect(answer.bodyText.contains("rule browser-host-allowed"))
        }
        let advance = server.handle(
            ServerRequest(
                method: "POST", path: "/simctl/v1/advance", headers: [(name: "Host", value: host)],
                body: Array(#"{"by": "P1M"}"#.utf8)))
        #expect(advance.status == 403)
        #expect(server.stateJSON().value(at: "at") == .string("2026-03-01T09:00:00Z"))
        // Apple's routes take any Host (a TLS front, a container network).
        let apple = get(server, "/inApps/v1/subscriptions/1", host: host, token: true)
        #expect(apple.status != 403, "\(apple.bodyText)")
    }

    @Test func namesGivenWithAllowHostAndTheListenAddressPass() throws {
        let server = try server(allowing: ["simctl", "Api.Test.Internal."], listen: "myhost")
        for host in ["simctl:8080", "SIMCTL", "api.test.internal:443", "myhost:9000"] {
            #expect(get(server, "/simctl/v1/state", host: host).status == 200, "\(host)")
        }
        #expect(get(server, "/simctl/v1/state", host: "other:8080").status == 403)
        // Without Host (HTTP/1.0, hand-made clients): accepted.
        #expect(get(server, "/simctl/v1/state", host: nil).status == 200)
    }

    func advance(_ server: SimulatorServer, origin: String?, host: String = "127.0.0.1:8080") -> ServerResponse {
        var headers = [(name: "Host", value: host)]
        if let origin { headers.append((name: "Origin", value: origin)) }
        return server.handle(
            ServerRequest(
                method: "POST", path: "/simctl/v1/advance", headers: headers, body: Array(#"{"by": "1d"}"#.utf8)))
    }

    @Test func changesFromAnotherOriginAreRefusedAndTheServersOwnPass() throws {
        let server = try server()
        for origin in ["http://evil.example", "http://127.0.0.1:9999", "null", "http://127.0.0.1:8080/x", "file://"] {
            let answer = advance(server, origin: origin)
            #expect(answer.status == 403, "\(origin)")
            #expect(answer.bodyText.contains("rule browser-same-origin-changes"))
        }
        #expect(server.stateJSON().value(at: "at") == .string("2026-03-01T09:00:00Z"))
        #expect(advance(server, origin: "http://127.0.0.1:8080").status == 200)
        #expect(advance(server, origin: "https://127.0.0.1:8080").status == 200)
        #expect(advance(server, origin: nil).status == 200)
        #expect(server.stateJSON().value(at: "at") == .string("2026-03-04T09:00:00Z"))
        // Reads with a foreign Origin are not changes (and a browser keeps their answers from the page: no CORS).
        let read = server.handle(
            ServerRequest(
                method: "GET", path: "/simctl/v1/state",
                headers: [(name: "Host", value: "127.0.0.1:8080"), (name: "Origin", value: "http://evil.example")]))
        #expect(read.status == 200)
        #expect(!read.headers.contains { $0.name.lowercased().hasPrefix("access-control") })
        // Apple's routes are not checked.
        let apple = server.handle(
            ServerRequest(
                method: "POST", path: "/inApps/v1/notifications/test",
                headers: [
                    (name: "Origin", value: "http://evil.example"),
                    (name: "Authorization", value: "Bearer \(TestAPIKey().token())"),
                ]))
        #expect(apple.status != 403)
    }

    @Test func allowHostParsesRepeatsAndListsAndComesFromTheEnvironment() throws {
        let options = try ServeCommand.parse(["s.yaml", "--allow-host", "simctl,api.internal", "--allow-host=[::1]"])
        #expect(options.allowHosts == ["simctl", "api.internal", "[::1]"])
        for bad in ["http://simctl", "simctl:8080", "", "a b", "simctl/x"] {
            #expect(throws: UsageError.self) { try ServeCommand.parse(["s.yaml", "--allow-host", bad]) }
        }
        let (arguments, _) = ServeEnvironment.arguments(["s.yaml"], environment: ["SIMCTL_ALLOW_HOST": "simctl"])
        #expect(try ServeCommand.parse(arguments).allowHosts == ["simctl"])
        let (given, _) = ServeEnvironment.arguments(
            ["s.yaml", "--allow-host", "mine"], environment: ["SIMCTL_ALLOW_HOST": "simctl"])
        #expect(try ServeCommand.parse(given).allowHosts == ["mine"])
    }
}
