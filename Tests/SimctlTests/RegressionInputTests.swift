import Foundation
import Testing

/// Every crashing, slow or badly reported input ever found (issue 10, by hand or by the fuzzers) lives in
/// Tests/Fuzz/Regressions with its expected answer in `expectations.txt`. Each one goes through the normal entry
/// points as a process: `simctl validate` and `simctl run` (`simctl catalog` for a `.storekit` file), which must
/// answer under a 2 GB memory ceiling and a 20 s CPU-time ceiling (`ulimit -t`: a runaway input is killed and the
/// test fails on its exit status; CPU time, unlike wall time, does not grow when the machine is busy), with the
/// expected exit code and a FILE:LINE:COLUMN error.
@Suite(.serialized) struct RegressionInputTests {
    static let folder = SimctlProcess.packageRoot.appendingPathComponent("Tests/Fuzz/Regressions")

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var validateExit: Int32?
        var runExit: Int32
        var location: String?
        var fragment: String
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let text = (try? String(contentsOf: folder.appendingPathComponent("expectations.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            return Case(
                name: fields[0], validateExit: Int32(fields[1]), runExit: Int32(fields[2]) ?? -1,
                location: fields[3] == "-" ? nil : fields[3], fragment: fields[4])
        }
    }()

    /// Wall seconds after which a run counts as hung: far above the CPU ceiling, so a loaded machine never trips it.
    static let hangBound = 300.0

    @Test func everyRegressionFileHasAnExpectation() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0 != "expectations.txt" }.sorted()
        #expect(files == Self.cases.map(\.name).sorted())
        #expect(files.count >= 20)
    }

    /// Runs simctl under `ulimit -v` (2 GB of address space) and `ulimit -t` (60 s of CPU time: the debug build spends
    /// 18 to 24 s of CPU on weekly-renewals-until-9999.yaml's 10,000 renewals on a loaded 2-core machine, so 20 s
    /// killed it now and then), and measures the wall time, which only has to stay below a hang detector's generous
    /// bound.
    func simctl(_ arguments: [String]) throws -> (SimctlProcess.Result, seconds: Double) {
        let started = ProcessInfo.processInfo.systemUptime
        let result = try SimctlProcess.run(
            ["-c", "ulimit -v 2097152 && ulimit -t 60 && exec \"$0\" \"$@\"", SimctlProcess.binary.path] + arguments,
            executable: URL(fileURLWithPath: "/bin/sh"))
        return (result, ProcessInfo.processInfo.systemUptime - started)
    }

    func check(_ result: SimctlProcess.Result, seconds: Double, exit: Int32, _ item: Case, _ command: String) {
        let path = "Tests/Fuzz/Regressions/\(item.name)"
        #expect(result.status == exit, "\(command) \(item.name): exit \(result.status): \(result.stderr)")
        #expect(seconds < Self.hangBound, "\(command) \(item.name) took \(seconds) s")
        if exit == 0 {
            #expect(result.stdout.contains(item.fragment), "\(command) \(item.name): \(result.stdout)")
            return
        }
        let prefix = "\(path):\(item.location ?? ""):"
        #expect(result.stderr.hasPrefix(prefix) && result.stderr.contains(": error: "), "\(result.stderr)")
        #expect(result.stderr.contains(item.fragment), "\(command) \(item.name): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line, no crash report: \(result.stderr)")
    }

    @Test(arguments: cases.filter { !$0.name.hasSuffix(".http") })
    func answersWithALocatedErrorNeverACrash(_ item: Case) throws {
        let path = "Tests/Fuzz/Regressions/\(item.name)"
        if item.name.hasSuffix(".storekit") {
            let (catalog, seconds) = try simctl(["catalog", path])
            check(catalog, seconds: seconds, exit: item.runExit, item, "catalog")
            return
        }
        if let validateExit = item.validateExit {
            let (validate, seconds) = try simctl(["validate", path])
            if validateExit == 0 {
                #expect(validate.status == 0 && seconds < Self.hangBound, "validate \(item.name): \(validate.stderr)")
            } else {
                check(validate, seconds: seconds, exit: validateExit, item, "validate")
            }
        }
        for format in ["timeline", "jsonl", "decoded"] {
            let (run, seconds) = try simctl(["run", path, "--format", format])
            check(run, seconds: seconds, exit: item.runExit, item, "run --format \(format)")
        }
    }

    /// A `.http` input (the http-control fuzz target's) is one connection's bytes to `simctl serve`: the first answer
    /// has the expected status, the answers contain the fragment, and the server still answers afterwards.
    @Test(arguments: cases.filter { $0.name.hasSuffix(".http") })
    func httpInputsGetAnAnswerAndTheServerStaysUp(_ item: Case) throws {
        let server = Process()
        server.executableURL = SimctlProcess.binary
        server.arguments = ["serve", "Scenarios/family-stop-sharing.yaml", "--port", "0"]
        server.currentDirectoryURL = SimctlProcess.packageRoot
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let url = try #require(RawHTTP.firstLine(out.fileHandleForReading))
        let port = try #require(UInt16(url.split(separator: ":").last ?? ""))
        let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(item.name)))
        let answer = String(decoding: try #require(RawHTTP.exchange(bytes, port: port)), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 \(item.runExit) "), "\(item.name): \(answer.prefix(300))")
        #expect(answer.contains(item.fragment), "\(item.name): \(answer.prefix(600))")
        let state = Array("GET /simctl/v1/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        let after = String(decoding: RawHTTP.exchange(state, port: port) ?? [], as: UTF8.self)
        #expect(after.hasPrefix("HTTP/1.1 200 "), "the server still answers after \(item.name)")
    }

    @Test func anOutOfRangeUntilOptionIsAUsageError() throws {
        let (result, _) = try simctl(["run", "Scenarios/cancel-during-grace.yaml", "--until", "P292471208Y"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: --until: 2026-03-01T09:00:00Z + P292471208Y is beyond any"))
        #expect(!result.stderr.contains("cancel-during-grace.yaml:"), "not reported at the file's until line")
    }

    @Test func aMalformedUntilOptionIsAUsageError() throws {
        let (result, _) = try simctl(["run", "Scenarios/cancel-during-grace.yaml", "--until", "tomorrow"])
        #expect(result.status == 64 && result.stderr.hasPrefix("error: option '--until' needs a time"))
    }

    @Test func devNullIsReportedAsEmpty() throws {
        let (result, _) = try simctl(["validate", "/dev/null"])
        #expect(
            result.status == 65
                && result.stderr == "/dev/null:1:1: error: the file is empty; expected a scenario mapping\n")
    }

    @Test func aFolderIsReportedAsAFolder() throws {
        let (result, _) = try simctl(["validate", "Scenarios"])
        #expect(
            result.status == 66
                && result.stderr == "Scenarios:1:1: error: cannot read the file: it is a directory, not a file\n")
    }

    @Test func anUnreadableFileIsReportedAsPermissionDenied() throws {
        guard getuid() != 0 else { return }  // root reads everything
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-unreadable-\(getpid()).yaml")
        try Data("name: x\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file.path)
        let (result, _) = try simctl(["validate", file.path])
        #expect(
            result.status == 66 && result.stderr.hasSuffix(":1:1: error: cannot read the file: permission denied\n"))
    }
}
