import Foundation
import Testing

@testable import SimctlCommand

@Suite struct ServeCommandTests {
    /// `--log PATH` writes through the path (a symbolic link here, standing for `/dev/null`): it is never replaced.
    @Test func theLogIsOpenedInPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-log-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("target.log").path
        let link = folder.appendingPathComponent("link.log").path
        try "old\n".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let log = try ServeLog(path: link)
        log.write("a line")
        log.close()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        let text = try String(contentsOfFile: target, encoding: .utf8)
        #expect(text.hasSuffix(" a line\n") && !text.contains("old"))
    }

    /// `--delivery-log PATH` is opened the same way: through the path, never replacing it.
    @Test func theDeliveryLogIsOpenedInPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-log-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("target.jsonl").path
        let link = folder.appendingPathComponent("link.jsonl").path
        try "old\n".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let log = FileDeliveryLog(path: link)
        try log.open()
        log.close()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8).isEmpty)
    }

    @Test func optionsParse() throws {
        let options = try ServeCommand.parse([
            "s.yaml", "--port", "8080", "--host", "::1", "--seed", "7", "--deliver", "http://127.0.0.1:9/n",
            "--deliver-mode", "sandbox", "--api-key-pem", "key.pem", "--log", "serve.log",
        ])
        #expect(options.file == "s.yaml" && options.port == 8080 && options.host == "::1" && options.seed == 7)
        #expect(options.delivery?.mode == .sandbox && options.apiKeyPEM == "key.pem" && options.logFile == "serve.log")
        #expect(try ServeCommand.parse(["s.yaml"]).port == 0)
        #expect(try ServeCommand.parse(["s.yaml"]).host == "127.0.0.1")
    }

    @Test func badCommandLinesAreUsageErrors() {
        let cases: [([String], String)] = [
            ([], "'serve' needs a scenario file"),
            (["a.yaml", "b.yaml"], "'serve' takes one scenario file; found 'a.yaml' and 'b.yaml'"),
            (["a.yaml", "--port", "65536"], "option '--port' needs a port number"),
            (["a.yaml", "--prot", "1"], "unknown option '--prot'; did you mean '--port'?"),
            (["a.yaml", "--port", "1", "--port", "2"], "option '--port' is given twice"),
            (["a.yaml", "--deliver-mode", "sandbox"], "option '--deliver-mode' needs '--deliver URL'"),
            (["a.yaml", "--deliver", "https://user@example.com"], "user information in the URL is not supported"),
            (["a.yaml", "--delivery-log", "x"], "unknown option '--delivery-log'"),
            (["a.yaml", "--seed", "-1"], "option '--seed' needs a whole number"),
        ]
        for (arguments, message) in cases {
            #expect(throws: UsageError.self) { try ServeCommand.parse(arguments) }
            do {
                _ = try ServeCommand.parse(arguments)
            } catch {
                #expect(error.message.contains(message), "\(arguments): \(error.message)")
                #expect(error.topic == "serve")
            }
        }
    }

    @Test func helpAndUsageMentionServe() {
        #expect(Simctl.main(["help", "serve"]).stdout.hasPrefix("USAGE: simctl serve FILE"))
        #expect(Simctl.main(["serve", "--help"]).exitCode == 0)
        #expect(Simctl.main(["serve"]).exitCode == ExitCode.usage)
        #expect(HelpText.overview.contains("serve FILE"))
    }
}
