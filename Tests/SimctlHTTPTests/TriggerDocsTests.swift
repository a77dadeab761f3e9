import Foundation
import SimctlCommand
import SimctlHTTP
import Testing

/// docs/trigger.md runs, and the verification snippets that docs/trigger.md, docs/server.md, docs/check.md and
/// docs/delivery.md show on their first screen: the console blocks run literally (CheckDocsTests' runner), the shell
/// blocks against a receiver, the Python snippet with Apple's library (where Tests/Conformance/.venv exists; CI runs
/// this suite again after Tests/Conformance/setup.sh). The Node and Java snippets are not run here (neither library
/// is installed): they are checked to name the same root, environment, bundle id and app Apple id as the Python one.
@Suite(.serialized) struct TriggerDocsTests {
    static let root = DeliveryEndToEndTests.root
    static func doc(_ name: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent("docs/\(name)"), encoding: .utf8)) ?? ""
    }
    static let trigger = doc("trigger.md")
    static let venv = CheckDocsTests.venv
    static let hasVenv = FileManager.default.isExecutableFile(atPath: venv)

    static func blocks(_ text: String, _ language: String) -> [String] {
        text.components(separatedBy: "```\(language)\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }

    static var consoleBlocks: [String] { blocks(trigger, "console") }
    /// The console blocks that need Apple's library (Tests/Conformance/.venv) and those that do not.
    static var plainConsoleBlocks: [Int] {
        consoleBlocks.indices.filter { !consoleBlocks[$0].contains(CheckDocsTests.venvMarker) }
    }
    static var venvConsoleBlocks: [Int] {
        consoleBlocks.indices.filter { consoleBlocks[$0].contains(CheckDocsTests.venvMarker) }
    }

    /// The first-screen docs: each shows the verification snippet in Python, Node and Java within its first 60 lines.
    static let firstScreenDocs = ["trigger.md", "server.md", "check.md", "delivery.md"]

    static func snippet(_ name: String, _ language: String) -> String? {
        blocks(doc(name), language).first { $0.contains("SignedDataVerifier") }
    }

    @Test func theDocHasItsBlocks() {
        #expect(Self.plainConsoleBlocks.count == 2 && Self.venvConsoleBlocks.count == 1)
        #expect(Self.blocks(Self.trigger, "shell").count == 2)
        let list = CheckDocsTests.steps(Self.consoleBlocks[Self.plainConsoleBlocks[0]]).first!
        #expect(list.command == "simctl trigger --list")
        #expect(list.output.joined(separator: "\n") + "\n" == Simctl.main(["trigger", "--list"]).stdout)
    }

    @Test(arguments: plainConsoleBlocks) func theConsoleBlockRunsAsShown(index: Int) throws {
        try CheckDocsTests.run(
            steps: CheckDocsTests.steps(Self.consoleBlocks[index]), label: "docs/trigger.md console block \(index + 1)")
    }

    /// The verifying webhook's block: the webhook the doc shows is the file it runs.
    @Test(
        .enabled(if: hasVenv, "needs Tests/Conformance/.venv: run Tests/Conformance/setup.sh"),
        arguments: venvConsoleBlocks)
    func theVerifyingWebhookBlockRunsAsShown(index: Int) throws {
        try CheckDocsTests.run(
            steps: CheckDocsTests.steps(Self.consoleBlocks[index]), label: "docs/trigger.md console block \(index + 1)")
    }

    /// The summary the doc shows for a refused notification is what `trigger` prints when the webhook answers so.
    @Test func theRefusalSummaryIsWhatTriggerPrints() throws {
        let shown = try #require(Self.blocks(Self.trigger, "text").first { $0.contains("last answer: HTTP 400") })
        let receiver = try LoopbackReceiver { _ in
            .respond(status: 400, body: "verification failed: INVALID_ENVIRONMENT")
        }
        defer { receiver.stop() }
        let url = receiver.url(path: "/asn")
        let output = Simctl.main([
            "trigger", "REFUND", "--environment", "Production", "--deliver", url, "--deliver-mode", "sandbox",
        ])
        #expect(output.exitCode == 2)
        #expect(output.stderr == shown.replacingOccurrences(of: "http://127.0.0.1:8000/asn", with: url))
    }

    /// The shell blocks' commands, in a folder holding Scenarios/, against a receiver on the documented port's place.
    @Test func theShellBlocksRun() throws {
        let seen = Recorder()
        let receiver = try LoopbackReceiver { message in
            seen.add(message)
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trigger-md-\(UUIDText.next())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("Scenarios"),
            withDestinationURL: Self.root.appendingPathComponent("Scenarios"))
        var commands = 0
        // docs/fixtures.md's replay command after docs/trigger.md's (which write the folder it sends).
        let lines =
            Self.blocks(Self.trigger, "shell").flatMap { $0.split(separator: "\n") }
            + Self.blocks(Self.doc("fixtures.md"), "shell").flatMap { $0.split(separator: "\n") }
        for line in lines {
            #expect(line.hasPrefix("simctl "), "\(line)")
            let command = line.replacingOccurrences(of: ":8080/", with: ":\(receiver.port)/")
                .replacingOccurrences(of: "simctl ", with: BinaryRun.binary.path + " ")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", command]
            process.currentDirectoryURL = folder
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(line): \(stderr)")
            commands += 1
        }
        #expect(commands == 8)
        // Three triggers (one notification each) and three replays of family-refund.yaml's stream.
        let stream = Simctl.main([
            "run", Self.root.appendingPathComponent("Scenarios/family-refund.yaml").path, "--format", "jsonl",
        ]).stdout.split(separator: "\n").map(String.init)
        #expect(seen.bodies.count == 3 + 3 * stream.count)
        #expect(Array(seen.bodies.suffix(3 * stream.count)) == stream + stream + stream)
    }

    @Test(arguments: firstScreenDocs) func theFirstScreenShowsVerificationInThreeLanguages(name: String) throws {
        let text = Self.doc(name)
        let firstScreen = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(80).joined(
            separator: "\n")
        for language in ["py", "javascript", "java"] {
            let snippet = try #require(Self.snippet(name, language), "\(name) has no \(language) verification snippet")
            #expect(firstScreen.contains(snippet), "\(name): the \(language) snippet is in the first 80 lines")
            for needed in ["simctl-ca/root.der", "simctl certs export simctl-ca", "com.example.app", "1234567890"] {
                #expect(snippet.contains(needed), "\(name) \(language): \(needed)")
            }
            #expect(snippet.contains("SANDBOX"))
        }
        #expect(
            Self.snippet(name, "py") == Self.snippet("trigger.md", "py"),
            "one Python snippet, run below")
    }

    /// The Python snippet, run with Apple's library on what `simctl trigger REFUND` prints.
    @Test(.enabled(if: hasVenv, "needs Tests/Conformance/.venv: run Tests/Conformance/setup.sh"))
    func thePythonSnippetVerifiesATrigger() throws {
        let snippet = try #require(Self.snippet("trigger.md", "py"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("verify-\(UUIDText.next())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(Simctl.main(["certs", "export", folder.appendingPathComponent("simctl-ca").path]).exitCode == 0)
        try Simctl.main(["trigger", "REFUND"]).stdout.write(
            to: folder.appendingPathComponent("refund.json"), atomically: true, encoding: .utf8)
        try snippet.write(to: folder.appendingPathComponent("snippet.py"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.venv)
        process.arguments = ["snippet.py"]
        process.currentDirectoryURL = folder
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(printed == "REFUND Sandbox\n")
        // The same snippet refuses the tampered notification.
        try Simctl.main(["trigger", "REFUND", "--tamper"]).stdout.write(
            to: folder.appendingPathComponent("refund.json"), atomically: true, encoding: .utf8)
        let again = Process()
        again.executableURL = URL(fileURLWithPath: Self.venv)
        again.arguments = ["snippet.py"]
        again.currentDirectoryURL = folder
        again.standardOutput = FileHandle.nullDevice
        again.standardError = FileHandle.nullDevice
        try again.run()
        again.waitUntilExit()
        #expect(again.terminationStatus != 0, "VerificationException")
    }
}
