import Foundation
import SimctlCrypto
import Testing
@testable import SimctlCommand
@testable import SubscriptionSimulator

/// `simctl run --jobs N` (issue 27, "Every core, same bytes"; docs/streaming.md): the parts' output merged is byte for
/// byte the one-job output, for every N, in every format that is merged and as a fixture folder.
@Suite struct RunJobsTests {
    static let root = SimctlProcess.packageRoot

    /// The scale scenario of Tests/Scale/generate_scenario.py, written to a temporary file.
    static func scaleScenario(customers: Int, coincident: Bool) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", root.appendingPathComponent("Tests/Scale/generate_scenario.py").path, "\(customers)",
            "--purchases", coincident ? "coincident" : "spread",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // Half a year is enough to see every kind of event (grace, retry, recovery, expiry).
        let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "until: P1Y", with: "until: P5M")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "simctl-jobs-\(UUIDText.next())-\(customers)-\(coincident ? "coincident" : "spread").yaml")
        try Data(text.utf8).write(to: file)
        return file.path
    }

    static func hash(_ text: String) -> String {
        SHA256.hash(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func run(_ file: String, _ arguments: [String]) -> CommandOutput {
        Simctl.main(["run", file] + arguments)
    }

    @Test(arguments: [false, true])
    func everyJobCountWritesTheSameBytes(coincident: Bool) throws {
        let file = try Self.scaleScenario(customers: 300, coincident: coincident)
        defer { try? FileManager.default.removeItem(atPath: file) }
        for format in ["jsonl", "decoded", "timeline"] {
            let one = Self.run(file, ["--format", format, "--jobs", "1"])
            #expect(one.exitCode == 0 && !one.stdout.isEmpty, "\(one.stderr)")
            for jobs in [2, 3] {
                let many = Self.run(file, ["--format", format, "--jobs", "\(jobs)"])
                #expect(many.exitCode == 0, "\(many.stderr)")
                #expect(
                    Self.hash(many.stdout) == Self.hash(one.stdout),
                    "\(format), --jobs \(jobs), coincident \(coincident)")
            }
        }
    }

    /// `simctl` writes a run in parts with `writev(2)`, straight from the parts' buffers: the buffers it is given,
    /// joined in order, are the one-job bytes, and nothing goes to the other writer.
    @Test(arguments: ["jsonl", "decoded"])
    func linesWrittenFromThePartsBuffersAreTheOneJobBytes(format: String) throws {
        let file = try Self.scaleScenario(customers: 200, coincident: true)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var one: [UInt8] = []
        let single = Simctl.main(
            ["run", file, "--format", format, "--jobs", "1"], standardOutput: { one += $0 },
            standardOutputVector: { _ in Issue.record("one job writes no vectors") })
        #expect(single.exitCode == 0 && !one.isEmpty, "\(single.stderr)")
        var joined: [UInt8] = []
        var calls = 0
        var chunks: [UInt8] = []
        let parts = Simctl.main(
            ["run", file, "--format", format, "--jobs", "3"], standardOutput: { chunks += $0 },
            standardOutputVector: { buffers in
                calls += 1
                #expect(buffers.count <= 512)
                for buffer in buffers { joined += buffer }
            })
        #expect(parts.exitCode == 0, "\(parts.stderr)")
        #expect(chunks.isEmpty && calls > 1)
        #expect(joined == one, "\(format): \(joined.count) bytes against \(one.count)")
    }

    @Test func theScaleScenarioRunsInAsManyPartsAsJobs() throws {
        let file = try Self.scaleScenario(customers: 10, coincident: true)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let scenario = try ScenarioDecoder(file: file).decode(try String(contentsOfFile: file, encoding: .utf8))
        let partition = ScenarioPartition(scenario)
        var plan = RunPlan(format: .jsonl)
        plan.jobs = 3
        #expect(plan.partCount(for: scenario, partition: partition) == 3)
        plan.jobs = 64
        #expect(plan.partCount(for: scenario, partition: partition) == 10)  // one family each
        plan.format = .svg
        #expect(plan.partCount(for: scenario, partition: partition) == 1)
    }

    @Test func fixtureFoldersAreTheSameForEveryJobCount() throws {
        let file = try Self.scaleScenario(customers: 120, coincident: true)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-jobs-out-\(UUIDText.next())")
        defer { try? FileManager.default.removeItem(at: base) }
        var folders: [[String: Data]] = []
        for jobs in [1, 2, 3] {
            let directory = base.appendingPathComponent("jobs\(jobs)")
            let output = Self.run(file, ["--format", "jsonl", "--out", directory.path, "--jobs", "\(jobs)"])
            #expect(output.exitCode == 0, "\(output.stderr)")
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
            }
            folders.append(files)
        }
        #expect(folders[0].count > 100)
        #expect(folders[1] == folders[0] && folders[2] == folders[0])
    }

    @Test(arguments: ScenarioFilesList.names)
    func everyScenarioFileIsTheSameWithFourJobs(name: String) throws {
        let file = Self.root.appendingPathComponent("Scenarios/\(name)").path
        for format in ["jsonl", "decoded", "timeline"] {
            let one = Self.run(file, ["--format", format, "--jobs", "1"])
            let four = Self.run(file, ["--format", format, "--jobs", "4"])
            #expect(four.stdout == one.stdout, "\(name) \(format)")
            #expect(four.stderr == one.stderr && four.exitCode == one.exitCode, "\(name) \(format)")
        }
    }

    /// Scenarios/grace-16d-recovery-day-14.yaml with a second customer whose cancel comes before any purchase: the
    /// rules refuse it, and the run stops there.
    static func refusedScenarioText() throws -> String {
        let text = try String(
            contentsOf: root.appendingPathComponent("Scenarios/grace-16d-recovery-day-14.yaml"), encoding: .utf8)
        let purchase = "    purchase: { customer: alice, product: com.example.nightsky.pro.monthly }\n"
        let refused = text.replacingOccurrences(
            of: purchase,
            with: purchase + "  - at: 1d\n    cancel: { customer: zed, product: com.example.nightsky.pro.monthly }\n")
        #expect(refused != text)
        return refused
    }

    @Test func aBrokenExpectationAndARefusedActionReadTheSameWithJobs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-jobs-\(UUIDText.next())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = try Self.refusedScenarioText()
        let file = folder.appendingPathComponent("refused.yaml")
        try Data(refused.utf8).write(to: file)
        for format in ["jsonl", "timeline"] {
            let one = Self.run(file.path, ["--format", format, "--jobs", "1"])
            let two = Self.run(file.path, ["--format", format, "--jobs", "2"])
            #expect(one.exitCode == 65)
            #expect(two.stdout == one.stdout && two.stderr == one.stderr && two.exitCode == one.exitCode)
        }
    }

    @Test func jobsIsListedAndChecked() {
        #expect(Simctl.main(["help", "run"]).stdout.contains("--jobs N"))
        let bad = Simctl.main(["run", "x.yaml", "--jobs", "0"])
        #expect(bad.exitCode == 64 && bad.stderr.contains("option '--jobs' needs a whole number from 1 to 1024"))
    }
}

/// The Scenarios/ files, by name.
enum ScenarioFilesList {
    static let names: [String] =
        ((try? FileManager.default.contentsOfDirectory(
            atPath: SimctlProcess.packageRoot.appendingPathComponent("Scenarios").path)) ?? [])
        .filter { $0.hasSuffix(".yaml") }.sorted()
}
