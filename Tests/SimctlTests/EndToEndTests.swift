import Foundation
import Testing
@testable import SubscriptionSimulator

/// Runs the built `simctl` binary as a user would.
@Suite(.serialized) struct EndToEndTests {
    let scenario = "Scenarios/family-stop-sharing.yaml"

    /// The test scenario with one expectation moved a day late, saved in `folder` as `changed.yaml`.
    func scenarioWithAWrongExpectation(in folder: URL) throws -> URL {
        let text = try String(contentsOf: SimctlProcess.packageRoot.appendingPathComponent(scenario), encoding: .utf8)
            .replacingOccurrences(of: "- { at: 40d, type: REVOKE }", with: "- { at: 41d, type: REVOKE }")
        let file = folder.appendingPathComponent("changed.yaml")
        try Data(text.utf8).write(to: file)
        return file
    }

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-e2e-\(UUIDText.next())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func versionAndHelp() throws {
        let version = try SimctlProcess.run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("simctl ") && version.stderr.isEmpty)
        let help = try SimctlProcess.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("COMMANDS:") && help.stdout.contains("EXIT CODES:"))
        let runHelp = try SimctlProcess.run(["help", "run"])
        #expect(runHelp.status == 0 && runHelp.stdout.contains("--format jsonl"))
    }

    @Test func usageErrorExits64WithNothingOnStandardOutput() throws {
        let result = try SimctlProcess.run(["run", scenario, "--format", "xml"])
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: unknown format 'xml'; expected one of timeline, jsonl, decoded"))
    }

    @Test func timelineIsTheDefaultAndReportsExpectations() throws {
        let result = try SimctlProcess.run(["run", scenario])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("SUBSCRIBED INITIAL_BUY") && result.stdout.contains("REVOKE"))
        #expect(result.stdout.hasSuffix("expectations: 6 checked, all hold\n"))
    }

    @Test func jsonlIsOnePostBodyPerLineAndByteIdenticalAcrossRuns() throws {
        let first = try SimctlProcess.run(["run", scenario, "--format", "jsonl"])
        let second = try SimctlProcess.run(["run", scenario, "--format", "jsonl"])
        #expect(first.status == 0 && first.stdout == second.stdout)
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.count == 10)
        #expect(lines.allSatisfy { $0.hasPrefix("{\"signedPayload\":\"") && $0.hasSuffix("\"}") })
        let reseeded = try SimctlProcess.run(["run", scenario, "--format", "jsonl", "--seed", "8"])
        #expect(reseeded.stdout != first.stdout)
    }

    @Test func decodedShowsRecipientInstantAndPayload() throws {
        let result = try SimctlProcess.run(["run", scenario, "--format", "decoded"])
        #expect(result.status == 0)
        let first =
            try JSONSerialization.jsonObject(with: Data(result.stdout.split(separator: "\n")[0].utf8)) as? [String: Any]
        #expect(first?["recipient"] as? String == "alice")
        #expect(first?["at"] as? String == "2026-03-01T09:00:00Z")
        let payload = first?["payload"] as? [String: Any]
        #expect(payload?["notificationType"] as? String == "SUBSCRIBED")
        #expect(
            ((payload?["data"] as? [String: Any])?["signedTransactionInfo"] as? [String: Any])?["productId"] as? String
                == "com.example.nightsky.family.monthly")
    }

    @Test func untilOverrideExtendsTheRun() throws {
        let result = try SimctlProcess.run(["run", scenario, "--format", "jsonl", "--until", "P4M"])
        #expect(result.stdout.split(separator: "\n").count == 11, "one more renewal for alice")
        #expect(result.status == 1, "alice's `exactly` expectation now sees the extra renewal")
    }

    @Test func untilBeforeTheLastTimelineEntryIsRefused() throws {
        let result = try SimctlProcess.run(["run", scenario, "--until", "2h"])
        #expect(result.status == 65 && result.stdout.isEmpty)
        #expect(
            result.stderr.contains(
                "`until` (2026-03-01T11:00:00Z) is before the last timeline entry (2026-04-10T09:00:00Z)"))
    }

    @Test func outWritesANumberedFixtureFolderWithAManifest() throws {
        let folder = try temporaryFolder().appendingPathComponent("fixtures")
        let result = try SimctlProcess.run(["run", scenario, "--out", folder.path, "--format", "jsonl"])
        #expect(result.status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(
            files.first == "0001.json" && files.contains("0010.json") && files.contains("manifest.json")
                && files.last == "timeline.svg" && files.count == 12)
        let firstBody = try String(contentsOf: folder.appendingPathComponent("0001.json"), encoding: .utf8)
        #expect(firstBody == String(result.stdout.split(separator: "\n")[0]) + "\n")
        let manifest = try String(contentsOf: folder.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(manifest.contains("\"notificationType\": \"REVOKE\"") && manifest.contains("\"recipient\": \"bob\""))
        // The picture beside the fixtures is the svg format's.
        let picture = try String(contentsOf: folder.appendingPathComponent("timeline.svg"), encoding: .utf8)
        let svg = try SimctlProcess.run(["run", scenario, "--format", "svg"])
        #expect(svg.status == 0 && svg.stdout.hasPrefix("<?xml") && picture == svg.stdout)
    }

    @Test func outRefusesAnExistingFolderAndLeavesNothingBehind() throws {
        let parent = try temporaryFolder()
        let existing = parent.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: existing.appendingPathComponent("note.txt"))
        let result = try SimctlProcess.run(["run", scenario, "--out", existing.path])
        #expect(result.status == 73 && result.stdout.isEmpty)
        #expect(result.stderr.contains("it already exists"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: existing.path) == ["note.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["taken"], "no partial folder")
        let fileAsParent = existing.appendingPathComponent("note.txt/fixtures")
        let second = try SimctlProcess.run(["run", scenario, "--out", fileAsParent.path])
        #expect(second.status == 73 && second.stderr.contains("is not a folder"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["taken"], "no partial folder")
    }

    @Test func outRefusesAnExistingEmptyFolderToo() throws {
        let parent = try temporaryFolder()
        let empty = parent.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        let result = try SimctlProcess.run(["run", scenario, "--out", empty.path])
        #expect(result.status == 73 && result.stderr.contains("it already exists"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["empty"], "no partial folder")
    }

    /// The last step of a fixture write never replaces a folder with something in it, even one that appeared while
    /// the files were being written (another run writing to the same place, say).
    @Test func theFinishedFolderNeverReplacesOneThatAppearedMeanwhile() throws {
        let parent = try temporaryFolder()
        let staging = parent.appendingPathComponent(".fx.partial-1")
        let target = parent.appendingPathComponent("fx")
        for folder in [staging, target] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        }
        try Data("mine".utf8).write(to: staging.appendingPathComponent("0001.json"))
        try Data("theirs".utf8).write(to: target.appendingPathComponent("0001.json"))
        #expect(throws: FixtureWriter.WriteError.self) { try FixtureWriter.moveIntoPlace(staging.path, target.path) }
        let kept = try String(contentsOf: target.appendingPathComponent("0001.json"), encoding: .utf8)
        #expect(kept == "theirs")
    }

    @Test func aRunWhoseExpectationsFailWritesNoFixtureFolder() throws {
        let folder = try temporaryFolder()
        let file = try scenarioWithAWrongExpectation(in: folder)
        let out = folder.appendingPathComponent("fx")
        let result = try SimctlProcess.run(["run", file.path, "--out", out.path])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("no fixture folder written to '\(out.path)': the scenario's expectations failed"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["changed.yaml"])
    }

    @Test func invalidScenarioExits65WithFileLineAndColumn() throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("bad.yaml")
        try Data(
            "name: x\nstart: 2026-03-01T09:00:00Z\napp: { bundleId: b }\nproducts: []\ntimeline:\n  - at: 0\n    purchse: { customer: a, product: p }\n"
                .utf8
        ).write(to: file)
        let result = try SimctlProcess.run(["run", file.path, "--out", folder.appendingPathComponent("fx").path])
        #expect(result.status == 65)
        #expect(
            result.stderr.hasPrefix(
                "\(file.path):7:5: error: unknown key 'purchse' in a timeline entry; did you mean 'purchase'?"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("fx").path))
    }

    @Test func failedExpectationExits1AndSaysWhatHappened() throws {
        let folder = try temporaryFolder()
        let file = try scenarioWithAWrongExpectation(in: folder)
        let result = try SimctlProcess.run(["run", file.path, "--format", "jsonl"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "expectation failed: carol's notification #3: expected REVOKE at 2026-04-11T09:00:00Z, found REVOKE at 2026-04-10T09:00:00Z"
            ))
        #expect(result.stdout.split(separator: "\n").count == 10, "jsonl output is still complete")
    }

    @Test func missingFileExits66() throws {
        let result = try SimctlProcess.run(["validate", "no/such/file.yaml"])
        #expect(
            result.status == 66
                && result.stderr == "no/such/file.yaml:1:1: error: cannot read the file: no such file or directory\n")
    }

    @Test func validateAndCatalog() throws {
        let validate = try SimctlProcess.run(["validate", scenario])
        #expect(
            validate.status == 0
                && validate.stdout.contains("valid: 1 products, 3 customers, 2 timeline entries, 6 expectations"))
        let catalog = try SimctlProcess.run(["catalog", "Scenarios/StoreKit/NightSky.storekit"])
        #expect(catalog.status == 0)
        #expect(
            catalog.stdout.contains(
                "com.example.nightsky.family.monthly  autoRenewable  5C1A7E10/1   P1M     4.99   GBP       yes     free trial P1W"
            ))
        #expect(catalog.stdout.contains("_timeRate = 0") && catalog.stdout.contains("billing grace period: on"))
    }

    /// `simctl catalog` shows a product's monthly plan with a 12-month commitment and the plan each offer is for.
    @Test func catalogShowsTheMonthlyPlanAndEachOffersPlan() throws {
        let catalog = try SimctlProcess.run(["catalog", "Scenarios/commitment-offers-per-plan.yaml"])
        #expect(catalog.status == 0)
        #expect(catalog.stdout.contains("free trial P1W (monthly plan)\n"))
        #expect(
            catalog.stdout.contains(
                "plan com.example.nightsky.plus.annual monthly: 10.99 GBP × 12 (12-month commitment, 131.88)\n"))
        #expect(catalog.stdout.contains("plus.monthly.promo: promotional, 5.49 × 2 × P1M (monthly plan)\n"))
        #expect(catalog.stdout.contains("plus.annual.code: offerCode, 79.99 for P1Y (up-front plan)\n"))
        // Rule intro-offer-per-plan: both plans' introductory offers, each with its plan.
        let perPlan = try SimctlProcess.run(["catalog", "Scenarios/commitment-intro-offer-per-plan.yaml"])
        #expect(perPlan.status == 0)
        #expect(perPlan.stdout.contains("free trial P1W (up-front plan); 5.49 × 3 × P1M (monthly plan)\n"))
    }
}

/// Unique folder names for tests (tests may use UUID(); the product code never does).
enum UUIDText {
    static func next() -> String { "\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)" }
}
