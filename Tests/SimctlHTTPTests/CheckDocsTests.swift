import Foundation
import SimctlHTTP
import Testing

/// docs/check.md's ```console blocks, run literally: each `$ ` line is a command (a line ending in `\` continues on
/// the next), run by bash in a temporary folder holding a link to the package's Tests folder, with `simctl` on the
/// PATH as the built binary and the ports 8000, 8001 and 8002 replaced by free ones; a command ending in `&` is a
/// server, started in the background and killed when the block ends. The other lines are the command's standard
/// output, line for line, where `...` stands for any text within its line (for a server: the lines it prints before
/// the next command runs). Every command must exit 0 unless the next line is `$ echo $?`, which shows its exit status.
/// The block that needs Apple's library (Tests/Conformance/.venv) runs only where that environment exists; CI runs
/// this suite again after Tests/Conformance/setup.sh (.ci/run).
@Suite(.serialized) struct CheckDocsTests {
    static let doc =
        (try? String(
            contentsOf: DeliveryEndToEndTests.root.appendingPathComponent("docs/check.md"), encoding: .utf8)) ?? ""
    static let venv = DeliveryEndToEndTests.root.appendingPathComponent("Tests/Conformance/.venv/bin/python").path
    static let venvMarker = "Tests/Conformance/.venv/"

    /// One `$ ` command and the output lines shown under it.
    struct Step: Equatable {
        var command: String
        var output: [String]
        var background: Bool { command.hasSuffix("&") }
    }

    static var blocks: [String] {
        doc.components(separatedBy: "```console\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }

    /// The indexes of the blocks that run with the system's python3 only.
    static var plainBlocks: [Int] { blocks.indices.filter { !blocks[$0].contains(venvMarker) } }
    static var venvBlocks: [Int] { blocks.indices.filter { blocks[$0].contains(venvMarker) } }

    static func steps(_ block: String) -> [Step] {
        var steps: [Step] = []
        var continuing = false
        var lines = block.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        for line in lines {
            if continuing {
                let command = steps[steps.count - 1].command
                steps[steps.count - 1].command = String(command.dropLast()) + String(line.drop { $0 == " " })
                continuing = line.hasSuffix("\\")
            } else if line.hasPrefix("$ ") {
                steps.append(Step(command: String(line.dropFirst(2)), output: []))
                continuing = line.hasSuffix("\\")
            } else if !steps.isEmpty {
                steps[steps.count - 1].output.append(line)
            }
        }
        return steps
    }

    /// Whether `actual` is the line `shown`, where each `...` in `shown` stands for any text within the line.
    static func matches(_ shown: String, _ actual: String) -> Bool {
        let pattern =
            "^"
            + shown.components(separatedBy: "...").map { NSRegularExpression.escapedPattern(for: $0) }.joined(
                separator: ".*") + "$"
        return actual.range(of: pattern, options: .regularExpression) != nil
    }

    /// What is wrong with `actual` as the lines `shown` (nil: they match).
    static func difference(_ shown: [String], _ actual: [String]) -> String? {
        for (index, line) in shown.enumerated() {
            guard index < actual.count else { return "line \(index + 1) '\(line)' missing" }
            if !matches(line, actual[index]) {
                return "line \(index + 1): shown '\(line)', printed '\(actual[index])'"
            }
        }
        return actual.count > shown.count ? "printed more: '\(actual[shown.count])'" : nil
    }

    /// The lines of `text`; a last line without its newline counts (and makes no match with a shown line).
    static func lines(of text: String) -> [String] {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() } else if !lines.isEmpty { lines[lines.count - 1] += "\u{0}" }
        return lines
    }

    /// `text` with the documented ports 8000, 8001 and 8002 replaced by `ports`.
    static func replacingPorts(_ text: String, _ ports: [UInt16]) -> String {
        var result = text
        for (index, port) in ports.enumerated() {
            result = result.replacingOccurrences(
                of: "\\b800\(index)\\b", with: "\(port)", options: .regularExpression)
        }
        return result
    }

    static func freePorts(_ count: Int) throws -> [UInt16] {
        // Listeners held open together, so the ports differ; closed before the block's servers bind them.
        let receivers = try (0..<count).map { _ in try LoopbackReceiver { _ in .respond(status: 200, body: "") } }
        defer { receivers.forEach { $0.stop() } }
        return receivers.map(\.port)
    }

    /// Collects a process's output as it comes (a reader that never blocks the writer).
    final class Lines: @unchecked Sendable {
        private let lock = NSCondition()
        private var text = ""
        private var ended = false

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    lock.lock()
                    text += String(decoding: chunk, as: UTF8.self)
                    ended = chunk.isEmpty
                    lock.broadcast()
                    lock.unlock()
                    if chunk.isEmpty { return }
                }
            }
        }

        /// Waits up to `seconds` for `count` complete lines (nil: for the end of the output); returns the complete
        /// lines read so far.
        func wait(for count: Int?, seconds: Double) -> [String] {
            let deadline = Date().addingTimeInterval(seconds)
            lock.lock()
            defer { lock.unlock() }
            while !ended, count.map({ text.filter { $0 == "\n" }.count < $0 }) ?? true, lock.wait(until: deadline) {}
            return Array(text.components(separatedBy: "\n").dropLast())
        }
    }

    /// Runs block `index` in a temporary folder; records an issue for every difference from the doc.
    static func run(block index: Int) throws {
        try run(steps: Self.steps(blocks[index]), label: "docs/check.md console block \(index + 1)")
    }

    /// Runs `steps` (a console block of any doc: docs/trigger.md's too) in a temporary folder; `label` names the
    /// block in the issues recorded.
    static func run(steps: [Step], label blockLabel: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("check-md-\(UUIDText.next())")
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("Tests"),
            withDestinationURL: DeliveryEndToEndTests.root.appendingPathComponent("Tests"))
        try FileManager.default.createSymbolicLink(
            at: bin.appendingPathComponent("simctl"), withDestinationURL: BinaryRun.binary)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let ports = try freePorts(3)
        var servers: [Process] = []
        defer {
            for server in servers where server.isRunning {
                // SIGKILL: a child of the test runner may inherit a signal mask that blocks SIGTERM.
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
        }
        var lastStatus: Int32 = 0
        for (number, step) in steps.enumerated() {
            let label = "\(blockLabel), '$ \(step.command)'"
            let shown = step.output.map { replacingPorts($0, ports) }
            if step.command == "echo $?" {
                #expect(
                    difference(shown, ["\(lastStatus)"]) == nil,
                    "\(label): \(difference(shown, ["\(lastStatus)"]) ?? "")")
                continue
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            let command = replacingPorts(step.command, ports)
            process.arguments = ["-c", step.background ? "exec " + String(command.dropLast()) : command]
            process.currentDirectoryURL = folder
            process.environment = environment
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let errors = Lines(err.fileHandleForReading)
            if step.background {
                servers.append(process)
                let printed = Lines(out.fileHandleForReading).wait(for: shown.count, seconds: 30)
                let problem = difference(shown, printed)
                let stderr = errors.wait(for: 0, seconds: 0).joined(separator: "\n")
                #expect(problem == nil, "\(label): \(problem ?? "")\nstandard error: \(stderr.suffix(2000))")
                if problem != nil { return }
                continue
            }
            let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            lastStatus = process.terminationStatus
            let stderr = errors.wait(for: nil, seconds: 10).joined(separator: "\n")
            let problem = difference(shown, lines(of: printed))
            #expect(problem == nil, "\(label): \(problem ?? "")\nstandard error: \(stderr.suffix(2000))")
            let statusShown = number + 1 < steps.count && steps[number + 1].command == "echo $?"
            #expect(
                statusShown || lastStatus == 0,
                "\(label): exit \(lastStatus), and no '$ echo $?' line shows it\nstandard error: \(stderr.suffix(2000))"
            )
        }
    }

    @Test func theDocHasItsConsoleBlocks() {
        let all = Self.blocks.map(Self.steps)
        #expect(all.count >= 3)
        #expect(Self.plainBlocks.count >= 2 && Self.venvBlocks.count == 1)
        // The divergence is shown with its report and its exit status.
        #expect(
            all.contains { steps in
                steps.contains { $0.command == "echo $?" && $0.output == ["1"] }
                    && steps.contains { $0.output.first?.hasPrefix("check: case ") == true }
            })
        for block in Self.blocks {
            #expect(block.hasPrefix("$ "), "a block starts with a command: no output line goes unchecked")
        }
        for steps in all {
            #expect(steps.first?.background == true, "each block starts its backend")
            #expect(steps.contains { $0.command.hasPrefix("simctl check ") })
        }
    }

    @Test func theParserAndTheMatcherAreStrict() {
        let steps = Self.steps("$ a \\\n    --b c &\nlistening on 8000\n$ simctl x\nout ...\n\n$ echo $?\n1\n")
        #expect(
            steps == [
                Step(command: "a --b c &", output: ["listening on 8000"]),
                Step(command: "simctl x", output: ["out ...", ""]),
                Step(command: "echo $?", output: ["1"]),
            ])
        #expect(Self.matches("check: ... cases (seed 1)", "check: 200 cases (seed 1)"))
        #expect(!Self.matches("check: ... cases (seed 1)", "check: 200 cases (seed 2)"))
        #expect(!Self.matches("a.b", "axb"))
        #expect(!Self.matches("name", "name: x"))
        #expect(Self.lines(of: "a\n\nb\n") == ["a", "", "b"])
        #expect(Self.difference(["a", "b"], Self.lines(of: "a\nb")) != nil, "a last line without its newline")
        #expect(Self.difference(["a"], ["a", "b"]) != nil && Self.difference(["a", "b"], ["a"]) != nil)
        #expect(
            Self.replacingPorts("127.0.0.1:8000/ 18000 80001 --port 8002", [1, 2, 3])
                == "127.0.0.1:1/ 18000 80001 --port 3")
    }

    @Test(arguments: plainBlocks) func theConsoleBlockRunsAsShown(index: Int) throws {
        try Self.run(block: index)
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: venv),
            "needs Tests/Conformance/.venv (Apple's App Store Server Library): run Tests/Conformance/setup.sh"),
        arguments: venvBlocks)
    func theConsoleBlockWithApplesLibraryRunsAsShown(index: Int) throws {
        try Self.run(block: index)
    }
}
