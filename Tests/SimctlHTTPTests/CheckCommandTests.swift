import Foundation
import SimctlHTTP
import SubscriptionSimulator
import Testing

@testable import SimctlCommand

/// `simctl check` on the command line (docs/check.md, "The command line"): usage errors, a backend that forgets
/// everything (found, shrunk, written, replayed), one that cannot be judged, and the Python reference backend.
@Suite struct CheckCommandTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let header = packageRoot.appendingPathComponent("Tests/Check/header.yaml").path

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A valid --deliver and --entitlements pair, at the end of the arguments.
    static let urls = [
        "--deliver", "http://127.0.0.1:1/", "--entitlements", "http://127.0.0.1:1/{originalTransactionId}",
    ]

    /// Arguments that are usage errors, with the message each gives.
    static let usageCases: [([String], String)] = [
        ([], "'check' needs a scenario file"),
        (
            ["x.yaml", "--entitlements", "http://127.0.0.1:1/{originalTransactionId}"],
            "'check' needs '--deliver URL'"
        ),
        (["x.yaml", "--deliver", "http://127.0.0.1:1/"], "'check' needs '--entitlements TEMPLATE'"),
        (
            ["x.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements", "http://127.0.0.1:1/e"],
            "needs a URL containing {originalTransactionId}"
        ),
        (
            [
                "x.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements",
                "https://127.0.0.1:1/{originalTransactionId}",
            ],
            "option '--entitlements': invalid URL 'https://127.0.0.1:1/{originalTransactionId}': https is not "
                + "supported by this client"
        ),
        (
            [
                "x.yaml", "--deliver", "ftp://example.com/", "--entitlements",
                "http://127.0.0.1:1/{originalTransactionId}",
            ],
            "ftp://example.com/"
        ),
        (
            ["x.yaml", "--deliver-connections", "0"] + Self.urls,
            "option '--deliver-connections' needs a whole number from 1 to 64, found '0'"
        ),
        (["x.yaml", "--deliver-timeout", "0s"] + Self.urls, "option '--deliver-timeout' needs a duration"),
        (
            ["x.yaml", "--chaos-fail-first", "6"] + Self.urls,
            "option '--chaos-fail-first' needs a whole number from 0 to 5"
        ),
        (["x.yaml", "--chaos-duplicate", "2"] + Self.urls, "option '--chaos-duplicate' needs a share from 0 to 1"),
        (["x.yaml", "--chaos-fail-rate", "x"] + Self.urls, "option '--chaos-fail-rate' needs a share from 0 to 1"),
        (
            ["x.yaml", "--deliver-connections", "2", "--deliver-connections", "3"] + Self.urls,
            "option '--deliver-connections' is given twice"
        ),
        (
            ["x.yaml", "--deliver-mode", "sandbox"] + Self.urls,
            "option '--deliver-mode' of 'simctl run' does not apply to 'check'"
        ),
        (
            ["x.yaml", "--chaos-reorder-window", "1h"] + Self.urls,
            "option '--chaos-reorder-window' of 'simctl run' does not apply"
        ),
        (
            ["x.yaml", "--delivery-log", "d.jsonl"] + Self.urls,
            "option '--delivery-log' of 'simctl run' does not apply"
        ),
        (
            ["x.yaml", "--port", "70000"] + Self.urls,
            "option '--port' needs a port number from 0 to 65535, found '70000'"
        ),
        (
            ["x.yaml", "--port", "-1"] + Self.urls,
            "option '--port' needs a port number from 0 to 65535, found '-1'"
        ),
        (["x.yaml", "--log", "server.log"] + Self.urls, "option '--log' needs '--port P'"),
        (["x.yaml", "--api-key-pem", "k.pem"] + Self.urls, "option '--api-key-pem' needs '--port P'"),
        (["x.yaml", "--port", "0", "--host", ""] + Self.urls, "option '--host' needs a value"),
        (["x.yaml"] + Self.urls + ["--port"], "option '--port' needs a value"),
        (
            [
                "x.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements",
                "http://127.0.0.1:1/{originalTransactionId}",
                "--cases", "0",
            ], "option '--cases' needs a whole number from 1 to 1000000, found '0'"
        ),
        (
            [
                "--replay", "c.yaml", "--cases", "5", "--deliver", "http://127.0.0.1:1/", "--entitlements",
                "http://127.0.0.1:1/{originalTransactionId}",
            ], "option '--cases' does not apply to '--replay'"
        ),
        (
            [
                "x.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements",
                "http://127.0.0.1:1/{originalTransactionId}",
                "--settle", "soon",
            ], "option '--settle' needs a duration"
        ),
        (["x.yaml", "--frobnicate"], "unknown option '--frobnicate'"),
        // Issue 47's options.
        (
            ["x.yaml", "--actions", "purchase,refnd"] + Self.urls,
            "option '--actions': unknown action 'refnd' (did you mean 'refund'?)"
        ),
        (["x.yaml", "--without", ""] + Self.urls, "option '--without' needs a comma-separated list of actions"),
        (
            ["x.yaml", "--accept-status", "TEST=200"] + Self.urls,
            "option '--accept-status': 'TEST=200' needs a refusal status from 300 to 599"
        ),
        (["x.yaml", "--accept-status", "TESTT=500"] + Self.urls, "(did you mean 'TEST'?)"),
        (["x.yaml", "--tolerance", "soon"] + Self.urls, "option '--tolerance' needs a duration"),
        (["x.yaml", "--epoch", "later"] + Self.urls, "a whole number from 0 to 4294967295 or 'auto'"),
        (["x.yaml", "--map-product", "a"] + Self.urls, "option '--map-product' needs OLD=NEW"),
        (["x.yaml", "--app-apple-id", "0"] + Self.urls, "option '--app-apple-id' needs a whole number from 1"),
        (
            ["--replay", "c.yaml", "--keep-going"] + Self.urls,
            "option '--keep-going' does not apply to '--replay'"
        ),
        (
            ["--replay", "c.yaml", "--epoch", "auto"] + Self.urls,
            "'--epoch auto' with '--replay' needs '--out DIR'"
        ),
    ]

    /// --max-time values that are not a duration from 1 ms to 7 days.
    static let maxTimeCases: [([String], String)] = ["0", "0s", "soon", "-5s", "1mo", "8d", ""].map { value in
        (
            [
                "x.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements",
                "http://127.0.0.1:1/{originalTransactionId}", "--max-time", value,
            ],
            "option '--max-time' needs a duration such as 500ms, 30s or 5m (at most 604800s), found '\(value)'"
        )
    }

    @Test(arguments: usageCases + maxTimeCases)
    func usageErrors(arguments: [String], message: String) {
        let output = Simctl.main(["check"] + arguments)
        #expect(output.exitCode == 64)
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(output.stderr.contains("see 'simctl help check'"))
    }

    @Test func helpListsCheck() {
        #expect(Simctl.main(["help"]).stdout.contains("check SCENARIO"))
        let help = Simctl.main(["help", "check"])
        #expect(help.exitCode == 0)
        #expect(help.stdout.hasPrefix("USAGE: simctl check SCENARIO --deliver URL --entitlements TEMPLATE"))
        #expect(Simctl.main(["check", "--help"]).stdout == help.stdout)
    }

    @Test func invalidScenarioExits65() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.yaml")
        try Data("name: x\nproducts: 3\n".utf8).write(to: file)
        let output = Simctl.main([
            "check", file.path, "--deliver", "http://127.0.0.1:1/", "--entitlements",
            "http://127.0.0.1:1/{originalTransactionId}",
        ])
        #expect(output.exitCode == 65)
    }

    /// A backend that accepts every notification and knows nothing (404 to every query): the first purchase
    /// diverges; the counterexample is written, runs with `simctl run` (exit 0) and still diverges on `--replay`.
    @Test func forgetfulBackendIsFoundShrunkAndReplayed() throws {
        let receiver = try LoopbackReceiver { message in
            if case .request(let method, _, _) = message.startLine, method == "GET" {
                return .respond(status: 404, body: "")
            }
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let junit = directory.appendingPathComponent("check.xml").path
        let common = [
            "--deliver", receiver.url(), "--entitlements", receiver.url(path: "/entitlements/{originalTransactionId}"),
        ]
        let output = Simctl.main(
            ["check", Self.header, "--cases", "3", "--out", directory.path, "--junit", junit] + common)
        #expect(output.exitCode == 1, "\(output.stderr)")
        #expect(output.stdout.hasPrefix("check: case 1 diverges: 1 case, "))
        #expect(output.stdout.contains("  expected: active, product com.example.monthly"))
        #expect(output.stdout.contains("  answered: unknown (not active)"))
        let yaml = directory.appendingPathComponent("counterexample.yaml").path
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("counterexample.jsonl").path))
        #expect(Simctl.main(["run", yaml]).exitCode == 0)
        let replay = Simctl.main(["check", "--replay", yaml] + common)
        #expect(replay.exitCode == 1)
        #expect(replay.stdout.contains("still diverges"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testsuite name=\"simctl check\" tests=\"1\" failures=\"1\" errors=\"0\""))
        #expect(xml.contains("<failure message=\"diverges: deniesAccess\">"))
    }

    /// Issue 47: `--keep-going --epoch auto` against the forgetful backend: one class, its files and summary.json,
    /// one JUnit testcase per class, the next free epoch kept; `{now}` and `X-Simctl-Now` carry the virtual instant.
    @Test func keepGoingWritesEveryClassAndKeepsTheEpoch() throws {
        let seen = SeenRequests()
        let receiver = try LoopbackReceiver { message in
            let now = message.headers.values("X-Simctl-Now").first ?? "-"
            if case .request(let method, let target, _) = message.startLine, method == "GET" {
                seen.append("GET \(target) \(now)")
                return .respond(status: 404, body: "")
            }
            seen.append("POST \(now)")
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let junit = directory.appendingPathComponent("check.xml").path
        let arguments = [
            "check", Self.header, "--cases", "3", "--keep-going", "--epoch", "auto", "--out", directory.path,
            "--junit", junit, "--deliver", receiver.url(), "--entitlements",
            receiver.url(path: "/entitlements/{originalTransactionId}?now={now}&iso={nowISO}"),
        ]
        try Data("500\n".utf8).write(to: directory.appendingPathComponent(".simctl-epoch"))
        let output = Simctl.main(arguments)
        #expect(output.exitCode == 1, "\(output.stderr)")
        // The forgetful backend denies every purchase: each case's first one is the only class (the prefix's purchase
        // shares its instant with other actions, which do not send SUBSCRIBED to its customer).
        #expect(output.stdout.hasPrefix("check: 1 class of divergence: 3 cases, "), "\(output.stdout)")
        #expect(output.stdout.contains("      1  deniesAccess: after SUBSCRIBED/INITIAL_BUY (caused by purchase)\n"))
        #expect(output.stdout.contains("vocabulary: purchase 8, "))
        #expect(output.stdout.contains("epochs: 500 to "))
        for name in ["counterexample-1.yaml", "counterexample-1.jsonl", "summary.json"] {
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path), "\(name)")
        }
        #expect(Simctl.main(["run", directory.appendingPathComponent("counterexample-1.yaml").path]).exitCode == 0)
        let summary = try String(contentsOf: directory.appendingPathComponent("summary.json"), encoding: .utf8)
        #expect(summary.contains("\"firstEpoch\" : 500"), "\(summary)")
        let next = try String(contentsOf: directory.appendingPathComponent(".simctl-epoch"), encoding: .utf8)
        #expect(summary.contains("\"nextEpoch\" : \(next.dropLast())"), "\(next)")
        #expect(UInt32(next.dropLast()).map { $0 > 503 } == true)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("tests=\"1\" failures=\"1\""), "\(xml)")
        let requests = seen.all
        #expect(requests.contains { $0.hasPrefix("POST 17") }, "every delivery carries X-Simctl-Now")
        let query = requests.first { $0.hasPrefix("GET ") } ?? ""
        // The query's {now}, {nowISO} and header: the same virtual instant (the case starts 2026-03-01T09:00:00Z).
        #expect(query.contains("?now=1772355600000&iso=2026-03-01T09:00:00Z 1772355600000"), "\(query)")
        // A second run starts where the first stopped.
        let again = Simctl.main(arguments)
        #expect(again.stdout.contains("epochs: \(next.dropLast()) to "), "\(again.stdout)")
        try Data("x\n".utf8).write(to: directory.appendingPathComponent(".simctl-epoch"))
        let broken = Simctl.main(arguments)
        #expect(broken.exitCode == 65 && broken.stderr.contains(".simctl-epoch:1:1: expected the next free epoch"))
    }

    /// An entitlement answer that is not the contract's JSON, and an unreachable backend: exit 2.
    @Test func backendThatCannotBeJudgedExits2() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 200, body: "<html>") }
        defer { receiver.stop() }
        let output = Simctl.main([
            "check", Self.header, "--cases", "2", "--deliver", receiver.url(), "--entitlements",
            receiver.url(path: "/e/{originalTransactionId}"),
        ])
        #expect(output.exitCode == 2)
        #expect(output.stdout.contains("cannot be judged"))
        #expect(output.stdout.contains("expected JSON with a boolean \"active\""))
    }

    /// The delivery options of `simctl run`, parsed by the same code (``DeliveryOptions/Builder``).
    @Test func parsesRunsDeliveryOptions() throws {
        let options = try CheckCommand.parse(
            [
                "x.yaml", "--deliver", "https://example.com/hook", "--entitlements",
                "http://127.0.0.1:1/{originalTransactionId}", "--deliver-connections", "4", "--deliver-timeout", "2s",
                "--chaos-duplicate", "0.5", "--chaos-fail-rate", "0.25", "--chaos-fail-first", "3", "--port", "0",
                "--log", "server.log",
            ])
        #expect(options.deliver == "https://example.com/hook")
        #expect(options.connections == 4)
        #expect(options.timeoutMilliseconds == 2000)
        #expect(options.chaos == CheckChaos(duplicateRate: 0.5, failureRate: 0.25, maximumFailedAttempts: 3))
        #expect(options.port == 0 && options.logFile == "server.log" && options.host == "127.0.0.1")
        let none = try CheckCommand.parse(["x.yaml", "--chaos-fail-first", "0"] + Self.urls)
        #expect(none.chaos.failureRate == 0)
        #expect(none.port == nil)
    }

    /// `--port`: a backend that calls the server back while its notification is being delivered is answered at
    /// once, from the running case's store at the notification's instant; a request that would change the store
    /// is refused (409 on the control API); the log has every request.
    @Test func portServesTheRunningCasesStore() throws {
        let free = try LoopbackReceiver { _ in .respond(status: 200, body: "") }
        let port = free.port
        free.stop()
        let seen = Seen()
        let receiver = try LoopbackReceiver { message in
            if case .request(let method, _, _) = message.startLine, method == "GET" {
                return .respond(status: 404, body: "")
            }
            let client = HTTPClient(endpoint: HTTPEndpoint(host: "127.0.0.1", port: port, target: "/simctl/v1/advance"))
            defer { client.close() }
            var now: Int64?
            if case .success(let state) = client.get("/simctl/v1/state"), state.status == 200,
                let json = try? JSONSerialization.jsonObject(with: Data(state.body)) as? [String: Any]
            {
                now = (json["now"] as? NSNumber)?.int64Value
            }
            let advance = client.post(Array("{\"by\": \"P1D\"}".utf8))
            let refused = (try? advance.get().status) == 409
            let body = (try? JSONSerialization.jsonObject(with: Data(message.body)) as? [String: Any]) ?? [:]
            let signedDate = (body["signedPayload"] as? String).flatMap(Self.signedDate)
            seen.add(signedDate: signedDate, now: now, refused: refused)
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("server.log").path
        let output = Simctl.main([
            "check", Self.header, "--cases", "2", "--no-shrink", "--no-retries", "--no-duplicates", "--out",
            directory.path, "--port", String(port), "--log", log, "--deliver", receiver.url(), "--entitlements",
            receiver.url(path: "/entitlements/{originalTransactionId}"),
        ])
        #expect(output.exitCode == 1, "\(output.stderr)")
        let calls = seen.all()
        #expect(!calls.isEmpty)
        for call in calls {
            #expect(call.now != nil && call.now == call.signedDate, "\(call)")
            #expect(call.refused)
        }
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("GET /simctl/v1/state -> 200"))
        #expect(text.contains("POST /simctl/v1/advance -> 409"))
        #expect(text.contains("not available during check"))
    }

    /// The `signedDate` of a notification's JWS payload.
    static func signedDate(_ jws: String) -> Int64? {
        let parts = jws.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return (json["signedDate"] as? NSNumber)?.int64Value
    }

    /// What the backend of ``portServesTheRunningCasesStore()`` saw, from its connection threads.
    final class Seen: @unchecked Sendable {
        struct Call { var signedDate: Int64?; var now: Int64?; var refused: Bool }
        let lock = NSLock()
        var calls: [Call] = []
        func add(signedDate: Int64?, now: Int64?, refused: Bool) {
            lock.lock()
            calls.append(Call(signedDate: signedDate, now: now, refused: refused))
            lock.unlock()
        }
        func all() -> [Call] {
            lock.lock()
            defer { lock.unlock() }
            return calls
        }
    }
}

/// Requests a test's receiver saw, from its threads.
final class SeenRequests: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
