import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every write of a command's output is checked (docs/reliability.md, "Write errors"): into `/dev/full` (every write
/// fails with ENOSPC) each command ends with exit code 74 and a message naming the destination and the reason; a
/// closed pipe ends it quietly by SIGPIPE. `/dev/full` exists on Linux; elsewhere these tests are skipped.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full (Linux)"))
struct WriteErrorTests {
    static let scenario = "Scenarios/family-stop-sharing.yaml"
    static let full = "No space left on device"

    struct Ended {
        var stdout: String
        var stderr: String
        var status: Int32
        var signalled: Bool
    }

    /// Runs the binary with standard output going to `stdout` (a path; a pipe when nil, closed at once by the test
    /// when `closedPipe`).
    static func run(_ arguments: [String], stdout path: String?, closedPipe: Bool = false) throws -> Ended {
        let process = Process()
        process.executableURL = SimctlProcess.binary
        process.arguments = arguments
        process.currentDirectoryURL = SimctlProcess.packageRoot
        let err = Pipe()
        process.standardError = err
        let out = Pipe()
        if let path {
            let descriptor = open(path, O_WRONLY)
            try #require(descriptor >= 0, "cannot open \(path)")
            process.standardOutput = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        } else {
            process.standardOutput = out
        }
        try process.run()
        if path == nil && closedPipe { try out.fileHandleForReading.close() }
        var outData = Data()
        if path == nil && !closedPipe { outData = out.fileHandleForReading.readDataToEndOfFile() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Ended(
            stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal)
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("simctl-writes-\(UUID().uuidString)-\(name)")
            .path
    }

    @Test(arguments: ["timeline", "jsonl", "decoded", "svg"], [["--jobs", "1"], ["--jobs", "2"], []])
    func runIntoAFullDeviceExits74NamingStandardOutput(format: String, jobs: [String]) throws {
        let ended = try Self.run(["run", Self.scenario, "--format", format] + jobs, stdout: "/dev/full")
        #expect(!ended.signalled)
        #expect(ended.status == 74, "\(ended.stderr)")
        #expect(ended.stderr.contains("error: cannot write standard output: \(Self.full)"), "\(ended.stderr)")
    }

    /// The commands that answer at once (not streamed) check the same write.
    @Test(arguments: [
        ["validate", scenario], ["catalog", scenario], ["help"], ["--version"], ["merge", "--help"], ["help", "serve"],
    ])
    func otherCommandsIntoAFullDeviceExit74(arguments: [String]) throws {
        let ended = try Self.run(arguments, stdout: "/dev/full")
        #expect(ended.status == 74, "\(arguments): \(ended.stderr)")
        #expect(ended.stderr.contains("cannot write standard output: \(Self.full)"), "\(arguments)")
    }

    /// docs/reliability.md's example, word for word: the command, its message and its exit code.
    @Test func theDocumentedExampleIsWhatTheBinaryDoes() throws {
        let text = try String(
            contentsOf: SimctlProcess.packageRoot.appendingPathComponent("docs/reliability.md"), encoding: .utf8)
        let block = try #require(
            text.components(separatedBy: "```text\n").dropFirst().first { $0.hasPrefix("$ simctl run ") }?
                .components(separatedBy: "```")[0])
        let lines = block.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "\(lines)")
        let command = lines[0].dropFirst(2).replacingOccurrences(of: " > /dev/full; echo $?", with: "")
        let words = command.split(separator: " ").map(String.init).dropFirst()
        let ended = try Self.run(Array(words), stdout: "/dev/full")
        #expect(ended.stderr == lines[1] + "\n")
        #expect(String(ended.status) == lines[2])
    }

    /// `--out DIR` with standard output failing: no folder, and no hidden staging folder left beside it.
    @Test func outWithAFailingStandardOutputLeavesNoFolder() throws {
        let parent = Self.temporaryPath("parent")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let target = parent + "/fixtures"
        let ended = try Self.run(["run", Self.scenario, "--out", target], stdout: "/dev/full")
        #expect(ended.status == 74, "\(ended.stderr)")
        #expect(ended.stderr.contains("cannot write standard output: \(Self.full)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == [])
    }

    /// The same command into a file writes it whole and exits 0 (the check does not refuse good writes).
    @Test func aGoodDestinationStillWorks() throws {
        let path = Self.temporaryPath("out.jsonl")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ended = try Self.run(["run", Self.scenario, "--format", "jsonl"], stdout: path)
        #expect(ended.status == 0, "\(ended.stderr)")
        let expected = try SimctlProcess.run(["run", Self.scenario, "--format", "jsonl"]).stdout
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
    }

    /// A reader that goes away (`simctl run ... | head`) ends simctl as it ends any program: by SIGPIPE, with
    /// nothing on standard error.
    @Test(arguments: ["jsonl", "timeline"])
    func aClosedPipeEndsQuietlyBySIGPIPE(format: String) throws {
        let ended = try Self.run(["run", Self.scenario, "--format", format], stdout: nil, closedPipe: true)
        #expect(ended.signalled, "status \(ended.status): \(ended.stderr)")
        #expect(ended.status == SIGPIPE)
        #expect(ended.stderr == "")
    }

    /// `serve` whose standard output (the URL line) cannot be written stops at once with exit code 74.
    @Test func serveWithAFullStandardOutputExits74() throws {
        let ended = try Self.run(["serve", Self.scenario, "--port", "0"], stdout: "/dev/full")
        #expect(ended.status == 74, "\(ended.stderr)")
        #expect(ended.stderr.contains("cannot write standard output: \(Self.full)"), "\(ended.stderr)")
    }

    /// `serve --log` into a full device: the first log line fails, the server stops and says why (exit code 74).
    @Test func serveWithAFullLogStopsWith74() throws {
        let ended = try Self.run(["serve", Self.scenario, "--port", "0", "--log", "/dev/full"], stdout: nil)
        #expect(ended.status == 74, "\(ended.stderr)")
        #expect(ended.stderr.contains("cannot write the log '/dev/full': \(Self.full)"), "\(ended.stderr)")
        #expect(ended.stdout.hasPrefix("http://127.0.0.1:"), "the URL was printed before the log failed")
    }
}
