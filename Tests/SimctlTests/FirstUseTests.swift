import Foundation
import Testing
@testable import SimctlCommand
@testable import SubscriptionSimulator

/// Issue 9 rule 7 (`validate` runs the scenario), the first-use frictions (`--start`, `--force`, the binary, the
/// fixtures guide's example) and issue 10's fixture-folder items, through the built binary where a user would meet
/// them.
@Suite(.serialized) struct FirstUseTests {
    static let malformed = SimctlProcess.packageRoot.appendingPathComponent(
        "Tests/SubscriptionSimulatorTests/Golden/Malformed")

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-first-\(UUIDText.next())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func write(_ text: String, in folder: URL, as name: String = "s.yaml") throws -> URL {
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    static let base = """
        name: t
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 9.99 }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.monthly }

        """

    // MARK: - validate runs the scenario (issue 9, rule 7)

    /// Each file is one thing `run` refuses; its first line holds the error. `validate` reports it at the same
    /// FILE:LINE:COLUMN, exit 65, and so does `run`.
    @Test(arguments: [
        "62-cancel-twice.yaml", "63-refund-of-nothing.yaml", "64-purchase-during-billing-retry.yaml",
        "25-unknown-customer-in-expect.yaml", "60-unknown-transaction-field.yaml",
    ])
    func validateReportsWhatRunRefusesAtTheTimelineEntry(name: String) throws {
        let file = Self.malformed.appendingPathComponent(name)
        let text = try String(contentsOf: file, encoding: .utf8)
        let expected = String(text.split(separator: "\n")[0].dropFirst("# expect-error: ".count))
        let colon = expected.firstIndex(of: ":")!
        let location = expected[..<expected[expected.index(after: colon)...].firstIndex(of: ":")!]
        let message = expected[expected.index(location.endIndex, offsetBy: 2)...]
        let line = "\(file.path):\(location): error: \(message)\n"
        let validate = try SimctlProcess.run(["validate", file.path])
        #expect(validate.status == 65 && validate.stdout.isEmpty)
        #expect(validate.stderr == line)
        let run = try SimctlProcess.run(["run", file.path, "--format", "jsonl"])
        // jsonl is streamed (docs/streaming.md): the lines sent before the refused action are printed; exit 65 and
        // standard error say the stream stopped there.
        #expect(run.status == 65)
        #expect(run.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{\"signedPayload\":\"") })
        #expect(run.stderr == line)
    }

    @Test func validateOfAScenarioThatRunsToTheEndSaysSo() throws {
        let result = try SimctlProcess.run(["validate", "Scenarios/family-refund.yaml"])
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("runs to the end with 6 notifications\n"), "\(result.stdout)")
    }

    @Test func runStoppedByARulePrintsTheTimelineUpToThatPoint() throws {
        let folder = try temporaryFolder()
        let file = try write(
            Self.base + """
                  - at: 1d
                    cancel: { customer: alice, product: com.example.monthly }
                  - at: 2d
                    cancel: { customer: alice, product: com.example.monthly }
                """, in: folder)
        let out = folder.appendingPathComponent("fx")
        let result = try SimctlProcess.run(["run", file.path, "--out", out.path])
        #expect(result.status == 65)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("SUBSCRIBED INITIAL_BUY") })
        #expect(lines.contains { $0.contains("+1d") && $0.contains("DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED") })
        #expect(lines.last == "stopped at \(file.path):12:5 (see standard error); expectations not checked")
        #expect(
            result.stderr.hasPrefix(
                "\(file.path):12:5: error: cancel at 2026-03-03T09:00:00Z cannot happen: alice, com.example.monthly: "
                    + "auto-renew is already off for this subscription (rule auto-renew-already-off)\n"))
        #expect(result.stderr.hasSuffix("no fixture folder written to '\(out.path)': the run stopped before its end\n"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    // MARK: - --start

    @Test func startOverridesTheFilesStartAndOffsetsCountFromIt() throws {
        let folder = try temporaryFolder()
        let original = try String(
            contentsOf: SimctlProcess.packageRoot.appendingPathComponent("Scenarios/family-refund.yaml"),
            encoding: .utf8)
        let moved = try write(
            original.replacingOccurrences(of: "start: 2026-03-01T09:00:00Z", with: "start: 2026-12-01T00:00:00Z"),
            in: folder, as: "moved.yaml")
        let overridden = try SimctlProcess.run([
            "run", "Scenarios/family-refund.yaml", "--start", "2026-12-01T00:00:00Z", "--format", "jsonl",
        ])
        let written = try SimctlProcess.run(["run", moved.path, "--format", "jsonl"])
        #expect(overridden.status == 0 && written.status == 0, "\(overridden.stderr)")
        #expect(overridden.stdout == written.stdout, "the output is determined by the instant given and the seed")
        let timeline = try SimctlProcess.run(["run", "Scenarios/family-refund.yaml", "--start", "2026-12-01T00:00:00Z"])
        #expect(timeline.stdout.contains("start 2026-12-01T00:00:00Z · seed"))
        #expect(timeline.stdout.contains("2026-12-06T00:00:00Z  +5d"), "the refund at 5d counts from the new start")
    }

    @Test func startNowReadsTheClockOnceRoundedDownToTheSecond() throws {
        let file = SimctlProcess.packageRoot.appendingPathComponent("Scenarios/family-refund.yaml").path
        let clock: @Sendable () -> Instant = { Instant(millisecondsSince1970: 1_796_083_200_999) }
        let now = Simctl.main(["run", file, "--start", "now", "--format", "jsonl"], clock: clock)
        let fixed = Simctl.main(["run", file, "--start", "2026-12-01T00:00:00Z", "--format", "jsonl"])
        #expect(Instant(millisecondsSince1970: 1_796_083_200_000).description == "2026-12-01T00:00:00Z")
        #expect(now.exitCode == 0 && now == fixed)
        let real = try SimctlProcess.run(["run", "Scenarios/family-refund.yaml", "--start", "now"])
        #expect(real.status == 0, "\(real.stderr)")
        let header = real.stdout.split(separator: "\n")[1]
        #expect(
            header.wholeMatch(of: /start \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ · seed 0 · until .*/) != nil,
            "whole seconds: \(header)")
    }

    @Test func aBadStartIsAUsageError() throws {
        let result = try SimctlProcess.run(["run", "Scenarios/family-refund.yaml", "--start", "tomorrow"])
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix(
                "error: option '--start' needs `now` or an ISO 8601 UTC instant such as 2026-12-01T00:00:00Z, found 'tomorrow'"
            ))
    }

    /// Issue 10's range of dates holds for `--start` too (a start in 1969 or after 9999 is a usage error, exit 64).
    @Test(arguments: ["1969-12-31T23:59:59Z", "0000-01-01T00:00:00Z"])
    func aStartOutsideTheSupportedRangeIsAUsageError(start: String) throws {
        let result = try SimctlProcess.run(["run", "Scenarios/family-refund.yaml", "--start", start])
        #expect(result.status == 64 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: option '--start' (\(start)) is outside the supported range"))
    }

    // MARK: - --out, --force and the fixture folder

    @Test func forceReplacesAnExistingFolderWithTheCompleteNewOne() throws {
        let parent = try temporaryFolder()
        let target = parent.appendingPathComponent("fx")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data("old".utf8).write(to: target.appendingPathComponent("stale.json"))
        let refused = try SimctlProcess.run(["run", "Scenarios/family-refund.yaml", "--out", target.path])
        #expect(refused.status == 73 && refused.stderr.contains("pass --force to replace it"))
        let result = try SimctlProcess.run(["run", "Scenarios/family-refund.yaml", "--out", target.path, "--force"])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: target.path).sorted()
        #expect(files == (1...6).map { "000\($0).json" } + ["manifest.json", "timeline.svg"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["fx"], "no old or partial folder")
    }

    @Test func forceNeverReplacesAFile() throws {
        let parent = try temporaryFolder()
        let target = parent.appendingPathComponent("fx")
        try Data("mine".utf8).write(to: target)
        let result = try SimctlProcess.run(["run", "Scenarios/family-refund.yaml", "--out", target.path, "--force"])
        #expect(result.status == 73 && result.stderr.contains("it is not a folder"))
        #expect(try String(contentsOf: target, encoding: .utf8) == "mine")
    }

    /// The replacement is one step: at no time is there neither folder, and the old one is gone afterwards.
    @Test func replacingSwapsTheFoldersAndRemovesTheOldOne() throws {
        let parent = try temporaryFolder()
        let staging = parent.appendingPathComponent(".fx.partial-1")
        let target = parent.appendingPathComponent("fx")
        for folder in [staging, target] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        }
        try Data("new".utf8).write(to: staging.appendingPathComponent("0001.json"))
        try Data("old".utf8).write(to: target.appendingPathComponent("0001.json"))
        try FixtureWriter.replaceInPlace(
            staging.path, target.path, aside: parent.appendingPathComponent(".fx.old-1").path)
        #expect(try String(contentsOf: target.appendingPathComponent("0001.json"), encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["fx"])
    }

    /// docs/fixtures.md said an empty folder is never overwritten, but rename(2) replaces an empty folder that
    /// appears while the files are written. The last step now refuses it too.
    @Test func theFinishedFolderNeverReplacesAnEmptyFolderThatAppearedMeanwhile() throws {
        let parent = try temporaryFolder()
        let staging = parent.appendingPathComponent(".fx.partial-1")
        let target = parent.appendingPathComponent("fx")
        for folder in [staging, target] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        }
        try Data("mine".utf8).write(to: staging.appendingPathComponent("0001.json"))
        #expect(throws: FixtureWriter.WriteError.self) { try FixtureWriter.moveIntoPlace(staging.path, target.path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty, "the empty folder is kept")
    }

    /// A SIGKILL during a write leaves `.NAME.partial-PID`; the next run into the same parent removes those whose
    /// process is gone and keeps those of a live process.
    @Test func abandonedPartialFoldersOfDeadProcessesAreRemovedAtTheNextRun() throws {
        let parent = try temporaryFolder()
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/sh")
        gone.arguments = ["-c", "exit 0"]
        try gone.run()
        gone.waitUntilExit()
        let dead = parent.appendingPathComponent(".other.partial-\(gone.processIdentifier)")
        let deadOld = parent.appendingPathComponent(".other.old-\(gone.processIdentifier)")
        let live = parent.appendingPathComponent(".other.partial-\(ProcessInfo.processInfo.processIdentifier)")
        let unrelated = parent.appendingPathComponent(".partial-notes")
        for folder in [dead, deadOld, live, unrelated] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try Data("x".utf8).write(to: folder.appendingPathComponent("0001.json"))
        }
        let result = try SimctlProcess.run([
            "run", "Scenarios/family-refund.yaml", "--out", parent.appendingPathComponent("fx").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted()
        #expect(
            left == [live.lastPathComponent, unrelated.lastPathComponent, "fx", "other"].sorted(),
            "the dead partial folder is removed; the dead old folder, with no `other` in place, is put back")
    }

    /// A replacement killed between its two renames (where RENAME_EXCHANGE is unavailable) leaves the old folder
    /// aside and nothing under the name; the next run puts the old folder back instead of deleting it.
    @Test func anOldFolderLeftAsideByAKilledReplacementIsPutBack() throws {
        let parent = try temporaryFolder()
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/sh")
        gone.arguments = ["-c", "exit 0"]
        try gone.run()
        gone.waitUntilExit()
        let aside = parent.appendingPathComponent(".fx.old-\(gone.processIdentifier)")
        try FileManager.default.createDirectory(at: aside, withIntermediateDirectories: false)
        try Data("old".utf8).write(to: aside.appendingPathComponent("0001.json"))
        let handled = FixtureWriter.removeAbandonedFolders(in: parent.path)
        #expect(handled == [aside.lastPathComponent])
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["fx"])
        let restored = parent.appendingPathComponent("fx/0001.json")
        #expect(try String(contentsOf: restored, encoding: .utf8) == "old")
    }

    /// docs/fixtures.md's first command, run exactly as written in a copy of the repository's layout (the `fixtures`
    /// folder does not exist beforehand).
    @Test func theFixturesGuideExampleRunsAsWritten() throws {
        let guide = try String(
            contentsOf: SimctlProcess.packageRoot.appendingPathComponent("docs/fixtures.md"), encoding: .utf8)
        let command = guide.components(separatedBy: "```sh\n")[1].components(separatedBy: "\n")[0]
        #expect(command == "simctl run Scenarios/family-refund.yaml --out fixtures/family-refund")
        let folder = try temporaryFolder()
        try FileManager.default.copyItem(
            at: SimctlProcess.packageRoot.appendingPathComponent("Scenarios"),
            to: folder.appendingPathComponent("Scenarios"))
        let result = try SimctlProcess.run(
            Array(command.split(separator: " ").dropFirst().map(String.init)), in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("fixtures/family-refund").path
        ).sorted()
        #expect(written.first == "0001.json" && written.suffix(2) == ["manifest.json", "timeline.svg"])
    }

    @Test func readmeSaysHowToGetASimctlBinary() throws {
        let readme = try String(
            contentsOf: SimctlProcess.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("swift build -c release"))
        #expect(readme.contains(".build/release/simctl"))
    }
}
