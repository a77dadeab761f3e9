import Foundation
import SimctlHTTP
import Testing

@testable import SimctlCommand

/// `simctl serve`'s environment variables (docs/install.md, "Environment variables"), its health endpoint, the warning
/// beyond loopback, and README's "whole loop" block run as written.
@Suite struct ServeEnvironmentTests {
    @Test func aVariableStandsForItsOptionOnlyWhereTheCommandLineHasNone() {
        let environment = [
            "SIMCTL_HOST": "0.0.0.0", "SIMCTL_PORT": "8080", "SIMCTL_SCENARIO": "/Scenarios/a.yaml",
            "SIMCTL_DELIVER": "", "SIMCTL_SEED": "7", "HOME": "/root",
        ]
        let (plain, _) = ServeEnvironment.arguments([], environment: environment)
        #expect(plain == ["--host", "0.0.0.0", "--port", "8080", "--seed", "7", "--", "/Scenarios/a.yaml"])
        // The command line wins, with or without `=`; a file on the command line wins over SIMCTL_SCENARIO.
        let (given, _) = ServeEnvironment.arguments(
            ["mine.yaml", "--port=9000", "--seed", "1"], environment: environment)
        #expect(given == ["--host", "0.0.0.0", "mine.yaml", "--port=9000", "--seed", "1"])
        let (ended, _) = ServeEnvironment.arguments(["--", "-odd.yaml"], environment: environment)
        #expect(ended.suffix(2) == ["--", "-odd.yaml"] && !ended.contains("/Scenarios/a.yaml"))
        #expect(ServeEnvironment.arguments(["x.yaml"], environment: [:]).arguments == ["x.yaml"])
    }

    @Test func theKeysPEMTextComesFromTheEnvironmentUnlessAFileIsNamed() {
        let pem = "-----BEGIN PUBLIC KEY-----\nAA\n-----END PUBLIC KEY-----\n"
        #expect(ServeEnvironment.arguments(["x.yaml"], environment: ["SIMCTL_API_KEY_PEM": pem]).apiKeyPEM == pem)
        #expect(
            ServeEnvironment.arguments(["x.yaml", "--api-key-pem", "k.pem"], environment: ["SIMCTL_API_KEY_PEM": pem])
                .apiKeyPEM == nil)
        let both = ServeEnvironment.arguments(
            ["x.yaml"], environment: ["SIMCTL_API_KEY_PEM": pem, "SIMCTL_API_KEY_PEM_FILE": "k.pem"])
        #expect(both.apiKeyPEM == nil && both.arguments.contains("k.pem"))
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("::1", true), ("0.0.0.0", false),
        ("192.168.1.10", false), ("::", false), ("127.0.0", false), ("example.com", false),
    ])
    func onlyLoopbackAddressesAreQuiet(host: String, loopback: Bool) {
        #expect(ServeEnvironment.isLoopback(host) == loopback)
    }

    @Test func withoutAFileOrSIMCTL_SCENARIOTheUsageErrorNamesBoth() {
        let output = ServeCommand.main([], clock: { .init(millisecondsSince1970: 0) }, environment: [:])
        #expect(output.exitCode == ExitCode.usage)
        #expect(output.stderr.contains("'serve' needs a scenario file (or SIMCTL_SCENARIO)"))
    }

    @Test func theBinaryServesFromTheEnvironmentWarnsBeyondLoopbackAndAnswersHealth() throws {
        let process = Process()
        process.executableURL = ServeProcess.binary
        process.arguments = ["serve"]
        process.environment = [
            "SIMCTL_SCENARIO": repositoryRoot + "/Scenarios/family-refund.yaml", "SIMCTL_HOST": "0.0.0.0",
            "SIMCTL_PORT": "0",
        ]
        let out = Pipe()
        let errors = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        var line: [UInt8] = []
        while !line.contains(0x0A) {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            line += data
        }
        let url = String(decoding: line.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(url.hasPrefix("http://0.0.0.0:"))
        let port = try #require(UInt16(url.split(separator: ":").last ?? ""))
        let connection = try TestConnection(port: port)
        let health = connection.request("GET", "/simctl/v1/health")
        #expect(health?.status == 200 && health?.text == #"{"status":"ok"}"#)
        #expect(connection.request("GET", "/simctl/v1/health?x=1")?.status == 400)
        connection.close()
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("warning: serving at \(url), beyond loopback: the control API (/simctl/v1/) has no"))
    }

    /// README's "The whole loop" block, as written, with the two ports moved to free ones and `simctl` on the PATH:
    /// the health answer, the advance's delivery to the webhook (signed, Sandbox), the state of alice.
    @Test func readmesWholeLoopRunsAsWritten() throws {
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "**The whole loop**").dropFirst().first)
        let block = try #require(
            section.components(separatedBy: "```shell\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(block.contains("simctl serve Scenarios/") && block.contains("/simctl/v1/advance"))
        let received = LockedBodies()
        let receiver = try LoopbackReceiver { message in
            received.append(String(decoding: message.body, as: UTF8.self))
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let serverPort = try freeLoopbackPort()
        let script =
            "set -e\n"
            + block.replacingOccurrences(of: "8080", with: "\(serverPort)")
            .replacingOccurrences(of: "127.0.0.1:3000", with: "127.0.0.1:\(receiver.port)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = ServeProcess.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
        process.environment = environment
        let out = Pipe()
        let errors = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(output.contains(#"{"status":"ok"}"#), "\(output)")
        #expect(output.contains(#""customer":"alice""#) || output.contains(#""name":"alice""#), "\(output)")
        #expect(!received.bodies.isEmpty, "no notification reached the webhook")
        #expect(received.bodies.allSatisfy { $0.hasPrefix(#"{"signedPayload":"eyJ"#) })
    }
}

/// A free port on 127.0.0.1 (bound, read, released), for commands that need a fixed `--port`.
func freeLoopbackPort() throws -> UInt16 {
    let receiver = try LoopbackReceiver { _ in .respond(status: 200, body: "") }
    let port = receiver.port
    receiver.stop()
    return port
}
