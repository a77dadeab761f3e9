import Foundation
import SimctlCrypto
import SubscriptionSimulator

/// `simctl run FILE --shard I/N` and `simctl merge PART...` (docs/streaming.md, "Spreading a run over machines"):
/// one part of a run in the part format (``PartFile``), and the parts merged into the one-job output.
package enum MergeCommand {
    /// Writes part `part` of the run to `write` (`simctl run FILE --shard I/N`). The part stops where the run
    /// stops; its trailer keeps the stop for `simctl merge`, and the part is written whole (exit 0).
    static func shard(
        _ scenario: Scenario, options: RunOptions, part: RunPart, signer: (any PayloadSigner)?,
        write: @escaping ([UInt8]) -> Void
    ) -> CommandOutput {
        guard let bytes = FileManager.default.contents(atPath: options.file) else {
            return CommandOutput(
                stdout: "", stderr: "\(options.file):1:1: error: cannot read the file\n", exitCode: ExitCode.noInput)
        }
        var signing = "default"
        if let seed = options.signing.caSeed { signing = "ca-seed \(seed)" }
        if let directory = options.signing.chainDirectory {
            // Every JWS header carries the whole chain (x5c), so all three certificates decide the bytes; the key
            // must match leaf.pem (SigningChain), so the certificates decide it too.
            var certificates: [UInt8] = []
            for name in ["leaf.pem", "intermediate.pem", "root.pem"] {
                let file = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(name))
                certificates += Array(SHA256.hash(Array(file ?? Data())))
            }
            signing = "signing-chain \(hex(SHA256.hash(certificates)))"
        }
        let header = PartFile.Header(
            scenarioDigest: hex(SHA256.hash(Array(bytes))), scenario: scenario, signing: signing,
            format: options.format, part: part)
        // The header line names the scenario: a name of a megabyte would make a part no merge reads.
        guard header.lineLength <= PartFile.Reader.longestHeader + 1 else {
            return CommandOutput(
                stdout: "",
                stderr:
                    "\(options.file): error: the part's header would be \(header.lineLength - 1) bytes, more than the part format's \(PartFile.Reader.longestHeader) (the scenario's name has \(scenario.name.utf8.count) bytes)\n",
                exitCode: ExitCode.dataError)
        }
        let run = PartFile.writePart(
            scenario, part: part, format: options.format, signer: signer, header: header, write: write)
        var stderr = ""
        if let stop = run.stoppedBy {
            stderr = "note: part \(part) stops at \(stop.file):\(stop.location.line) ('simctl merge' reports it)\n"
        }
        return CommandOutput(stdout: "", stderr: stderr, exitCode: ExitCode.success)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// `simctl merge PART...`: every part is checked (header, each of 1...N once, complete) before anything is
    /// written; then the parts are merged by key, read in chunks (memory bounded by the parts' batches). With
    /// `standardOutputVector` the lines are written from the chunks they were read into (`writev(2)`), not copied.
    /// `simctl merge PART...`: no options, one or more part files.
    static let command = CommandDeclaration<[String]>(
        name: "merge", topic: "merge", summary: "Merge the parts of 'run --shard I/N' into the one-job output",
        positional: "PART...", positionalValue: .file, options: [], argument: { files, file in files.append(file) },
        page: HelpPage(about: [
            .paragraph(
                "Merges the N parts written by 'simctl run FILE --shard I/N --format jsonl|decoded|timeline' (each part "
                    + "once, in any order) into exactly the output of the one-job run, on standard output. Every part "
                    + "is checked before anything is written: the header (same scenario file, seed, start, until, "
                    + "environment, signing, format and N), that parts 1 to N are each there once, and that each part "
                    + "is complete (its trailer counts its records). Memory stays bounded: parts are read twice, in "
                    + "chunks, never held whole (a timeline's rows wait in a temporary file until the table's column "
                    + "widths are known).\nWhen the run stopped at an action the rules refuse, the lines up to it are "
                    + "written, the error goes to standard error and the exit code is 65, as 'simctl run' does. "
                    + "Expectations are not judged: a merged timeline ends with 'expectations: N not checked' where the "
                    + "one-job run judges N > 0 of them."),
            .rows(
                "EXIT CODES",
                [
                    HelpRow("64", "bad usage"),
                    HelpRow(
                        "65", "a part is not valid (the message names the file, what was expected and what was found)"),
                    HelpRow("66", "a part cannot be read"),
                ]),
            .paragraph("See docs/streaming.md, \"Spreading a run over machines\"."),
        ]))

    static func parse(_ arguments: [String]) throws(UsageError) -> [String] {
        var files: [String] = []
        try OptionParser.parse(arguments, command, into: &files)
        guard !files.isEmpty else {
            throw UsageError(
                message: "'merge' needs the part files written by 'simctl run --shard I/N'", topic: "merge")
        }
        return files
    }

    package static func main(
        files: [String], standardOutput: (([UInt8]) -> Void)? = nil, standardOutputVector: VectorWrite? = nil
    ) -> CommandOutput {
        func failure(_ problem: PartFile.Problem) -> CommandOutput {
            CommandOutput(
                stdout: "", stderr: problem.message + "\n",
                exitCode: problem.unreadable ? ExitCode.noInput : ExitCode.dataError)
        }
        func bad(_ message: String) -> CommandOutput {
            CommandOutput(stdout: "", stderr: "error: \(message)\n", exitCode: ExitCode.dataError)
        }
        var readers: [PartFile.Reader] = []
        var headers: [PartFile.Header] = []
        do throws(PartFile.Problem) {
            for file in files {
                let reader = try PartFile.Reader(path: file)
                headers.append(try reader.readHeader())
                readers.append(reader)
            }
        } catch { return failure(error) }
        // The same run: every field but the part's number agrees with the first part's.
        for index in 1..<max(1, headers.count) {
            if let difference = headers[index].differences(from: headers[0]).first {
                return bad(
                    "\(files[index]): not a part of the same run as \(files[0]): \(difference.field) is "
                        + "'\(difference.value)', expected '\(difference.other)'")
            }
        }
        let count = headers[0].shards
        var fileOfPart: [Int: Int] = [:]
        for (index, header) in headers.enumerated() {
            if let other = fileOfPart[header.shard] {
                return bad("\(files[other]) and \(files[index]) are both part \(header.shard)/\(count)")
            }
            fileOfPart[header.shard] = index
        }
        let missing = (1...count).filter { fileOfPart[$0] == nil }
        if !missing.isEmpty {
            return bad(
                "expected the \(count) parts 1 to \(count), found \(files.count) files; missing: "
                    + missing.prefix(10).map { "\($0)/\(count)" }.joined(separator: ", ")
                    + (missing.count > 10 ? ", ..." : ""))
        }
        do throws(PartFile.Problem) {
            for reader in readers { _ = try reader.validate() }
        } catch { return failure(error) }
        // In part order: ties of one key cannot happen across parts (a key is one family's), so the order of the
        // files given does not matter; part order keeps it plain.
        let ordered = (1...count).map { readers[fileOfPart[$0]!] }
        var collected: [UInt8] = []
        let stopped: PartFile.Reader?
        do throws(PartFile.Problem) {
            if readers[0].format == .timeline {
                stopped = try PartFile.mergeTimeline(ordered, write: standardOutput ?? { collected += $0 })
            } else {
                stopped = try PartFile.merge(
                    ordered, write: standardOutput ?? { collected += $0 },
                    writeVector: standardOutput == nil ? nil : standardOutputVector)
            }
        } catch { return failure(error) }
        let stdout = standardOutput == nil ? String(decoding: collected, as: UTF8.self) : ""
        if let stopped {
            return CommandOutput(stdout: stdout, stderr: stopped.trailer?.stop ?? "", exitCode: ExitCode.dataError)
        }
        return CommandOutput(stdout: stdout, stderr: "", exitCode: ExitCode.success)
    }
}
