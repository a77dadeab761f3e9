import Foundation
import Testing
@testable import SubscriptionSimulator

/// Every file in Scenarios/ runs, all its expectations hold, and its output matches the golden streams.
@Suite struct ScenarioFilesTests {
    static let files = PackagePaths.yamlFiles(in: PackagePaths.scenarios)

    static func decoder(_ name: String) -> ScenarioDecoder {
        ScenarioDecoder(file: "Scenarios/\(name)", baseDirectory: PackagePaths.scenarios.path)
    }

    @Test func thereAreAtLeastFifteenScenarios() {
        #expect(Self.files.count >= 15)
    }

    @Test(arguments: files.map(\.lastPathComponent))
    func scenarioRunsAndMatchesItsGoldenStreams(name: String) throws {
        let url = PackagePaths.scenarios.appendingPathComponent(name)
        let scenario = try Self.decoder(name).decode(try PackagePaths.read(url))
        let run = try ScenarioRunner.run(scenario)
        #expect(
            run.failures.isEmpty, "seed \(scenario.seed): \(run.failures.map(\.description).joined(separator: "\n"))")
        let base = "Scenarios/" + name.replacingOccurrences(of: ".yaml", with: "")
        if let problem = checkGolden(RunOutput.jsonl(run), base + ".jsonl") { Issue.record("\(problem)") }
        if let problem = checkGolden(RunOutput.decoded(run), base + ".decoded.jsonl") { Issue.record("\(problem)") }
        if let problem = checkGolden(RunOutput.timeline(run), base + ".timeline.txt") { Issue.record("\(problem)") }
    }

    @Test(arguments: files.map(\.lastPathComponent))
    func everyCustomerHasAnExactlyExpectation(name: String) throws {
        let url = PackagePaths.scenarios.appendingPathComponent(name)
        let scenario = try Self.decoder(name).decode(try PackagePaths.read(url))
        let covered = Set(
            scenario.expectations.compactMap { expectation -> String? in
                if case .notifications(let customer?, .exactly, _, _) = expectation { return customer }
                return nil
            })
        #expect(
            covered == Set(scenario.customers),
            "customers without an `exactly` expectation: \(Set(scenario.customers).subtracting(covered).sorted())")
    }

    @Test(arguments: files.map(\.lastPathComponent))
    func sameScenarioAndSeedGiveIdenticalBytes(name: String) throws {
        let text = try PackagePaths.read(PackagePaths.scenarios.appendingPathComponent(name))
        let first = try ScenarioRunner.run(try Self.decoder(name).decode(text))
        let second = try ScenarioRunner.run(try Self.decoder(name).decode(text))
        #expect(RunOutput.jsonl(first) == RunOutput.jsonl(second))
        let reseeded = try ScenarioRunner.run(
            try Self.decoder(name).decode(text, overrides: ScenarioOverrides(seed: 99)))
        #expect(RunOutput.jsonl(first) != RunOutput.jsonl(reseeded), "a different seed gives different ids")
    }
}
