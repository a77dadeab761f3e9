import Foundation
import Testing

@testable import SimctlCommand
@testable import SubscriptionSimulator

/// `simctl population`: options, output formats, what-ifs, pictures and errors.
@Suite struct PopulationCommandTests {
    @Test func optionsReachTheConfiguration() throws {
        let options = try PopulationCommand.parse([
            "--subscribers", "1_000", "--months=6", "--days", "200", "--churn", "0.1", "--billing-failure", "0.2",
            "--grace", "off", "--seed", "9", "--price", "4.99", "--json",
        ])
        #expect(
            options.configuration
                == CohortConfiguration(
                    subscribers: 1_000, months: 6, days: 200, churn: 0.1, billingFailure: 0.2, grace: 0, seed: 9,
                    price: 4.99))
        #expect(options.json)
        let compare = try PopulationCommand.parse(["--compare-grace", "off,3,16,28"])
        #expect(compare.compareGrace == [0, 3, 16, 28])
        #expect(try PopulationCommand.parse(["--jobs", "3"]).jobs == 3)
        #expect(try PopulationCommand.parse([]).jobs == ProcessInfo.processInfo.activeProcessorCount)
    }

    /// `--jobs N` splits the subscribers into N parts run at once; every output but the timings is the same for any N,
    /// in both formats and for the what-ifs.
    @Test func theOutputsDoNotDependOnJobs() {
        func withoutTimings(_ text: String) -> String {
            text.split(separator: "\n").filter {
                !$0.contains("wall_s") && !$0.contains("run_s") && !$0.contains("per_s")
            }
            .joined(separator: "\n")
        }
        for arguments in [
            ["--subscribers", "3000", "--json"], ["--subscribers", "2500", "--commitment-share", "0.2"],
            ["--subscribers", "1000", "--compare-grace", "off,16"], ["--subscribers", "800", "--retention", "0.9"],
        ] {
            let one = Simctl.main(["population", "--jobs", "1"] + arguments)
            #expect(one.exitCode == 0 && !one.stdout.isEmpty)
            for jobs in ["2", "5"] {
                let many = Simctl.main(["population", "--jobs", jobs] + arguments)
                #expect(many.exitCode == 0)
                #expect(withoutTimings(many.stdout) == withoutTimings(one.stdout), "\(arguments) --jobs \(jobs)")
            }
        }
    }

    static let invalid: [([String], String)] = [
        (["--grace", "7"], "grace must be off (or 0), 3, 16 or 28 days (R5), found '7'"),
        (["--subscribers", "0"], "option '--subscribers' needs a whole number from 1 to 100000000, found '0'"),
        (["--churn"], "option '--churn' needs a value"),
        (["--chrun", "0.1"], "unknown option '--chrun'; did you mean '--churn'?"),
        (["--format", "csv"], "unknown format 'csv'; expected one of table, json"),
        (["--seed", "1", "--seed", "2"], "option '--seed' is given twice"),
        (["--json", "--format", "table"], "option '--format' is given twice"),
        (
            ["--retention", "1.2"],
            "--retention needs monthly rates above 0 and at most 1 such as 0.85,0.95, found '1.2'"
        ),
        (["--compare-grace", "off,5"], "grace must be off (or 0), 3, 16 or 28 days (R5), found '5'"),
        (["scenario.yaml"], "'population' takes no file; found 'scenario.yaml'"),
        (["--jobs", "0"], "option '--jobs' needs a whole number from 1 to 1024, found '0'"),
    ]

    @Test(arguments: invalid)
    func badUsageIsAnErrorThatSaysWhatWasExpected(arguments: [String], message: String) {
        let output = Simctl.main(["population"] + arguments)
        #expect(output.exitCode == ExitCode.usage)
        #expect(output.stderr.hasPrefix("error: \(message)\n"), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test func aConfigurationOutsideTheModelNamesTheRule() {
        let output = Simctl.main(["population", "--months", "13", "--days", "365"])
        #expect(output.exitCode == ExitCode.usage)
        #expect(output.stderr.contains("(R1.4)"), "\(output.stderr)")
    }

    @Test func helpIsReachableBothWays() {
        let direct = Simctl.main(["population", "--help"])
        let viaHelp = Simctl.main(["help", "population"])
        #expect(direct.exitCode == 0 && direct.stdout.hasPrefix("USAGE: simctl population"))
        #expect(viaHelp == direct)
        #expect(Simctl.main(["--help"]).stdout.contains("population"))
    }

    @Test func jsonOutputIsTheRunWithTimings() throws {
        let output = Simctl.main(["population", "--subscribers", "800", "--seed", "4", "--format", "json"])
        #expect(output.exitCode == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let expected = try CohortSimulation.run(CohortConfiguration(subscribers: 800, seed: 4))
        #expect(object["paying_month_end"] as? [Int] == expected.payingMonthEnd)
        #expect(object["events"] as? Int == expected.events)
        #expect((object["wall_s"] as? Double ?? -1) >= 0 && (object["run_s"] as? Double ?? -1) >= 0)
    }

    @Test func tableOutputNamesEveryOutput() {
        let output = Simctl.main(["population", "--subscribers", "500"])
        for name in [
            "paying_month_end", "entitled_people_end", "in_retry_end", "closed_failures.expired",
            "paid_subscriber_days", "events_per_s",
        ] {
            #expect(output.stdout.contains(name), "\(name)")
        }
    }

    @Test func graceComparisonRunsOncePerLengthWithTheSameSeed() throws {
        let output = Simctl.main(["population", "--subscribers", "600", "--compare-grace", "off,16", "--json"])
        #expect(output.exitCode == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let runs = try #require(object["compare_grace"] as? [[String: Any]])
        #expect(runs.count == 2)
        for (run, grace) in zip(runs, [0, 16]) {
            let expected = try CohortSimulation.run(CohortConfiguration(subscribers: 600, grace: grace))
            #expect(run["recovered_in_grace"] as? Int == expected.recoveredInGrace)
            #expect(run["proceeds_year_one"] as? Double == (expected.proceedsYearOne * 100).rounded() / 100)
        }
        let text = Simctl.main(["population", "--subscribers", "600", "--compare-grace", "off,16"]).stdout
        #expect(text.contains("grace off") && text.contains("grace 16 d") && text.contains("proceeds at 70%, year one"))
    }

    /// A grace comparison and a retention table with `--commitment-share` name the share in their headers (and the
    /// retention JSON carries it), as a single run does; without it their output is cohort-v1's as before.
    @Test func theCommitmentShareIsNamedInEveryReport() throws {
        let share = ["--subscribers", "300", "--commitment-share", "0.4"]
        let comparison = Simctl.main(["population"] + share + ["--compare-grace", "off,16"])
        #expect(comparison.exitCode == 0)
        #expect(comparison.stdout.split(separator: "\n").first?.hasSuffix(", commitment share 0.4") == true)
        let retention = Simctl.main(["population"] + share + ["--retention", "0.9"])
        #expect(retention.exitCode == 0)
        #expect(retention.stdout.split(separator: "\n").first?.hasSuffix("seed 1, commitment share 0.4") == true)
        #expect(retention.stdout.contains("commitment subscribers churn only at the commitment's end"))
        let json = Simctl.main(["population"] + share + ["--retention", "0.9", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["commitment_share"] as? Double == 0.4)
        let plain = Simctl.main(["population", "--subscribers", "300", "--retention", "0.9", "--json"]).stdout
        #expect(!plain.contains("commitment"))
        let plainComparison = Simctl.main(["population", "--subscribers", "300", "--compare-grace", "off,16"]).stdout
        #expect(!plainComparison.contains("commitment"))
    }

    /// The retention talk (seed 004): 10,000 subscribers at 85%, 90% and 95% end month 12 with 1,673, 3,138 (not the
    /// talk's 3,487, which is one month short) and 5,688 expected.
    @Test func retentionTableReproducesTheTalk() {
        let output = Simctl.main(["population", "--retention", "0.85,0.90,0.95", "--subscribers", "10000"])
        #expect(output.exitCode == 0)
        let month12 = output.stdout.split(separator: "\n").first { $0.hasPrefix("month 12 ") }
        let cells = month12?.split(separator: " ", omittingEmptySubsequences: true).map(String.init) ?? []
        #expect(cells.count == 8)
        if cells.count == 8 { #expect([cells[2], cells[4], cells[6]] == ["1,673", "3,138", "5,688"]) }
    }

    @Test func svgFilesAreWrittenIntoTheFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "simctl-population-\(ProcessInfo.processInfo.processIdentifier)-svg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = Simctl.main([
            "population", "--subscribers", "500", "--compare-grace", "off,28", "--svg", folder.path,
        ])
        #expect(output.exitCode == 0, "\(output.stderr)")
        for name in [PopulationCharts.payingFile, PopulationCharts.recoveriesFile] {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(text.hasPrefix("<?xml") && text.hasSuffix("</svg>\n"))
        }
        let blocked = Simctl.main(["population", "--subscribers", "10", "--svg", "/dev/null/x"])
        #expect(blocked.exitCode == ExitCode.cannotCreate)
    }
}

extension PopulationCommandTests {
    /// The rows of the retention table quoted in docs/population.md are the command's real output.
    @Test func theRetentionRowsInTheDocsAreTheRealOutput() throws {
        let doc = try String(
            contentsOf: SimctlProcess.packageRoot.appendingPathComponent("docs/population.md"), encoding: .utf8)
        let block = try #require(
            doc.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```").first)
        let output = Simctl.main(["population", "--retention", "0.85,0.90,0.95", "--subscribers", "10000"]).stdout
        let lines = block.split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines { #expect(output.contains(line + "\n"), "not in the output: \(line)") }
    }
}
