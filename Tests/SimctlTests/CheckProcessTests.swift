import Foundation
import Testing

/// `simctl check` as a user runs it, against the correct Python reference backend (Tests/Check/backend.py): progress
/// on standard error only when it is a terminal, and `--max-time` stopping early with a summary (docs/check.md, "The
/// command line").
@Suite(.serialized) struct CheckProcessTests {
    /// The correct reference backend, listening on a free port until `stop()`.
    final class PythonBackend {
        let process = Process()
        let port: String

        init() throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "Tests/Check/backend.py", "--port", "0"]
            process.currentDirectoryURL = SimctlProcess.packageRoot
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            // The backend prints `listening on PORT` once it listens.
            var text = ""
            while !text.contains("\n") {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let line = text.split(separator: "\n").first, line.hasPrefix("listening on ") else {
                kill(process.processIdentifier, SIGKILL)
                throw BackendError(output: text)
            }
            port = String(line.dropFirst("listening on ".count))
        }

        struct BackendError: Error { var output: String }

        var arguments: [String] {
            [
                "--deliver", "http://127.0.0.1:\(port)/", "--entitlements",
                "http://127.0.0.1:\(port)/entitlements/{originalTransactionId}",
            ]
        }

        /// SIGKILL: a process started from a test thread inherits its blocked signals, SIGTERM among them.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    static let header = "Tests/Check/header.yaml"

    /// Standard error a pipe: the wall-clock line only, no progress.
    @Test func progressIsSilentInAPipe() throws {
        let backend = try PythonBackend()
        defer { backend.stop() }
        let result = try SimctlProcess.run(["check", Self.header, "--cases", "3", "--seed", "1"] + backend.arguments)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("check: every case agrees with the store: 3 cases, "), "\(result.stdout)")
        #expect(
            result.stderr.wholeMatch(of: /check: [0-9]+\.[0-9] s of wall clock\n/) != nil, "\(result.stderr)")
    }

    /// Standard error a terminal (`script` gives the command a pseudo-terminal): cases done and notifications
    /// delivered, on one line rewritten with carriage returns.
    @Test func progressShowsOnATerminal() throws {
        let backend = try PythonBackend()
        defer { backend.stop() }
        let command =
            ([SimctlProcess.binary.path, "check", Self.header, "--cases", "3", "--seed", "1"] + backend.arguments)
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let result = try SimctlProcess.run(
            ["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\rcase 1/3, "), "\(result.stdout)")
        #expect(result.stdout.contains("\rcase 3/3, "), "\(result.stdout)")
        #expect(result.stdout.contains(" notifications delivered"))
        #expect(result.stdout.contains("check: every case agrees with the store: 3 cases, "))
    }

    /// `--max-time`: stops before the next case once the time has passed, with the summary of the cases run, and
    /// exits 0 (every case run agreed).
    @Test func maxTimeStopsEarlyWithASummary() throws {
        let backend = try PythonBackend()
        defer { backend.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("check-max-time-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let junit = directory.appendingPathComponent("check.xml").path
        let result = try SimctlProcess.run(
            ["check", Self.header, "--cases", "1000000", "--max-time", "1s", "--junit", junit] + backend.arguments)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let summary = try #require(
            result.stdout.firstMatch(
                of: #/check: every case agrees with the store [(]stopped early: time limit[)]: ([0-9]+) cases?, /#))
        let cases = try #require(Int(summary.1))
        #expect(cases >= 1 && cases < 1_000_000, "\(result.stdout)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("tests=\"\(cases)\" failures=\"0\" errors=\"0\""), "\(xml)")
    }
    /// Issue 46: `--log` on a full device: the check runs to its end, then says the log is incomplete (naming it
    /// and the system's reason) and exits 74 (docs/reliability.md, "Write errors").
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full (Linux)"))
    func aLogThatCannotBeWrittenExits74() throws {
        let backend = try PythonBackend()
        defer { backend.stop() }
        let result = try SimctlProcess.run(
            ["check", Self.header, "--cases", "2", "--seed", "1", "--port", "0", "--log", "/dev/full"]
                + backend.arguments)
        #expect(result.status == 74, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("check: every case agrees with the store: 2 cases, "), "\(result.stdout)")
        #expect(
            result.stderr.contains("error: cannot write the log '/dev/full': No space left on device (errno 28)"),
            "\(result.stderr)")
    }
}
