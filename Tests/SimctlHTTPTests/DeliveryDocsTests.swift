import Foundation
import SimctlCommand
import SimctlHTTP
import Testing

/// docs/delivery.md runs: its `simctl` commands against a receiver, its Node and Python receivers against those
/// commands, and its log reader on the log they write. (Its Swift blocks are run by SubscriptionSimulatorTests/Docs.)
@Suite(.serialized) struct DeliveryDocsTests {
    static let doc =
        (try? String(
            contentsOf: DeliveryEndToEndTests.root.appendingPathComponent("docs/delivery.md"), encoding: .utf8)) ?? ""

    static func blocks(_ language: String) -> [String] {
        doc.components(separatedBy: "```\(language)\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }

    /// The block whose first line starts with `firstLine`.
    static func block(_ language: String, startingWith firstLine: String) -> String? {
        blocks(language).first { $0.hasPrefix(firstLine) }
    }

    /// The quick start's commands as argument lists, with the port and the log file replaced.
    static func commands(port: UInt16, log: String) -> [[String]] {
        // The HTTPS block's command needs a trusted test CA: Tests/Delivery/https_check.sh runs that block.
        blocks("shell").flatMap { $0.split(separator: "\n") }.filter {
            $0.hasPrefix("simctl ") && !$0.contains("https://")
        }.map { line in
            var words = line.replacingOccurrences(of: ":8080/", with: ":\(port)/").split(separator: " ").map(
                String.init)
            words.removeFirst()
            words = words.map {
                $0.hasPrefix("Scenarios/") ? DeliveryEndToEndTests.root.appendingPathComponent($0).path : $0
            }
            if let index = words.firstIndex(of: "--delivery-log") {
                words[index + 1] = log
            } else {
                words += ["--delivery-log", log]
            }
            return words
        }
    }

    @Test func theDocShowsCommandsAndReceivers() {
        #expect(Self.commands(port: 1, log: "x").count >= 3)
        #expect(Self.block("js", startingWith: "// receiver.js") != nil)
        #expect(Self.block("python", startingWith: "# receiver.py") != nil)
        #expect(Self.block("python", startingWith: "# read_log.py") != nil)
    }

    @Test func theSummaryShownIsTheFirstCommandsOutput() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 200, body: "") }
        defer { receiver.stop() }
        let log = DeliveryEndToEndTests.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: log) }
        var first = Self.commands(port: receiver.port, log: log)[0]
        first.removeLast(2)  // the log option the test added
        let output = Simctl.main(first)
        #expect(output.exitCode == 0)
        let shown = Self.blocks("text").first { $0.hasPrefix("delivery to ") }
        #expect(shown == output.stderr.replacingOccurrences(of: ":\(receiver.port)/", with: ":8080/"))
    }

    @Test(arguments: [
        ["node", "js", "// receiver.js"], ["python3", "python", "# receiver.py"],
    ])
    func theDocumentedReceiverGetsEveryNotificationAndSpotsEveryDuplicate(runner: [String]) throws {
        guard let source = Self.block(runner[1], startingWith: runner[2]) else {
            Issue.record("no \(runner[2]) block in docs/delivery.md")
            return
        }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent(
            "simctl-doc-\(UUIDText.next())-" + runner[2].split(separator: " ").last!)
        defer { try? FileManager.default.removeItem(at: script) }
        try source.write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [runner[0], script.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["PORT": "0"]) { $1 }
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // SIGKILL: a child of the test runner may inherit a signal mask that blocks SIGTERM.
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // The first line says the port.
        var firstLine = Data()
        while !firstLine.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            firstLine.append(chunk)
        }
        let text = String(decoding: firstLine, as: UTF8.self)
        guard let portText = text.split(separator: "\n").first?.split(separator: " ").last, let port = UInt16(portText)
        else {
            Issue.record("\(runner[0]) receiver did not start: '\(text)'")
            return
        }
        var successes: [String] = []
        for (index, command) in Self.commands(port: port, log: "").enumerated() {
            let log = DeliveryEndToEndTests.temporaryFile() + ".\(index)"
            defer { try? FileManager.default.removeItem(atPath: log) }
            var arguments = command
            arguments[arguments.count - 1] = log
            let output = Simctl.main(arguments)
            #expect(output.exitCode == 0, "\(arguments.joined(separator: " ")): \(output.stderr)")
            successes += try DeliveryEndToEndTests.log(log).filter { $0["sendAttemptResult"] as! String == "SUCCESS" }
                .map { $0["notificationUUID"] as! String }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let rest = String(decoding: firstLine + out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = rest.split(separator: "\n").dropFirst()
        let new = lines.filter { $0.hasPrefix("new ") }.map { String($0.split(separator: " ")[1]) }
        let duplicates = lines.filter { $0.hasPrefix("duplicate ") }
        #expect(Set(new) == Set(successes), "every delivered notification seen")
        #expect(new.count == Set(successes).count && new.count + duplicates.count == successes.count)
        #expect(duplicates.count > 0, "the chaos command sent duplicates")
    }

    @Test func theLogLineShownIsARealOne() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 503, body: "") }
        defer { receiver.stop() }
        let log = DeliveryEndToEndTests.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: log) }
        _ = Simctl.main([
            "run", DeliveryEndToEndTests.scenario, "--deliver", receiver.url(), "--deliver-mode", "sandbox",
            "--delivery-log", log,
        ])
        let first = try DeliveryEndToEndTests.virtualLog(log).split(separator: "\n")[0]
        let shown = Self.blocks("json").first?.replacingOccurrences(
            of: #","wallLatencyMs":[0-9.]+"#, with: "", options: .regularExpression)
        #expect(shown == first + "\n")
    }

    @Test func theLogReaderSummarisesALog() throws {
        guard let source = Self.block("python", startingWith: "# read_log.py") else {
            Issue.record("no read_log.py block")
            return
        }
        let receiver = try LoopbackReceiver { message in
            message.body.count % 2 == 0 ? .respond(status: 200, body: "") : .respond(status: 500, body: "")
        }
        defer { receiver.stop() }
        let log = DeliveryEndToEndTests.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = Simctl.main([
            "run", DeliveryEndToEndTests.scenario, "--deliver", receiver.url(), "--deliver-mode", "sandbox",
            "--delivery-log", log,
        ])
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-doc-\(UUIDText.next()).py")
        defer { try? FileManager.default.removeItem(at: script) }
        try source.write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, log]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let entries = try DeliveryEndToEndTests.log(log)
        let failed = entries.filter { $0["sendAttemptResult"] as! String != "SUCCESS" }.count
        #expect(output.exitCode == (failed > 0 ? ExitCode.undelivered : 0))
        #expect(text.hasPrefix("\(entries.count) notifications, \(failed) undelivered, 0 sent more than once\n"))
        #expect(text.split(separator: "\n").count == 1 + failed)
    }

    /// A scenario whose expectation fails: SUBSCRIBED at 0 is tried six times within the run; the DID_RENEW at
    /// `until` is sent, but its first attempt is not made.
    static let failing = """
        name: Expectations that fail
        start: 2026-03-01T09:00:00Z
        app:
          bundleId: com.example.nightsky
          appAppleId: 1234567890
        products:
          - id: com.example.nightsky.pro.monthly
            type: autoRenewable
            group: nightsky.pro
            period: P1M
            price: 9.99
            currency: USD
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.nightsky.pro.monthly }
        until: P1M
        expect:
          - at: P1D
            entitled: { alice: [] }

        """

    @Test func theCutShortLineShownIsWhatARunWhoseExpectationsFailPrints() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 503, body: "") }
        defer { receiver.stop() }
        let file = DeliveryEndToEndTests.temporaryFile() + ".yaml"
        try Self.failing.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let output = Simctl.main(["run", file, "--deliver", "http://127.0.0.1:\(receiver.port)/asn"])
        #expect(output.exitCode == 1)
        let shown = Self.blocks("text").first { $0.hasPrefix("delivery cut short: ") }
        #expect(shown != nil && output.stderr.hasSuffix(shown ?? "-"), "\(output.stderr)")
        #expect(output.stderr.contains("0 of 2 notifications delivered in 6 attempts"))
    }

    @Test func theMemoryScriptDeliversASmallScaleRunAndReportsItsPeak() throws {
        guard let block = Self.blocks("shell").first(where: { $0.hasPrefix("swift build -c release") }),
            let line = block.split(separator: "\n").first(where: { $0.hasPrefix("Tests/Scale/deliver_memory.sh") })
        else {
            Issue.record("no memory script block in docs/delivery.md")
            return
        }
        // The documented command at a size a debug build delivers in seconds.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["bash"]
            + line.replacingOccurrences(of: "100000", with: "200").split(separator: " ").map(
                String.init)
        process.currentDirectoryURL = DeliveryEndToEndTests.root
        process.environment = ProcessInfo.processInfo.environment.merging([
            "SIMCTL": BinaryRun.binary.path
        ]) { $1 }
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.hasPrefix("N=200: ") && text.contains("peak RSS ") && text.contains("exit 0"), "\(text)")
        let received = text.split(separator: " ").firstIndex(of: "received").map { text.split(separator: " ")[$0 + 1] }
        #expect(text.contains("delivered in \(received ?? "?") attempts"), "\(text)")
    }
}
