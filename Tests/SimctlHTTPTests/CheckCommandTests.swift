import Foundation
import SimctlHTTP
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

    @Test(
        arguments: [
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
                    "x.yaml", "--deliver", "https://example.com/", "--entitlements",
                    "http://127.0.0.1:1/{originalTransactionId}",
                ],
                "https is not supported"
            ),
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
        ]
            + ["0", "0s", "soon", "-5s", "1mo", "8d", ""].map { value in
                (
                    [
                        "x.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements",
                        "http://127.0.0.1:1/{originalTransactionId}", "--max-time", value,
                    ],
                    "option '--max-time' needs a duration such as 500ms, 30s or 5m (at most 604800s), found '\(value)'"
                )
            })
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

    @Test func escapesJUnitText() {
        #expect(CheckCommand.escape("a<b & \"c\"\u{1}") == "a&lt;b &amp; &quot;c&quot;")
    }
}
