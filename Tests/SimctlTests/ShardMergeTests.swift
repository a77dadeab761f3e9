import Foundation
import Testing
@testable import SimctlCommand
@testable import SubscriptionSimulator

/// `simctl run --shard I/N` and `simctl merge PART...` (issue 27, docs/streaming.md "Spreading a run over machines"):
/// the N parts merged are byte for byte the one-job output; a part set that is incomplete, mixed or damaged is
/// refused with a message naming the file, exit 65, and nothing on standard output.
@Suite struct ShardMergeTests {
    static let root = SimctlProcess.packageRoot

    /// A fresh temporary folder.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-shard-\(UUIDText.next())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes part `i` of `n` of `file` to `folder/name`, and returns its path.
    static func part(
        _ file: String, _ format: String, _ i: Int, _ n: Int, in folder: URL, name: String? = nil,
        extra: [String] = []
    ) throws -> String {
        let output = Simctl.main(["run", file, "--format", format, "--shard", "\(i)/\(n)"] + extra)
        #expect(output.exitCode == 0, "\(output.stderr)")
        #expect(output.stdout.hasPrefix("simctl-part 2 {"))
        let path = folder.appendingPathComponent(name ?? "\(format)-part\(i)of\(n)").path
        try Data(output.stdout.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func mergedEqualsOneJob(
        _ file: String, formats: [String] = ["jsonl", "decoded", "timeline"], parts counts: ClosedRange<Int> = 1...4
    ) throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for format in formats {
            let one = Simctl.main(["run", file, "--format", format, "--jobs", "1"])
            #expect([0, 1].contains(one.exitCode) && !one.stdout.isEmpty, "\(one.stderr)")
            let expected = format == "timeline" ? try mergedTimeline(one.stdout, file: file) : one.stdout
            for n in counts {
                let parts = try (1...n).map { try part(file, format, $0, n, in: folder) }
                // Given in reverse order: the order of the files does not matter.
                let merged = Simctl.main(["merge"] + parts.reversed())
                #expect(merged.exitCode == 0 && merged.stderr.isEmpty, "\(merged.stderr)")
                #expect(merged.stdout == expected, "\(file) \(format) \(n) parts")
            }
        }
    }

    /// The one-job timeline as a merge of its parts writes it: the same title and table; a scenario with
    /// expectations ends with them not checked instead of judged (a part holds rows, not notifications).
    static func mergedTimeline(_ oneJob: String, file: String) throws -> String {
        let scenario = try ScenarioDecoder(file: file).decode(try String(contentsOfFile: file, encoding: .utf8))
        let count = scenario.expectations.count
        guard count > 0 else { return oneJob }
        let judged = try #require(oneJob.range(of: "\nexpectations: \(count) checked, ", options: .backwards))
        #expect(oneJob[judged.upperBound...].hasSuffix("\n") && oneJob.hasSuffix("\n"))
        return String(oneJob[..<judged.lowerBound])
            + "\nexpectations: \(count) not checked (merged parts; run the scenario as one job to check them)\n"
    }

    /// Every Scenarios file, each format a part holds, in 2 and 3 parts (the files that run as one job included:
    /// their part 1 holds everything, in the one-job order).
    @Test func everyScenarioFileMergesToTheOneJobBytes() throws {
        let folder = Self.root.appendingPathComponent("Scenarios")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
        #expect(names.count >= 40)
        for name in names.sorted() {
            try Self.mergedEqualsOneJob(folder.appendingPathComponent(name).path, parts: 2...3)
        }
    }

    @Test(arguments: ["commitment-crossgrade-between-plans.yaml", "offers.yaml"])
    func scenarioFilesWithSeveralFamiliesMergeToTheOneJobBytes(name: String) throws {
        let file = Self.root.appendingPathComponent("Scenarios/\(name)").path
        let scenario = try ScenarioDecoder(file: file).decode(try String(contentsOfFile: file, encoding: .utf8))
        #expect(ScenarioPartition(scenario).isPartitioned && ScenarioPartition(scenario).familyCount >= 3)
        try Self.mergedEqualsOneJob(file)
    }

    @Test(arguments: [false, true]) func aGeneratedHundredCustomerScenarioMergesToTheOneJobBytes(coincident: Bool)
        throws
    {
        let file = try RunJobsTests.scaleScenario(customers: 100, coincident: coincident)
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Self.mergedEqualsOneJob(file)
        // Every part holds some of the records; a timeline part, access rows too.
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for i in 1...4 {
            let text = try String(contentsOfFile: try Self.part(file, "jsonl", i, 4, in: folder), encoding: .utf8)
            #expect(text.contains("\nr ") && !text.contains("\na "))
            let rows = try Data(contentsOf: URL(fileURLWithPath: try Self.part(file, "timeline", i, 4, in: folder)))
            // A row's cells end without a newline: the next record's line follows them.
            let lines = String(decoding: rows, as: UTF8.self)
            #expect(lines.contains("\nr "))
            #expect(lines.range(of: #"a \d+ \d+ \d+ \d+\n"#, options: .regularExpression) != nil)
        }
    }

    /// Part 1 of a scenario that runs as one job holds every record, in the one-job order; in the mass extension's,
    /// the summary about the app (family 0) follows the customers' extensions at its instant.
    @Test(arguments: ["price-increase-notice.yaml", "mass-extension-summary.yaml"])
    func aOneJobScenarioHasEverythingInPartOne(name: String) throws {
        let file = Self.root.appendingPathComponent("Scenarios/\(name)").path
        let scenario = try ScenarioDecoder(file: file).decode(try String(contentsOfFile: file, encoding: .utf8))
        #expect(!ScenarioPartition(scenario).isPartitioned)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let second = try String(contentsOfFile: try Self.part(file, "jsonl", 2, 3, in: folder), encoding: .utf8)
        #expect(second.hasSuffix("\nend 0 - 0\n") && !second.contains("\nr "))
        try Self.mergedEqualsOneJob(file)
    }

    @Test func aRefusedActionEndsTheMergedOutputAsTheOneJobRunDoes() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = try RunJobsTests.refusedScenarioText()
        let file = folder.appendingPathComponent("refused.yaml").path
        try Data(refused.utf8).write(to: URL(fileURLWithPath: file))
        for format in ["jsonl", "timeline"] {
            let one = Simctl.main(["run", file, "--format", format, "--jobs", "1"])
            #expect(one.exitCode == 65)
            // The timeline up to the stop, and the line that names where it stopped.
            #expect(format == "jsonl" || one.stdout.contains("\nstopped at \(file):"))
            for n in 1...3 {
                let parts = try (1...n).map { try Self.part(file, format, $0, n, in: folder) }
                let merged = Simctl.main(["merge"] + parts)
                #expect(
                    merged.stdout == one.stdout && merged.stderr == one.stderr && merged.exitCode == 65,
                    "\(format) \(n)")
            }
        }
    }

    /// A run stopped by a run limit (carol's weekly subscription, bought a week before the others', reaches 10,000
    /// renewals in 2217, at an instant where alice and dave renew too) ends in parts exactly where the one-job run
    /// ends, after the last timeline entry and while the clock moves to one: alice's renewal at that instant (a lower
    /// family) is kept and dave's (a higher one) is not (rule partition-order), under `--jobs` and in merged
    /// `--shard` parts alike.
    @Test(arguments: ["", "  - at: 72000d\n    cancel: { customer: dave, product: com.example.w }\n"])
    func aRunLimitEndsThePartsWhereItEndsTheOneJobRun(laterEntry: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("limit.yaml").path
        let text = """
            name: Renewal limit
            start: 2026-03-01T09:00:00Z
            app: { bundleId: com.example.nightsky, appAppleId: 1234567890 }
            products:
              - { id: com.example.w, type: autoRenewable, group: g, period: P1W, price: 1.99 }
            timeline:
              - at: 0
                openApp: { customer: alice }
              - at: 0
                purchase: { customer: carol, product: com.example.w }
              - at: 7d
                purchase: { customer: alice, product: com.example.w }
              - at: 7d
                purchase: { customer: dave, product: com.example.w }

            """ + laterEntry + "until: 2226-03-01T09:00:00Z\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        // Both formats once; the stop while the clock moves to an entry in jsonl only (the same cut either way).
        for format in laterEntry.isEmpty ? ["jsonl", "timeline"] : ["jsonl"] {
            let one = Simctl.main(["run", file, "--format", format, "--jobs", "1"])
            #expect(one.exitCode == 65 && one.stderr.contains("carol's subscription"), "\(one.stderr)")
            // Everyone's renewals up to the stop are output (not only what preceded the last entry).
            #expect(one.stdout.utf8.count { $0 == UInt8(ascii: "\n") } > 29_000)
            if format == "timeline" {
                // At the stop's instant: alice's renewal (family 0) but not dave's (family 2).
                let stop = try #require(one.stderr.range(of: #"stopped at [0-9T:-]+Z"#, options: .regularExpression))
                let instant = one.stderr[stop].dropFirst("stopped at ".count)
                let rows = one.stdout.split(separator: "\n").filter { $0.hasPrefix(instant) }
                #expect(rows.contains { $0.contains(" alice ") } && !rows.contains { $0.contains(" dave ") }, "\(rows)")
            }
            let two = Simctl.main(["run", file, "--format", format, "--jobs", "2"])
            #expect(two.stdout == one.stdout && two.stderr == one.stderr && two.exitCode == 65, "\(format)")
            let parts = try (1...2).map { try Self.part(file, format, $0, 2, in: folder) }
            let merged = Simctl.main(["merge"] + parts)
            #expect(merged.stdout == one.stdout && merged.stderr == one.stderr && merged.exitCode == 65, "\(format)")
        }
    }

    /// `simctl merge` writes the lines with `writev(2)` straight from the chunks it reads the parts into, reusing
    /// each part's chunk once it is written: the buffers, joined in order, are the one-job bytes (also when a
    /// refused action ends the run), and nothing goes to the other writer.
    @Test func mergedLinesAreWrittenFromTheChunksThePartsAreReadInto() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scale = try RunJobsTests.scaleScenario(customers: 200, coincident: true)
        defer { try? FileManager.default.removeItem(atPath: scale) }
        let refused = folder.appendingPathComponent("refused.yaml").path
        try Data(try RunJobsTests.refusedScenarioText().utf8).write(to: URL(fileURLWithPath: refused))
        for (file, exitCode) in [(scale, Int32(0)), (refused, Int32(65))] {
            for format in ["jsonl", "decoded"] {
                let one = Simctl.main(["run", file, "--format", format, "--jobs", "1"])
                #expect(one.exitCode == exitCode && !one.stdout.isEmpty, "\(one.stderr)")
                let parts = try (1...3).map { try Self.part(file, format, $0, 3, in: folder) }
                var joined: [UInt8] = []
                var calls = 0
                var copied: [UInt8] = []
                let merged = Simctl.main(
                    ["merge"] + parts, standardOutput: { copied += $0 },
                    standardOutputVector: { buffers in
                        calls += 1
                        #expect(buffers.count <= 512)
                        for buffer in buffers { joined += buffer }
                    })
                #expect(merged.exitCode == exitCode && merged.stderr == one.stderr, "\(merged.stderr)")
                #expect(copied.isEmpty && calls >= 1)
                #expect(joined == Array(one.stdout.utf8), "\(format): \(joined.count) bytes")
            }
        }
    }

    /// A record line is read from its bytes, in the one spelling simctl writes (docs/streaming.md, "The part
    /// format"); a part with any other is refused, naming the byte where the line starts.
    @Test func recordLinesAreReadFromTheirBytes() {
        func read(_ text: String) -> (key: RecordKey, length: Int)? {
            PartFile.Reader.record(Array(text.utf8)).map { (key: $0.0, length: $0.length) }
        }
        let record = read("r 3 -1700000000000 42 3071")
        #expect(record?.key == RecordKey(segment: 3, instant: -1_700_000_000_000, family: 42) && record?.length == 3071)
        #expect(read("r 0 0 4294967295 1")?.key == RecordKey(segment: 0, instant: 0, family: .max))
        #expect(read("r 0 0 0 1")?.length == 1, "the shortest record line")
        #expect(read("r 12 1767225600000 7 \(1 << 24)")?.length == 1 << 24)
        for other in [
            "r 1 2 3", "r 1 2 3 4 5", "r  1 2 3 4", "r 1 2 3 4 ", "r -1 2 3 4", "r 1 2 -3 4", "r 1 +2 3 4",
            "r 1 2 4294967296 4", "r 1 2 3 0", "r 1 2 3 \((1 << 24) + 1)", "r 1 2 3 4x", "end 0 - 0",
            "r 1 1234567890123456789 3 4", "q 1 2 3 4",
        ] {
            #expect(read(other) == nil, "\(other)")
        }
    }

    @Test func aRecordLineInAnotherSpellingIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, parts) = try Self.goodParts(in: folder)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var text = try String(contentsOfFile: parts[1], encoding: .utf8)
        let record = try #require(text.range(of: "\nr "))
        text.replaceSubrange(record, with: "\nr +")
        try Data(text.utf8).write(to: URL(fileURLWithPath: parts[1]))
        Self.expectRefused(parts, "expected a record 'r SEGMENT INSTANT FAMILY LENGTH'")
    }

    /// Three good parts of the scale scenario, for the error cases.
    static func goodParts(in folder: URL) throws -> (file: String, parts: [String]) {
        let file = try RunJobsTests.scaleScenario(customers: 30, coincident: true)
        return (file, try (1...3).map { try part(file, "jsonl", $0, 3, in: folder) })
    }

    static func expectRefused(_ arguments: [String], exitCode: Int32 = 65, _ message: String) {
        let output = Simctl.main(["merge"] + arguments)
        #expect(output.exitCode == exitCode, "\(output.stderr)")
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func aMissingOrDuplicatePartIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, parts) = try Self.goodParts(in: folder)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(Simctl.main(["merge"] + parts).exitCode == 0)
        Self.expectRefused([parts[0], parts[2]], "expected the 3 parts 1 to 3, found 2 files; missing: 2/3")
        Self.expectRefused(
            [parts[0], parts[1], parts[1]], "error: \(parts[1]) and \(parts[1]) are both part 2/3")
        let copy = folder.appendingPathComponent("copy").path
        try FileManager.default.copyItem(atPath: parts[0], toPath: copy)
        Self.expectRefused([parts[0], copy, parts[1], parts[2]], "\(parts[0]) and \(copy) are both part 1/3")
    }

    @Test func partsOfAnotherScenarioFormatOrSeedAreRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, parts) = try Self.goodParts(in: folder)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let decoded = try Self.part(file, "decoded", 2, 3, in: folder)
        Self.expectRefused(
            [parts[0], decoded, parts[2]],
            "\(decoded): not a part of the same run as \(parts[0]): format is 'decoded', expected 'jsonl'")
        let seeded = try Self.part(file, "jsonl", 3, 3, in: folder, name: "seeded", extra: ["--seed", "99"])
        Self.expectRefused(
            [parts[0], parts[1], seeded], "\(seeded): not a part of the same run as \(parts[0]): seed is '99'")
        let other = Self.root.appendingPathComponent("Scenarios/offers.yaml").path
        let otherPart = try Self.part(other, "jsonl", 2, 3, in: folder, name: "other")
        Self.expectRefused(
            [parts[0], otherPart, parts[2]],
            "\(otherPart): not a part of the same run as \(parts[0]): scenarioDigest is")
        let four = try Self.part(file, "jsonl", 2, 4, in: folder, name: "four")
        Self.expectRefused([parts[0], four, parts[2]], "shards is '4', expected '3'")
    }

    /// Parts signed with two different chains (`--signing-chain`) are not parts of one run: every JWS carries its
    /// chain's certificates.
    @Test func partsSignedWithDifferentChainsAreRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try RunJobsTests.scaleScenario(customers: 30, coincident: true)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var chained: [String] = []
        for seed in ["first", "second"] {
            let chain = folder.appendingPathComponent("chain-\(seed)").path
            let export = Simctl.main(["certs", "export", chain, "--ca-seed", seed])
            #expect(export.exitCode == 0, "\(export.stderr)")
            let extra = ["--environment", "Sandbox", "--signing-chain", chain]
            chained.append(try Self.part(file, "jsonl", chained.count + 1, 3, in: folder, name: seed, extra: extra))
        }
        let third = try Self.part(
            file, "jsonl", 3, 3, in: folder, name: "third",
            extra: ["--environment", "Sandbox", "--signing-chain", folder.appendingPathComponent("chain-first").path])
        Self.expectRefused(
            [chained[0], chained[1], third], "\(chained[1]): not a part of the same run as \(chained[0]): signing is")
    }

    @Test func aTruncatedOrDamagedPartIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, parts) = try Self.goodParts(in: folder)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: parts[1]))
        let truncated = folder.appendingPathComponent("truncated").path
        // Cut in a record, then cut just before the trailer.
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        Self.expectRefused([parts[0], truncated, parts[2]], "\(truncated): error: truncated:")
        let trailer = bytes.count - Array(bytes.reversed()).firstIndex(of: UInt8(ascii: "e"))! - 1
        try bytes.prefix(trailer).write(to: URL(fileURLWithPath: truncated))
        Self.expectRefused(
            [parts[0], truncated, parts[2]],
            "\(truncated): error: truncated: expected record")
        // A record dropped: the trailer's count no longer holds.
        var text = String(decoding: bytes, as: UTF8.self)
        let first = text.range(of: "\nr ")!.lowerBound
        let second = text[text.index(after: first)...].range(of: "\nr ")!.lowerBound
        text.removeSubrange(first..<second)
        try Data(text.utf8).write(to: URL(fileURLWithPath: truncated))
        Self.expectRefused([parts[0], truncated, parts[2]], "the trailer says")
        // A record whose length is past the limit: refused without reading that much.
        let huge = String(decoding: bytes, as: UTF8.self).replacingOccurrences(
            of: #"(\nr \d+ -?\d+ \d+ )\d+\n"#, with: "$1999999999999\n", options: .regularExpression)
        try Data(huge.utf8).write(to: URL(fileURLWithPath: truncated))
        Self.expectRefused([parts[0], truncated, parts[2]], "(LENGTH 1 to 16777216)")
        // Bytes after the trailer.
        try (bytes + Data("x".utf8)).write(to: URL(fileURLWithPath: truncated))
        Self.expectRefused([parts[0], truncated, parts[2]], "expected the end of the file after the trailer")
    }

    /// A merged timeline names where a refused action stopped the run by the stop's `FILE:LINE:COLUMN`, read back
    /// from its message even when the file's name holds `: error: `.
    @Test func theStopsLocationIsReadFromItsMessage() {
        #expect(PartFile.location(ofStop: "a/b.yaml:3:4: error: x\n", file: "a/b.yaml") == "a/b.yaml:3:4")
        #expect(
            PartFile.location(ofStop: "d: error: x/s.yaml:30:5: error: msg", file: "d: error: x/s.yaml")
                == "d: error: x/s.yaml:30:5")
        let odd = "x:1:2: error: y.yaml"
        #expect(PartFile.location(ofStop: odd + ":24:5: error: m", file: odd) == odd + ":24:5")
        #expect(PartFile.location(ofStop: "f.yaml:1:2: error: a: error: b", file: "f.yaml") == "f.yaml:1:2")
        #expect(PartFile.location(ofStop: "f.yaml:1:x: error: b", file: "f.yaml") == "f.yaml:1:x: error: b")
        #expect(PartFile.location(ofStop: "other.yaml:1:2: error: b", file: "f.yaml") == "other.yaml:1:2: error: b")
    }

    /// Parts whose headers disagree on the scenario's name or expectation count are not merged (the title and the
    /// last line come from them), nor is a part in format version 1 (written before the rotated blocks: its families
    /// were split round robin); a name far longer than a line of the part format's other text still merges.
    @Test func theNameIsInTheHeaderAndComparedAndMayBeLong() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, parts) = try Self.goodParts(in: folder)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let damaged = folder.appendingPathComponent("renamed").path
        for (field, pattern, edit) in [
            ("name", #""name":"[^"]*""#, #""name":"Other""#),
            ("expectations", #""expectations":[0-9]+"#, #""expectations":99"#),
        ] {
            var text = try String(contentsOfFile: parts[1], encoding: .utf8)
            let range = try #require(text.range(of: pattern, options: .regularExpression))
            text.replaceSubrange(range, with: edit)
            try Data(text.utf8).write(to: URL(fileURLWithPath: damaged))
            Self.expectRefused([parts[0], damaged, parts[2]], "not a part of the same run as \(parts[0]): \(field) is")
        }
        // A part written by a simctl before the rotated blocks (format version 1) is refused with its own message.
        let earlier = try String(contentsOfFile: parts[1], encoding: .utf8).replacingOccurrences(
            of: "simctl-part 2 {", with: "simctl-part 1 {")
        try Data(earlier.utf8).write(to: URL(fileURLWithPath: damaged))
        Self.expectRefused(
            [parts[0], damaged, parts[2]],
            "\(damaged): error: a part in format version 1, written by an earlier simctl (its families were split "
                + "round robin); this simctl reads version 2")
        let long = folder.appendingPathComponent("long.yaml").path
        let source = try String(
            contentsOfFile: Self.root.appendingPathComponent("Scenarios/offers.yaml").path, encoding: .utf8)
        let named = source.replacingOccurrences(
            of: #"(?m)^name: .*$"#, with: "name: " + String(repeating: "n", count: 70_000), options: .regularExpression)
        #expect(named != source)
        try Data(named.utf8).write(to: URL(fileURLWithPath: long))
        try Self.mergedEqualsOneJob(long, formats: ["jsonl", "timeline"], parts: 2...2)
        // A name that would make the header longer than a part allows: refused by --shard, nothing written.
        let tooLong = source.replacingOccurrences(
            of: #"(?m)^name: .*$"#, with: "name: " + String(repeating: "n", count: 1 << 20),
            options: .regularExpression)
        try Data(tooLong.utf8).write(to: URL(fileURLWithPath: long))
        let refused = Simctl.main(["run", long, "--format", "jsonl", "--shard", "1/2"])
        #expect(refused.exitCode == 65 && refused.stdout.isEmpty, "\(refused.stderr)")
        #expect(refused.stderr.contains("the part's header would be"))
    }

    /// A timeline part's records are rows (six cells, each a 4-byte length and its bytes), checked before anything
    /// is written; access rows (`a`) are only in timeline parts; a header's format is one a part holds.
    @Test func aDamagedTimelinePartOrAnUnknownFormatIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, parts) = try Self.goodParts(in: folder)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let rows = try (1...3).map { try Self.part(file, "timeline", $0, 3, in: folder) }
        #expect(Simctl.main(["merge"] + rows).exitCode == 0)
        Self.expectRefused([rows[0], parts[1], rows[2]], "format is 'jsonl', expected 'timeline'")
        let damaged = folder.appendingPathComponent("damaged").path
        // The first cell of the first record (its time, 20 bytes) said to be 21: the cells no longer end with the
        // record.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: rows[1]))
        let record = try #require(bytes.firstRange(of: Data("\nr ".utf8)))
        let cell = try #require(bytes[record.upperBound...].firstIndex(of: UInt8(ascii: "\n"))) + 1
        #expect(bytes[cell] == 20)
        bytes[cell] = 21
        try bytes.write(to: URL(fileURLWithPath: damaged))
        Self.expectRefused([rows[0], damaged, rows[2]], "\(damaged): error: record 1 is not a timeline row")
        // An access row in a jsonl part.
        var text = try String(contentsOfFile: parts[1], encoding: .utf8)
        text.replaceSubrange(try #require(text.range(of: "\nr ")), with: "\na ")
        try Data(text.utf8).write(to: URL(fileURLWithPath: damaged))
        Self.expectRefused([parts[0], damaged, parts[2]], "an access row 'a ...' is only in a timeline part")
        // A format no part holds, and timeline parts without the scenario's name (all three, so that their
        // headers agree).
        let svg = try String(contentsOfFile: parts[1], encoding: .utf8)
        #expect(svg.contains(#""format":"jsonl""#))
        try Data(svg.replacingOccurrences(of: #""format":"jsonl""#, with: #""format":"svg""#).utf8).write(
            to: URL(fileURLWithPath: damaged))
        Self.expectRefused(
            [parts[0], damaged, parts[2]], "expected a part of format jsonl, decoded or timeline, found format 'svg'")
        var unnamed: [String] = []
        for (index, part) in rows.enumerated() {
            let text = try String(contentsOfFile: part, encoding: .utf8)
            #expect(text.contains(#""name":"#))
            let path = folder.appendingPathComponent("unnamed\(index)").path
            try Data(text.replacingOccurrences(of: #""name":"#, with: #""nom":"#).utf8).write(
                to: URL(fileURLWithPath: path))
            unnamed.append(path)
        }
        Self.expectRefused(unnamed, "a timeline part's header needs 'name'")
    }

    /// 300 damaged copies of a timeline part (1 to 4 bytes changed, a range removed or bytes inserted, at places
    /// drawn from a fixed seed): each merge writes the table (exit 0) or refuses the part (exit 65, nothing written),
    /// and never crashes.
    @Test func randomlyDamagedTimelinePartsAreMergedOrRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try RunJobsTests.scaleScenario(customers: 12, coincident: true)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let rows = try (1...2).map { try Self.part(file, "timeline", $0, 2, in: folder) }
        let good = Array(try Data(contentsOf: URL(fileURLWithPath: rows[1])))
        let damaged = folder.appendingPathComponent("damaged").path
        var random = SplitMix64(state: 27)
        func below(_ bound: Int) -> Int { Int(random.next() % UInt64(max(bound, 1))) }
        var refused = 0
        for _ in 0..<300 {
            var bytes = good
            for _ in 0...below(4) {
                let at = below(bytes.count)
                switch below(4) {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[at] = [0x00, 0xFF, 0x80, 0x0A, 0x20, 0x2D, 0x39][below(7)]
                case 2: bytes.removeSubrange(at..<min(bytes.count, at + 1 + below(40)))
                default: bytes.insert(contentsOf: Array(repeating: UInt8(below(256)), count: 1 + below(8)), at: at)
                }
                if bytes.isEmpty { bytes = [0] }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            let merged = Simctl.main(["merge", rows[0], damaged])
            #expect([0, 65].contains(merged.exitCode), "\(merged.stderr)")
            if merged.exitCode == 65 {
                refused += 1
                #expect(merged.stdout.isEmpty || merged.stderr.contains("stop"), "\(merged.stderr)")
            }
        }
        #expect(refused > 200)
    }

    @Test func aFileThatIsNotAPartIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, parts) = try Self.goodParts(in: folder)
        defer { try? FileManager.default.removeItem(atPath: file) }
        Self.expectRefused(
            [parts[0], file, parts[2]],
            "\(file): error: expected a part of 'simctl run --shard I/N' (first line 'simctl-part 2 {...}'), found '# Generated"
        )
        let empty = folder.appendingPathComponent("empty").path
        try Data().write(to: URL(fileURLWithPath: empty))
        Self.expectRefused([empty], "\(empty): error: expected a part of 'simctl run --shard I/N'")
        Self.expectRefused([folder.appendingPathComponent("absent").path], exitCode: 66, "cannot read the file")
        Self.expectRefused([], exitCode: 64, "'merge' needs the part files")
        Self.expectRefused(["--out", "x"], exitCode: 64, "unknown option '--out'")
    }

    @Test func shardIsListedAndChecked() {
        #expect(Simctl.main(["help"]).stdout.contains("merge PART..."))
        #expect(Simctl.main(["help", "run"]).stdout.contains("--shard I/N"))
        #expect(Simctl.main(["help", "merge"]).stdout.contains("USAGE: simctl merge PART..."))
        for (arguments, message) in [
            (["--shard", "0/2"], "option '--shard' needs I/N"),
            (["--shard", "3/2"], "option '--shard' needs I/N"),
            (["--shard", "1/2", "--format", "jsonl", "--shard", "2/2"], "option '--shard' is given twice"),
            (["--shard", "1/2", "--format", "svg"], "cannot be used with '--format svg'"),
            (["--shard", "1/2", "--format", "jsonl", "--out", "d"], "cannot be used with '--out'"),
        ] {
            let output = Simctl.main(["run", "x.yaml"] + arguments)
            #expect(output.exitCode == 64 && output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
    }
}
