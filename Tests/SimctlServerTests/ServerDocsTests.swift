import Foundation
import SubscriptionSimulator
import Testing

@testable import SimctlServer

@testable import SimctlCommand

/// docs/server.md: its Python example runs against the built binary with Apple's library (the venv made by
/// Tests/Conformance/setup.sh; CI runs the same block after setting it up), its `simctl serve` command lines parse,
/// and the endpoints it lists are the ones served.
@Suite struct ServerDocsTests {
    static let doc = (try? String(contentsOfFile: repositoryRoot + "/docs/server.md", encoding: .utf8)) ?? ""
    static let python = repositoryRoot + "/Tests/Conformance/.venv/bin/python"

    static func block(_ language: String) -> String? { blocks(language).first }

    /// Every block in that language, in order.
    static func blocks(_ language: String) -> [String] {
        doc.components(separatedBy: "```\(language)\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
    }

    @Test func theGuideHasItsPythonExamples() {
        #expect(Self.block("python")?.contains("client._base_url = base_url") == true)
        #expect(Self.blocks("python").count == 2)
        #expect(Self.blocks("python").last?.contains("/simctl/v1/reset") == true)
    }

    /// The 409 body shown in "One change at a time" is the server's, word for word.
    @Test func theBusyAnswerIsTheServers() throws {
        let shown = try CanonicalJSON.parse(try #require(Self.block("json")))
        let reason = SimulatorServer.busyReason(running: "POST /simctl/v1/actions", refused: "POST /simctl/v1/advance")
        #expect(shown == .object(["error": .string(reason)]))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python)))
    func thePythonExampleRunsWithApplesClient() throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("server-md-\(getpid()).py")
        // Both blocks, one after the other, as CI runs them (the second continues the first).
        try Self.blocks("python").joined().write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [script.path]
        process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
        process.environment = ProcessInfo.processInfo.environment.merging(["SIMCTL": ServeProcess.binary.path]) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors.suffix(2000))")
        #expect(output.contains("server.md example: passed"))
        #expect(output.contains("server.md callbacks example: passed"))
    }

    @Test func theServeCommandLinesParse() throws {
        let lines = Self.doc.split(separator: "\n").filter { $0.hasPrefix("$ simctl serve ") }
        #expect(!lines.isEmpty)
        for line in lines {
            let words = line.split(separator: " ").dropFirst(3).map(String.init)
            let options = try ServeCommand.parse(words)
            #expect(options.file.hasSuffix(".yaml"))
        }
    }

    @Test func theEndpointTablesListWhatIsServed() {
        for route in SimulatorServer.servedPaths {
            // The path up to its first parameter, and each literal segment after it.
            let parts = route.path.split(separator: "*", omittingEmptySubsequences: false)
            #expect(Self.doc.contains("`\(route.method) \(parts[0])"), "\(route.method) \(route.path)")
            for part in parts.dropFirst() where !part.isEmpty {
                #expect(Self.doc.contains("}\(part)"), "\(route.method) \(route.path)")
            }
        }
    }
}
