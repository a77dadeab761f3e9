import Foundation
import SimctlCommand
import SimctlHTTP
import SubscriptionSimulator
import Testing

/// `simctl run FILE --deliver URL` against a receiver on loopback started by the test.
@Suite struct DeliveryEndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let scenario = root.appendingPathComponent("Scenarios/family-stop-sharing.yaml").path

    static func scenarioFiles() -> [String] {
        let folder = root.appendingPathComponent("Scenarios")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasSuffix(".yaml")
        }.sorted()
    }

    static func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("simctl-delivery-\(UUIDText.next()).jsonl").path
    }

    /// The log's lines as JSON objects.
    static func log(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    /// The log without the wall-clock field (the only one that differs between runs).
    static func virtualLog(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            $0.replacingOccurrences(of: #","wallLatencyMs":[0-9.]+"#, with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

    static func jsonl(_ file: String) -> [String] {
        Simctl.main(["run", file, "--format", "jsonl"]).stdout.split(separator: "\n").map(String.init)
    }

    @Test(arguments: scenarioFiles())
    func everyNotificationOfEveryScenarioArrivesByteIdenticalToJSONL(file: String) throws {
        let path = Self.root.appendingPathComponent("Scenarios/\(file)").path
        let seen = Recorder()
        let receiver = try LoopbackReceiver { message in
            seen.add(message)
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let result = try BinaryRun.run(["run", path, "--format", "jsonl", "--deliver", receiver.url(path: "/asn")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(seen.bodies == Self.jsonl(path))
        #expect(seen.bodies.joined(separator: "\n") + "\n" == result.stdout, "stdout is still the jsonl stream")
        #expect(seen.messages.allSatisfy { $0.headers["Content-Type"] == "application/json" })
    }

    /// The signer chosen for the run (environment, `--ca-seed`) signs what is delivered exactly as it signs jsonl.
    @Test(arguments: [["--environment", "Sandbox"], ["--ca-seed", "my-team-ca"]])
    func deliveredBodiesAreSignedLikeTheJSONLStream(signing: [String]) throws {
        let seen = Recorder()
        let receiver = try LoopbackReceiver { message in
            seen.add(message)
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let output = Simctl.main(["run", Self.scenario, "--deliver", receiver.url()] + signing)
        #expect(output.exitCode == 0, "\(output.stderr)")
        let signed = Simctl.main(["run", Self.scenario, "--format", "jsonl"] + signing).stdout
        #expect(seen.bodies == signed.split(separator: "\n").map(String.init))
        #expect(seen.bodies != Self.jsonl(Self.scenario), "the placeholder signature is not what was asked for")
    }

    @Test func aReceiverFailingThreeTimesGetsTheFourthAttemptAt1h12h24hLater() throws {
        let counts = Counter()
        let receiver = try LoopbackReceiver { message in
            counts.increment(message.body) <= 3 ? .respond(status: 503, body: "busy") : .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let log = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = Simctl.main(["run", Self.scenario, "--deliver", receiver.url(), "--delivery-log", log])
        #expect(output.exitCode == 0, "\(output.stderr)")
        let entries = try Self.log(log)
        let bodies = Self.jsonl(Self.scenario)
        #expect(entries.count == 4 * bodies.count)
        for uuid in Set(entries.map { $0["notificationUUID"] as! String }) {
            let attempts = entries.filter { $0["notificationUUID"] as! String == uuid }
            let instants = attempts.map { ($0["instant"] as! NSNumber).int64Value }
            #expect(instants.map { $0 - instants[0] } == [0, 1, 13, 37].map { $0 * 3_600_000 })
            #expect(
                attempts.map { $0["sendAttemptResult"] as! String } == [
                    "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE",
                    "UNSUCCESSFUL_HTTP_RESPONSE_CODE",
                    "SUCCESS",
                ])
            #expect(attempts.map { $0["httpStatus"] as! Int } == [503, 503, 503, 200])
            #expect(attempts.map { $0["attempt"] as! Int } == [1, 2, 3, 4])
        }
    }

    @Test func aReceiverThatIsDownGetsNothingAndEveryNotificationIsReportedUndelivered() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 200, body: "") }
        let url = receiver.url()
        receiver.stop()
        let log = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = Simctl.main(["run", Self.scenario, "--deliver", url, "--delivery-log", log])
        #expect(output.exitCode == ExitCode.undelivered)
        let count = Self.jsonl(Self.scenario).count
        #expect(output.stderr.contains("0 of \(count) notifications delivered in \(6 * count) attempts"))
        #expect(output.stderr.components(separatedBy: "undelivered: ").count - 1 == count)
        let entries = try Self.log(log)
        #expect(entries.count == 6 * count)
        #expect(entries.allSatisfy { $0["sendAttemptResult"] as! String == "SOCKET_ISSUE" && $0["httpStatus"] == nil })
    }

    @Test func sandboxModeTriesOnce() throws {
        let seen = Recorder()
        let receiver = try LoopbackReceiver { message in
            seen.add(message)
            return .respond(status: 500, body: "")
        }
        defer { receiver.stop() }
        let output = Simctl.main(["run", Self.scenario, "--deliver", receiver.url(), "--deliver-mode", "sandbox"])
        #expect(output.exitCode == ExitCode.undelivered)
        #expect(seen.bodies == Self.jsonl(Self.scenario))
    }

    @Test func aReceiverThatNeverAnswersIsCutOffAtTheTimeoutAndRecordedAsTimedOut() throws {
        let receiver = try LoopbackReceiver { _ in .hold }
        defer { receiver.stop() }
        let log = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = Simctl.main([
            "run", Self.scenario, "--deliver", receiver.url(), "--deliver-mode", "sandbox", "--deliver-timeout",
            "150ms", "--delivery-log", log,
        ])
        #expect(output.exitCode == ExitCode.undelivered)
        let entries = try Self.log(log)
        #expect(entries.count == Self.jsonl(Self.scenario).count)
        #expect(entries.allSatisfy { $0["sendAttemptResult"] as! String == "TIMED_OUT" })
    }

    @Test func chaosIsReproducibleFromTheSeed() throws {
        func run(seed: String) throws -> (log: String, bodies: [String]) {
            let seen = Recorder()
            let receiver = try LoopbackReceiver { message in
                seen.add(message)
                return .respond(status: 200, body: "")
            }
            defer { receiver.stop() }
            let log = Self.temporaryFile()
            defer { try? FileManager.default.removeItem(atPath: log) }
            let output = Simctl.main([
                "run", Self.root.appendingPathComponent("Scenarios/family-member-joins.yaml").path, "--seed", seed,
                "--deliver", receiver.url(), "--delivery-log", log, "--chaos-duplicate", "0.5",
                "--chaos-reorder-window", "2h", "--chaos-fail-first", "1", "--chaos-fail-rate", "0.5",
            ])
            #expect(output.exitCode == 0, "\(output.stderr)")
            return (try Self.virtualLog(log), seen.bodies)
        }
        let first = try run(seed: "7")
        let again = try run(seed: "7")
        let other = try run(seed: "8")
        #expect(first.log == again.log && first.bodies == again.bodies)
        #expect(first.log.contains(#""chaos":"duplicate""#) && first.log.contains(#""chaos":"failFirst""#))
        #expect(first.log != other.log)
        let expected = Simctl.main([
            "run", Self.root.appendingPathComponent("Scenarios/family-member-joins.yaml").path, "--seed", "7",
            "--format",
            "jsonl",
        ]).stdout.split(separator: "\n").map(String.init)
        #expect(Set(first.bodies) == Set(expected) && first.bodies.count > expected.count, "all arrive, some twice")
    }

    @Test func severalConnectionsDeliverEverything() throws {
        let seen = Recorder()
        let receiver = try LoopbackReceiver { message in
            seen.add(message)
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let output = Simctl.main(["run", Self.scenario, "--deliver", receiver.url(), "--deliver-connections", "4"])
        #expect(output.exitCode == 0, "\(output.stderr)")
        #expect(seen.bodies.sorted() == Self.jsonl(Self.scenario).sorted())
    }

    @Test func badHTTPSURLsAreRefusedWithAClearError() {
        let output = Simctl.main(["run", Self.scenario, "--deliver", "https:///asn"])
        #expect(output.exitCode == ExitCode.usage)
        #expect(output.stderr.contains("invalid delivery URL 'https:///asn'"), "\(output.stderr)")
    }

    @Test(arguments: [
        ["--delivery-log", "x.jsonl"], ["--deliver", "http://127.0.0.1:1/", "--deliver-mode", "staging"],
        ["--deliver", "http://127.0.0.1:1/", "--deliver-timeout", "0"],
        ["--deliver", "http://127.0.0.1:1/", "--deliver-timeout", "99999999999999999w"],
        ["--deliver", "http://127.0.0.1:1/", "--deliver-timeout", "P1M"],
        ["--deliver", "http://127.0.0.1:1/", "--chaos-reorder-window", "9223372036854775807ms"],
        ["--deliver", "http://127.0.0.1:1/", "--chaos-reorder-window", "366d"],
        ["--deliver", "http://127.0.0.1:1/", "--chaos-duplicate", "1.5"],
        ["--deliver", "http://127.0.0.1:1/", "--chaos-fail-first", "6"],
        ["--deliver", "http://127.0.0.1:1/", "--deliver-connections", "0"],
        ["--deliver", "http://127.0.0.1:1/", "--deliver", "http://127.0.0.1:2/"],
    ])
    func badDeliveryOptionsAreUsageErrors(options: [String]) {
        let output = Simctl.main(["run", Self.scenario] + options)
        #expect(output.exitCode == ExitCode.usage)
        #expect(output.stderr.hasPrefix("error: "))
    }
}

/// How many times each body arrived, from any thread.
final class Counter: @unchecked Sendable {
    let lock = NSLock()
    var counts: [[UInt8]: Int] = [:]

    /// Counts one more arrival of `body` and returns its count.
    func increment(_ body: [UInt8]) -> Int {
        lock.lock()
        defer { lock.unlock() }
        counts[body, default: 0] += 1
        return counts[body]!
    }
}

enum UUIDText {
    static func next() -> String { UUID().uuidString }
}

/// Runs the built `simctl` binary (found next to the test bundle, or in .build).
enum BinaryRun {
    struct Result {
        var stdout: String
        var stderr: String
        var status: Int32
    }

    static var binary: URL {
        let besideTests = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("simctl")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        for candidate in [".build/debug/simctl", ".build/release/simctl"] {
            let url = DeliveryEndToEndTests.root.appendingPathComponent(candidate)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return besideTests
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = DeliveryEndToEndTests.root
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
            status: process.terminationStatus)
    }
}
