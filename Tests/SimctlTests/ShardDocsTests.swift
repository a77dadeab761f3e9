import Foundation
import Testing

/// docs/streaming.md's ```bash blocks ("Spreading a run over machines"), run by bash in a temporary folder holding a
/// link to the package's Scenarios folder, with `simctl` on the PATH as the built binary: the shell loop, GNU
/// parallel (where it is installed), the Kubernetes pod command for JOB_COMPLETION_INDEX 0 to 3 and the GitHub Actions
/// shard step for SHARD 1 to 4, each followed by its merge, whose output must be the one-job output.
@Suite(.serialized) struct ShardDocsTests {
    static let doc =
        (try? String(
            contentsOf: SimctlProcess.packageRoot.appendingPathComponent("docs/streaming.md"), encoding: .utf8)) ?? ""

    static var blocks: [String] {
        doc.components(separatedBy: "```bash\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }

    static func block(containing text: String) -> String? { blocks.first { $0.contains(text) } }

    /// Runs `script` with bash (`set -euo pipefail`) in `folder`; returns its exit status and standard error.
    static func bash(_ script: String, in folder: URL, environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -euo pipefail\n" + script]
        process.currentDirectoryURL = folder
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = SimctlProcess.binary.deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: errData, as: UTF8.self))
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-shard-doc-\(UUIDText.next())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: url.appendingPathComponent("Scenarios"),
            withDestinationURL: SimctlProcess.packageRoot.appendingPathComponent("Scenarios"))
        return url
    }

    static let scenario = "Scenarios/commitment-crossgrade-between-plans.yaml"

    static func oneJob(_ format: String) throws -> Data {
        let result = try SimctlProcess.run(["run", scenario, "--format", format])
        #expect(result.status == 0, "\(result.stderr)")
        return Data(result.stdout.utf8)
    }

    @Test func everyBlockIsRunHere() {
        #expect(Self.blocks.count == 6)
        for text in [
            "for i in 1 2 3 4", "parallel ", "JOB_COMPLETION_INDEX", "--shard \"$SHARD/4\"", "notifications.jsonl",
            "rows1 rows2 rows3",
        ] {
            #expect(Self.block(containing: text) != nil, "\(text)")
        }
    }

    @Test func theShellLoopMergesToTheOneJobBytes() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, stderr) = try Self.bash(try #require(Self.block(containing: "for i in 1 2 3 4")), in: folder)
        #expect(status == 0, "\(stderr)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("merged.jsonl")) == (try Self.oneJob("jsonl")))
    }

    /// The timeline's loop: the merged table is the one-job table, and the only difference is the one the text
    /// shows `diff` printing (the line below the table: expectations not checked).
    @Test func theTimelineLoopMergesToTheOneJobTable() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, stderr) = try Self.bash(try #require(Self.block(containing: "rows1 rows2 rows3")), in: folder)
        #expect(status == 0, "\(stderr)")
        let merged = try String(contentsOf: folder.appendingPathComponent("merged.txt"), encoding: .utf8)
        let one = try String(contentsOf: folder.appendingPathComponent("one.txt"), encoding: .utf8)
        #expect(one == String(decoding: try Self.oneJob("timeline"), as: UTF8.self))
        let file = SimctlProcess.packageRoot.appendingPathComponent(Self.scenario).path
        #expect(merged == (try ShardMergeTests.mergedTimeline(one, file: file)))
        let shown = try #require(Self.doc.components(separatedBy: "```text\n").first { $0.hasPrefix("49c49\n") })
        let lines = shown.components(separatedBy: "```")[0].split(separator: "\n").map(String.init)
        let mergedLines = merged.split(separator: "\n", omittingEmptySubsequences: false)
        let oneLines = one.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(mergedLines.count == 50 && oneLines.count == 50)
        #expect(lines == ["49c49", "< " + mergedLines[48], "---", "> " + oneLines[48]])
    }

    /// Whether GNU parallel is installed (where it is not, the shell loop stands in: skipped, not passed).
    static let parallelInstalled =
        ((try? bash("command -v parallel", in: FileManager.default.temporaryDirectory))?.0 ?? 1) == 0

    @Test(.enabled(if: parallelInstalled, "GNU parallel is not installed")) func gnuParallelMergesToTheOneJobBytes()
        throws
    {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, stderr) = try Self.bash(try #require(Self.block(containing: "parallel ")), in: folder)
        #expect(status == 0, "\(stderr)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("merged.decoded")) == (try Self.oneJob("decoded")))
    }

    @Test func theKubernetesPodsAndTheirMergeGiveTheOneJobBytes() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let parts = folder.appendingPathComponent("parts")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        let pod = try #require(Self.block(containing: "JOB_COMPLETION_INDEX"))
        for index in 0..<4 {
            let (status, stderr) = try Self.bash(
                pod, in: folder, environment: ["JOB_COMPLETION_INDEX": "\(index)", "PARTS": parts.path])
            #expect(status == 0, "\(stderr)")
        }
        // The merge the text gives after the block.
        let merge = try #require(
            Self.doc.components(separatedBy: "\n").first {
                $0.hasPrefix("then, once the Job is complete, `simctl merge")
            })
        let command = try #require(merge.components(separatedBy: "`").dropFirst().first)
        let (status, stderr) = try Self.bash(command + " > merged", in: folder, environment: ["PARTS": parts.path])
        #expect(status == 0, "\(stderr)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("merged")) == (try Self.oneJob("jsonl")))
    }

    @Test func theGitHubActionsMatrixAndItsMergeGiveTheOneJobBytes() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let step = try #require(Self.block(containing: "--shard \"$SHARD/4\""))
        for shard in 1...4 {
            let (status, stderr) = try Self.bash(step, in: folder, environment: ["SHARD": "\(shard)"])
            #expect(status == 0, "\(stderr)")
        }
        let (status, stderr) = try Self.bash(try #require(Self.block(containing: "notifications.jsonl")), in: folder)
        #expect(status == 0, "\(stderr)")
        #expect(
            try Data(contentsOf: folder.appendingPathComponent("notifications.jsonl")) == (try Self.oneJob("jsonl")))
    }
}
