import Foundation
import SubscriptionSimulator

/// `simctl population`: the cohort model (cohort-v1) with its what-ifs and pictures. Its options are parsed here,
/// apart from the scenario commands'.
package enum PopulationCommand {
    package struct Options: Equatable, Sendable {
        var configuration = CohortConfiguration()
        var json = false
        var compareGrace: [Int]?
        var retention: [Double]?
        var svgDirectory: String?
        /// Parts simulated at once (`--jobs`): the machine's cores unless given.
        var jobs = ProcessInfo.processInfo.activeProcessorCount
    }

    /// `progress`: a line on standard error updated as each run goes (``ProgressLine``), when it is a terminal.
    package static func main(_ arguments: [String], progress: ProgressLine? = nil) -> CommandOutput {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return Simctl.main(["help", "population"]) }
        do throws(UsageError) { return run(try parse(arguments), progress: progress) } catch {
            return Simctl.usageFailure(error)
        }
    }

    static func run(_ options: Options, progress: ProgressLine? = nil) -> CommandOutput {
        do throws(CohortError) {
            try options.configuration.validate()
            if let rates = options.retention { return try retention(rates, options) }
            var runs: [(CohortOutputs, CohortTimings)] = []
            for grace in options.compareGrace ?? [options.configuration.grace] {
                var configuration = options.configuration
                configuration.grace = grace
                runs.append(try timedRun(configuration, jobs: options.jobs, progress: progress))
            }
            var stdout: String
            if options.compareGrace != nil {
                stdout =
                    options.json
                    ? CohortReport.comparisonJSON(runs.map(\.0)) : CohortReport.comparisonText(runs.map(\.0))
            } else {
                stdout =
                    options.json
                    ? CohortReport.json(runs[0].0, timings: runs[0].1) + "\n"
                    : CohortReport.text(runs[0].0, timings: runs[0].1)
            }
            if let directory = options.svgDirectory {
                switch writeSVG(PopulationCharts.files(runs.map(\.0)), to: directory) {
                case .failure(let output): return output
                case .success(let note): if !options.json { stdout += note }
                }
            }
            return CommandOutput(stdout: stdout, stderr: "", exitCode: ExitCode.success)
        } catch {
            return CommandOutput(stdout: "", stderr: "error: \(error.message)\n", exitCode: ExitCode.usage)
        }
    }

    /// R7.7: wall_s from creating the simulation (and its subscribers) to the end of the run; run_s the loop alone.
    /// With `jobs` above 1 the parts are created at once, then run at once; run_s starts when all are created.
    static func timedRun(_ configuration: CohortConfiguration, jobs: Int = 1, progress: ProgressLine? = nil)
        throws(CohortError) -> (CohortOutputs, CohortTimings)
    {
        let clock = ContinuousClock()
        let start = clock.now
        var loopStart = start
        let parts = PartsProgress(line: progress, subscribers: configuration.subscribers, jobs: jobs)
        let report: (@Sendable (Int, Int64, Int) -> Void)? =
            progress == nil ? nil : { @Sendable part, reached, events in parts.report(part, reached, events) }
        let outputs = try CohortSimulation.run(
            configuration, jobs: jobs, created: { loopStart = clock.now }, progress: report)
        progress?.clear()
        let end = clock.now
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        return (outputs, CohortTimings(wallSeconds: seconds(end - start), runSeconds: seconds(end - loopStart)))
    }

    /// The retention talk's table (seed 004): N x r^(m-1) at the end of month m, beside a simulated run per rate.
    static func retention(_ rates: [Double], _ options: Options) throws(CohortError) -> CommandOutput {
        var runs: [CohortOutputs] = []
        for rate in rates {
            var configuration = options.configuration
            configuration.churn = 1 - rate
            configuration.billingFailure = 0
            runs.append(try CohortSimulation.run(configuration, jobs: options.jobs))
        }
        let n = Double(options.configuration.subscribers)
        let months = options.configuration.months
        func expected(_ rate: Double, _ month: Int) -> Double {
            var value = n
            for _ in 1..<month { value *= rate }
            return value
        }
        if options.json {
            let items = zip(rates, runs).map { rate, run in
                "    {\"retention\": \(rate), \"churn\": \(run.configuration.churn), \"expected_paying_month_end\": ["
                    + (1...months).map { CohortReport.fixed(expected(rate, $0), places: 1) }.joined(separator: ", ")
                    + "], \"paying_month_end\": ["
                    + run.payingMonthEnd.map(String.init).joined(separator: ", ") + "]}"
            }
            // The share only when used, as in a run's configuration (docs/population.md, "Commitment plans").
            let share = options.configuration.commitmentShare
            let text =
                "{\n  \"model\": \"\(CohortModel.version)\",\n  \"subscribers\": \(options.configuration.subscribers),"
                + "\n  \"seed\": \(options.configuration.seed),"
                + (share > 0 ? "\n  \"commitment_share\": \(CohortReport.number(share))," : "")
                + "\n  \"retention\": [\n"
                + items.joined(separator: ",\n") + "\n  ]\n}\n"
            return CommandOutput(stdout: text, stderr: "", exitCode: ExitCode.success)
        }
        var header = ["paying at month end"]
        for rate in rates {
            let percent = CohortReport.fixed(rate * 100, places: rate * 100 == (rate * 100).rounded() ? 0 : 1)
            header += ["\(percent)% expected", "\(percent)% simulated"]
        }
        var rows = [header]
        for month in 1...months {
            var row = ["month \(month)"]
            for (rate, run) in zip(rates, runs) {
                row += [
                    CohortReport.grouped(Int(expected(rate, month).rounded())),
                    CohortReport.grouped(run.payingMonthEnd[month - 1]),
                ]
            }
            rows.append(row)
        }
        let text =
            "monthly retention (cohort model \(CohortModel.version), churn = 1 - rate, no billing failures): "
            + "\(CohortReport.grouped(options.configuration.subscribers)) subscribers, seed "
            + "\(options.configuration.seed)" + CohortReport.commitmentShareNote(options.configuration)
            + "\nexpected = N x rate^(month - 1): month 1 is the month everyone paid for"
            + (options.configuration.commitmentShare > 0
                ? "; commitment subscribers churn only at the commitment's end, so the simulated column keeps more"
                : "") + "\n\n"
            + CohortReport.table(rows)
        return CommandOutput(stdout: text, stderr: "", exitCode: ExitCode.success)
    }

    static func writeSVG(_ files: [(name: String, contents: String)], to directory: String) -> Result<
        String, CommandOutput
    > {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for file in files {
                try Data(file.contents.utf8).write(
                    to: URL(fileURLWithPath: directory).appendingPathComponent(file.name), options: .atomic)
            }
        } catch {
            return .failure(
                CommandOutput(
                    stdout: "", stderr: "error: cannot write the pictures into '\(directory)': \(error)\n",
                    exitCode: ExitCode.cannotCreate))
        }
        return .success("\nwrote " + files.map { "\(directory)/\($0.name)" }.joined(separator: " and ") + "\n")
    }

    /// What the command line gave (`--json` and `--format` count as one option).
    struct ParseState: Sendable {
        var options = Options()
        var formatGiven = false
    }

    static func integer(_ name: String, _ text: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        let digits = String(text.unicodeScalars.filter { $0 != "_" && $0 != "," })
        guard let number = Int(digits), range.contains(number) else {
            throw UsageError(
                message: "option '\(name)' needs a whole number from \(range.lowerBound) to "
                    + "\(range.upperBound), found '\(text)'",
                topic: "population")
        }
        return number
    }

    static func real(_ name: String, _ text: String, _ what: String) throws(UsageError) -> Double {
        guard let number = Double(text), number.isFinite else {
            throw UsageError(message: "option '\(name)' needs \(what), found '\(text)'", topic: "population")
        }
        return number
    }

    static func grace(_ word: String) throws(UsageError) -> Int {
        if word == "off" { return 0 }
        guard let days = Int(word), CohortModel.graceLengths.contains(days) else {
            throw UsageError(
                message: "grace must be off (or 0), 3, 16 or 28 days (R5), found '\(word)'", topic: "population")
        }
        return days
    }

    /// A value option of the configuration.
    static func option(
        _ name: String, _ placeholder: String, _ summary: String,
        _ apply: @escaping @Sendable (inout Options, String) throws(UsageError) -> Void
    ) -> OptionDeclaration<ParseState> {
        option(name, placeholder, .text, summary, apply)
    }

    static func option(
        _ name: String, _ placeholder: String, _ value: OptionValue, _ summary: String,
        _ apply: @escaping @Sendable (inout Options, String) throws(UsageError) -> Void
    ) -> OptionDeclaration<ParseState> {
        .value(name, placeholder, value, summary) { (state: inout ParseState, text: String) throws(UsageError) in
            try apply(&state.options, text)
        }
    }

    static func formatOnce(_ state: inout ParseState, _ name: String) throws(UsageError) {
        if state.formatGiven { throw UsageError(message: "option '\(name)' is given twice", topic: "population") }
        state.formatGiven = true
    }

    static let command = CommandDeclaration<ParseState>(
        name: "population", topic: "population",
        summary: "Run the cohort model of a subscriber population (churn, billing failures, grace)",
        positional: "", positionalValue: .none,
        options: [
            option("--subscribers", "N", "subscribers in the cohort") {
                (options: inout Options, text: String) throws(UsageError) in
                options.configuration.subscribers = try integer(
                    "--subscribers", text, 1...CohortConfiguration.maximumSubscribers)
            }
            .help("purchasers (default 10000)"),
            option("--months", "N", "months simulated") { (options: inout Options, text: String) throws(UsageError) in
                options.configuration.months = try integer("--months", text, 1...1_200)
            }
            .help("month-end snapshots reported (default 12)"),
            option("--days", "N", "days simulated") { (options: inout Options, text: String) throws(UsageError) in
                options.configuration.days = try real("--days", text, "a number of days")
            }
            .help("horizon H in days (default max(365, 30 x M))"),
            option("--churn", "P", "monthly churn probability") {
                (options: inout Options, text: String) throws(UsageError) in
                options.configuration.churn = try real("--churn", text, "a probability from 0 to 1")
            }
            .help("probability of turning auto-renew off, at each renewal (default 0.05)"),
            option("--billing-failure", "P", "billing failure probability") {
                (options: inout Options, text: String) throws(UsageError) in
                options.configuration.billingFailure = try real("--billing-failure", text, "a probability from 0 to 1")
            }
            .help("probability that a renewal charge fails (default 0.05)"),
            option("--grace", "DAYS", .choices(["off", "3", "16", "28"]), "billing grace period") {
                (options: inout Options, text: String) throws(UsageError) in
                options.configuration.grace = try grace(text)
            }
            .help("billing grace period: off (or 0), 3, 16 or 28 days (default 16)"),
            option("--seed", "N", "the seed") { (options: inout Options, text: String) throws(UsageError) in
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seed = UInt64(text) else {
                    throw UsageError(
                        message: "option '--seed' needs a whole number from 0 to \(UInt64.max), found '\(text)'",
                        topic: "population")
                }
                options.configuration.seed = seed
            }
            .help("seed of the run's random source (default 1)"),
            option("--price", "P", "the monthly price") { (options: inout Options, text: String) throws(UsageError) in
                options.configuration.price = try real("--price", text, "a price such as 9.99")
            }
            .help("price of a month, for proceeds at 70% in year one (default 9.99)"),
            option("--commitment-share", "P", "share on the 12-month commitment") {
                (options: inout Options, text: String) throws(UsageError) in
                options.configuration.commitmentShare = try real("--commitment-share", text, "a share from 0 to 1")
            }
            .help(
                "share of subscribers on the monthly plan with a 12-month commitment: they leave only "
                    + "at a commitment's end, get no grace and 90 days of retry (default 0)"),
            .value("--format", "FORMAT", .choices(["table", "json"]), "table (default) or json") {
                (state: inout ParseState, text: String) throws(UsageError) in
                try formatOnce(&state, "--format")
                guard text == "table" || text == "json" else {
                    throw UsageError(
                        message: "unknown format '\(text)'; expected one of table, json", topic: "population")
                }
                state.options.json = text == "json"
            }
            .help("a readable table (default) or JSON with every output under the model's names"),
            .flag("--json", "the same as --format json") { (state: inout ParseState) throws(UsageError) in
                try formatOnce(&state, "--json")
                state.options.json = true
            }
            .help("same as --format json"),
            option("--compare-grace", "LIST", "compare grace lengths") {
                (options: inout Options, text: String) throws(UsageError) in
                var lengths: [Int] = []
                for word in text.split(separator: ",", omittingEmptySubsequences: false) {
                    lengths.append(try grace(String(word).trimmingCharacters(in: .whitespaces)))
                }
                options.compareGrace = lengths
            }
            .help("run once per grace length (e.g. off,3,16,28) with the same seed and compare"),
            option("--retention", "RATES", "monthly retention rates") {
                (options: inout Options, text: String) throws(UsageError) in
                var rates: [Double] = []
                for word in text.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let rate = Double(word.trimmingCharacters(in: .whitespaces)), rate > 0, rate <= 1 else {
                        throw UsageError(
                            message: "--retention needs monthly rates above 0 and at most 1 such as 0.85,0.95, "
                                + "found '\(word)'",
                            topic: "population")
                    }
                    rates.append(rate)
                }
                options.retention = rates
            }
            .help(
                "monthly retention rates (e.g. 0.85,0.90,0.95): the expected paying subscribers N x "
                    + "r^(m-1) beside a run with churn 1 - r and no billing failures"),
            option("--svg", "DIR", .directory, "write the pictures to DIR") {
                (options: inout Options, text: String) throws(UsageError) in
                guard !text.isEmpty else {
                    throw UsageError(message: "option '--svg' needs a folder path", topic: "population")
                }
                options.svgDirectory = text
            }
            .help(
                "also write paying-by-month.svg and recoveries-by-day.svg into DIR (created if "
                    + "needed; files of those names are replaced); with --compare-grace also "
                    + "paying-difference-by-month.svg (each run minus the first)"),
            option("--jobs", "N", "parts simulated at once") {
                (options: inout Options, text: String) throws(UsageError) in
                options.jobs = try integer("--jobs", text, 1...1_024)
            }
            .help(
                "simulate the subscribers in N parts on N threads at once (default: this machine's "
                    + "cores; 1 runs on one thread); the outputs are the same for every N"),
        ],
        argument: { (_: inout ParseState, argument: String) throws(UsageError) in
            throw UsageError(message: "'population' takes no file; found '\(argument)'", topic: "population")
        },
        page: HelpPage(
            about: [
                .paragraph(
                    "Runs the cohort model cohort-v1 (docs/population.md): N monthly subscribers who all buy at day 0, "
                        + "followed for H days with voluntary churn, billing failures, Apple's 60-day billing retry, "
                        + "an optional billing grace period and Family Sharing. State is kept in arrays; events run "
                        + "on the simulator's clock and queue.")
            ],
            notes: [
                .paragraph(
                    "Timings (wall_s, run_s, events_per_s) are measured around the run; every other output depends "
                        + "only on the options and the seed (each subscriber's random draws are its own), never on "
                        + "--jobs.")
            ],
            examples: ["population --subscribers 2000 --compare-grace off,16"]))

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var state = ParseState()
        try OptionParser.parse(arguments, command, into: &state)
        let options = state.options
        if options.retention != nil && options.compareGrace != nil {
            throw UsageError(message: "use --retention or --compare-grace, not both", topic: "population")
        }
        if options.retention != nil && options.svgDirectory != nil {
            throw UsageError(message: "--svg draws a run or a grace comparison, not --retention", topic: "population")
        }
        return options
    }
}

/// The progress of a run's parts on one line: the virtual day the slowest part reached, and the events of all parts.
/// Parts report from their own threads; the line is written under this lock only.
final class PartsProgress: @unchecked Sendable {
    let line: ProgressLine?
    let subscribers: String
    let lock = NSLock()
    var reached: [Int64]
    var events: [Int]

    init(line: ProgressLine?, subscribers: Int, jobs: Int) {
        self.line = line
        self.subscribers = ProgressLine.grouped(subscribers)
        let parts = max(1, min(jobs, subscribers))
        reached = [Int64](repeating: 0, count: parts)
        events = [Int](repeating: 0, count: parts)
    }

    func report(_ part: Int, _ reachedNow: Int64, _ eventsNow: Int) {
        lock.lock()
        defer { lock.unlock() }
        reached[part] = reachedNow
        events[part] = eventsNow
        guard let line else { return }
        let day = (reached.min() ?? 0) / CohortModel.day
        let total = events.reduce(0, +)
        line.update {
            let rate = line.elapsed > 0 ? Int(Double(total) / line.elapsed) : 0
            return "population: day \(day), \(subscribers) subscribers, \(ProgressLine.grouped(total)) events, "
                + "\(ProgressLine.grouped(rate))/s"
        }
    }
}
