import Foundation
import SimctlHTTP
import SimctlHTTPDelivery
import SubscriptionSimulator

/// What a command printed and how it ended.
package struct CommandOutput: Error, Equatable, Sendable {
    package var stdout: String
    package var stderr: String
    package var exitCode: Int32
}

/// Exit codes (sysexits.h where one fits).
package enum ExitCode {
    package static let success: Int32 = 0
    package static let expectationFailed: Int32 = 1
    package static let usage: Int32 = 64
    package static let dataError: Int32 = 65
    package static let noInput: Int32 = 66
    package static let cannotCreate: Int32 = 73
}

/// The command line: argv in, output and exit code out. No process state is touched, so tests call it directly.
package enum Simctl {
    /// The wall clock, read only here at the command line's edge (for `--start now`, and for the times of
    /// `certs ocsp`'s answers); the library never reads it.
    package static let wallClock: @Sendable () -> Instant = {
        Instant(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// `clock` is read once, and only for `--start now` (and by `certs ocsp` for each answer); tests pass a fixed one. With `standardOutput`, `run`
    /// writes its standard output there as the run goes (the returned `stdout` is then empty); without it, the
    /// returned `stdout` holds the same bytes.
    ///
    /// `standardOutputVector`: the same destination as `standardOutput`, written from several buffers at once
    /// (`writev(2)`); `run` in parts writes its lines with it, straight from the parts' buffers (``RunPlan/writeVector``),
    /// and `merge` straight from the chunks it reads the part files into.
    package static func main(
        _ arguments: [String], clock: @escaping @Sendable () -> Instant = wallClock,
        standardOutput: (([UInt8]) -> Void)? = nil, standardOutputVector: VectorWrite? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> CommandOutput {
        let invocation: SimctlInvocation
        do throws(UsageError) { invocation = try ArgumentParser.parse(arguments, environment: environment) } catch {
            return usageFailure(error)
        }
        switch invocation {
        case .help(let topic): return CommandOutput(stdout: HelpText.text(for: topic) + "\n", stderr: "", exitCode: 0)
        case .version: return CommandOutput(stdout: simctlVersionLine + "\n", stderr: "", exitCode: 0)
        case .run(let options):
            // A streamed run shows progress on standard error only when it is a terminal.
            let progress = standardOutput == nil ? nil : ProgressLine.forTerminal()
            return run(
                options, clock: clock, standardOutput: standardOutput,
                standardOutputVector: standardOutput == nil ? nil : standardOutputVector, progress: progress)
        case .validate(let file): return validate(file)
        case .catalog(let file): return catalog(file)
        case .certs(let invocation): return certs(invocation, clock: clock)
        case .population(let options):
            // Progress on standard error only when it is a terminal (quiet in pipes and in tests).
            return PopulationCommand.run(options, progress: ProgressLine.forTerminal())
        case .serve(let options, let key): return ServeCommand.run(options, keyFromEnvironment: key, clock: clock)
        case .check(let options):
            // Progress on standard error only when it is a terminal (quiet in pipes and in tests).
            let progress: ((String) -> Void)? =
                isatty(2) == 1 ? { FileHandle.standardError.write(Data($0.utf8)) } : nil
            return CheckCommand.run(options, progress: progress)
        case .trigger(let options): return trigger(options)
        case .replay(let options): return ReplayCommand.main(options)
        case .merge(let files):
            return MergeCommand.main(
                files: files, standardOutput: standardOutput,
                standardOutputVector: standardOutput == nil ? nil : standardOutputVector)
        case .completion(let shell):
            return CommandOutput(stdout: Completion.script(for: shell), stderr: "", exitCode: 0)
        }
    }

    /// A usage error's message, the usage line of its command and where its help is (exit code 64).
    static func usageFailure(_ error: UsageError) -> CommandOutput {
        let see =
            error.topic == "population"
            ? "simctl population --help" : "simctl help\(error.topic.map { " " + $0 } ?? "")"
        let text = "error: \(error.message)\n\(HelpText.usageLine(for: error.topic))\nsee '\(see)'\n"
        return CommandOutput(stdout: "", stderr: text, exitCode: ExitCode.usage)
    }

    static func read(_ file: String) -> Result<String, CommandOutput> {
        switch InputFile.read(file) {
        case .success(let text): return .success(text)
        case .failure(.unreadable(let message)):
            return .failure(CommandOutput(stdout: "", stderr: message + "\n", exitCode: ExitCode.noInput))
        case .failure(.invalid(let message)):
            return .failure(CommandOutput(stdout: "", stderr: message + "\n", exitCode: ExitCode.dataError))
        }
    }

    static func decode(_ file: String, overrides: ScenarioOverrides = .init(), threads: Int = 1) -> Result<
        Scenario, CommandOutput
    > {
        switch read(file) {
        case .failure(let output): return .failure(output)
        case .success(let text):
            do throws(ScenarioError) {
                let scenario = try ScenarioDecoder(file: file).decode(text, overrides: overrides, threads: threads)
                // A deprecated spelling still runs as written; each one is named on standard error.
                for warning in scenario.warnings { FileHandle.standardError.write(Data("\(warning)\n".utf8)) }
                return .success(scenario)
            } catch {
                if error.commandLineOption != nil {  // a bad option value is a usage error (exit 64)
                    return .failure(
                        CommandOutput(
                            stdout: "", stderr: "error: \(error.message)\n\(HelpText.usageLine(for: "run"))\n",
                            exitCode: ExitCode.usage))
                }
                return .failure(CommandOutput(stdout: "", stderr: "\(error)\n", exitCode: ExitCode.dataError))
            }
        }
    }

    /// The instant `--start` names: `now` is the wall clock rounded down to the whole second (so the output
    /// holds whole seconds, as a written `start:` usually does); anything else is an ISO 8601 UTC instant.
    static func startInstant(_ text: String, clock: () -> Instant) -> Result<Instant, CommandOutput> {
        if text == "now" {
            let ms = clock().millisecondsSince1970
            return .success(Instant(millisecondsSince1970: ms - ((ms % 1000) + 1000) % 1000))
        }
        var problem = "needs `now` or an ISO 8601 UTC instant such as 2026-12-01T00:00:00Z, found '\(text)'"
        if let instant = CalendarDurationSyntax.parseInstant(text) {
            if instant.isSupported { return .success(instant) }
            problem = "(\(text)) is outside the supported range \(InstantRangeError.rangeText)"
        }
        let message =
            "error: option '--start' \(problem)\n" + HelpText.usageLine(for: "run") + "\nsee 'simctl help run'\n"
        return .failure(CommandOutput(stdout: "", stderr: message, exitCode: ExitCode.usage))
    }

    static func run(
        _ options: RunOptions, clock: () -> Instant, standardOutput: (([UInt8]) -> Void)? = nil,
        standardOutputVector: VectorWrite? = nil, progress: ProgressLine? = nil
    ) -> CommandOutput {
        var start: Instant?
        if let text = options.start {
            switch startInstant(text, clock: clock) {
            case .failure(let output): return output
            case .success(let instant): start = instant
            }
        }
        var scenario: Scenario
        let overrides = ScenarioOverrides(
            until: options.until, seed: options.seed, start: start, environment: options.environment)
        // `--jobs N`: parts at once (the machine's cores by default); 1 runs everything on the calling thread. A long
        // timeline is read on up to as many threads (ScenarioDecoder.decode(_:overrides:threads:)).
        let jobs = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        switch decode(options.file, overrides: overrides, threads: jobs) {
        case .failure(let output): return output
        case .success(let decoded): scenario = decoded
        }
        switch options.identity.applied(to: scenario, topic: "run") {
        case .failure(let output): return output
        case .success(let mapped): scenario = mapped
        }
        // What the picture shows (`--customers`, `--from`, `--to`, `--axis`), checked against the scenario.
        var pictureView = PictureView()
        switch options.picture.resolve(scenario) {
        case .failure(let error):
            return CommandOutput(
                stdout: "",
                stderr: "error: \(error.message)\n\(HelpText.usageLine(for: "run"))\nsee 'simctl help run'\n",
                exitCode: ExitCode.usage)
        case .success(let view): pictureView = view
        }
        let signer: (any PayloadSigner)?
        switch options.signing.signer() {
        case .failure(let output): return output
        case .success(let value): signer = value
        }
        if let part = options.shard {
            var collected: [UInt8] = []
            var output = MergeCommand.shard(
                scenario, options: options, part: part, signer: signer, write: standardOutput ?? { collected += $0 })
            if standardOutput == nil { output.stdout = String(decoding: collected, as: UTF8.self) }
            return output
        }
        // The fixture folder's target is checked before the run, so a run is not wasted on a folder that cannot
        // be written; files go into its hidden staging folder as the run goes.
        var plan = RunPlan(format: options.format, signer: signer, guardCommit: { body in Interrupts.deferred(body) })
        plan.jobs = jobs
        plan.threadLimit = plan.jobs
        plan.pictureView = pictureView
        plan.writeVector = standardOutputVector
        if let directory = options.outDirectory {
            do throws(FixtureWriter.WriteError) {
                let staging = try FixtureWriter.Staging(directory: directory, replacingExisting: options.force)
                plan.fixtures = staging
                // A failed write of standard output ends the process (OutputWrites): not before the staging folder
                // is removed.
                OutputWrites.onFailure { staging.abandon() }
            } catch {
                return CommandOutput(stdout: "", stderr: "error: \(error)\n", exitCode: ExitCode.cannotCreate)
            }
        }
        defer { OutputWrites.clearCleanup() }
        var connection: DeliveryConnection?
        let deliveryLog = options.delivery?.logFile.map { FileDeliveryLog(path: $0) }
        /// A delivery log that could not be opened is exit code 73; one that could not be written, 74.
        var logFailure: Int32 { deliveryLog?.writeFailed == true ? ExitCode.ioError : ExitCode.cannotCreate }
        if let delivery = options.delivery {
            switch DeliveryConnection.open(delivery) {
            case .failure(let error):
                return CommandOutput(stdout: "", stderr: "error: \(error.message)\n", exitCode: ExitCode.usage)
            case .success(let opened):
                connection = opened
                plan.delivery = DeliveryPlan(
                    transport: opened.transport, mode: delivery.mode, chaos: delivery.chaos,
                    log: deliveryLog)
            }
        }
        defer { connection?.close() }
        if let progress { plan.progress = { progress.followRun($0) } }
        var collected: [UInt8] = []
        let write = standardOutput ?? { collected += $0 }
        let verdict: RunVerdict
        // SIGINT or SIGTERM while delivering (docs/reliability.md, "Shutdown"): the attempts in flight are cut short
        // and logged, none starts any more, no fixture folder is committed after it, and the command says how the
        // notifications ended and exits 128 + the signal's number.
        var stopSignal: Int32 = 0
        var abandonedByStop = false
        if let opened = connection {
            verdict = Interrupts.stoppingDelivery(abort: { opened.abort() }) { signalled in
                plan.delivery?.stopping = { signalled() != 0 }
                let staging = plan.fixtures
                plan.guardCommit = { body in
                    if signalled() != 0 {
                        staging?.abandon()
                        abandonedByStop = true
                    } else {
                        Interrupts.deferred(body)
                    }
                }
                let verdict = plan.run(scenario, write: write)
                stopSignal = signalled()
                return verdict
            }
        } else {
            verdict = plan.run(scenario, write: write)
        }
        let stdout = standardOutput == nil ? String(decoding: collected, as: UTF8.self) : ""
        let result = verdict.run
        let transport = connection?.transport
        /// The delivery's lines for standard error (`why`: the reason a cut-short delivery gives).
        func deliverySummary(cutShortBecause why: String) -> String {
            guard let options = options.delivery, let transport else { return "" }
            switch verdict.delivery {
            case nil: return ""
            case .logFailed(let error): return "error: \(error)\n"
            case .delivered(let summary):
                return DeliveryOptions.summary(summary, destination: transport.destination, mode: options.mode)
            case .cutShort(let summary, let pending):
                return DeliveryOptions.summary(summary, destination: transport.destination, mode: options.mode)
                    + "delivery cut short: \(why); \(pending) attempts still scheduled were not made\n"
            }
        }
        if stopSignal != 0 {
            let name = stopSignal == SIGINT ? "SIGINT" : "SIGTERM"
            var stderr = "\(name): stopped delivering\n"
            if abandonedByStop, let directory = options.outDirectory {
                stderr += "no fixture folder written to '\(directory)': simctl was stopped (\(name))\n"
            }
            stderr += deliverySummary(cutShortBecause: "simctl was stopped (\(name))")
            return CommandOutput(stdout: stdout, stderr: stderr, exitCode: 128 + stopSignal)
        }
        if let stop = result.stoppedBy {
            var stderr = "\(stop)\n"
            if let directory = options.outDirectory {
                stderr += "no fixture folder written to '\(directory)': the run stopped before its end\n"
            }
            stderr += deliverySummary(cutShortBecause: "the run stopped before its end")
            return CommandOutput(stdout: stdout, stderr: stderr, exitCode: ExitCode.dataError)
        }
        var stderr = result.failures.map { "\($0)\n" }.joined()
        switch verdict.fixtures {
        case nil, .written: break
        case .notWritten:
            stderr +=
                "no fixture folder written to '\(options.outDirectory ?? "")': the scenario's expectations failed\n"
        case .failed(let error):
            return CommandOutput(stdout: stdout, stderr: stderr + "error: \(error)\n", exitCode: ExitCode.cannotCreate)
        }
        var exitCode = result.passed ? ExitCode.success : ExitCode.expectationFailed
        switch verdict.delivery {
        case nil: break
        case .logFailed(let error):
            return CommandOutput(stdout: stdout, stderr: stderr + "error: \(error)\n", exitCode: logFailure)
        case .delivered(let summary):
            stderr += deliverySummary(cutShortBecause: "")
            if !summary.allDelivered { exitCode = ExitCode.undelivered }
        case .cutShort:
            stderr += deliverySummary(cutShortBecause: "the scenario's expectations failed")
        }
        return CommandOutput(stdout: stdout, stderr: stderr, exitCode: exitCode)
    }

    static func validate(_ file: String) -> CommandOutput {
        switch decode(file) {
        case .failure(let output): return output
        case .success(let scenario):
            // The scenario is run too (nothing printed), so every action the rules refuse is reported here, at its
            // timeline entry, as `run` would report it. Expectations are judged by `run`.
            // Streamed like `run`, with the same limits and in bounded memory (docs/streaming.md); only counted.
            var counter = NotificationCounter()
            let result = ScenarioRunner.stream(scenario, into: &counter)
            if let stop = result.stoppedBy {
                return CommandOutput(stdout: "", stderr: "\(stop)\n", exitCode: ExitCode.dataError)
            }
            let summary =
                "\(file): valid: \(scenario.catalog.products.count) products, \(scenario.customers.count) customers, "
                + "\(scenario.timeline.count) timeline entries, \(scenario.expectations.count) expectations, "
                + "until \(scenario.until); runs to the end with \(counter.count) notifications\n"
            return CommandOutput(stdout: summary, stderr: "", exitCode: ExitCode.success)
        }
    }

    static func catalog(_ file: String) -> CommandOutput {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory)
        if file.hasSuffix(".storekit") || isDirectory.boolValue {
            guard exists else {
                return CommandOutput(
                    stdout: "", stderr: "\(file):1:1: error: cannot read the file: no such file or directory\n",
                    exitCode: ExitCode.noInput)
            }
            do throws(StoreKitImportError) {
                let configuration = try StoreKitImporter.importFile(at: file)
                var catalog = Catalog()
                var out = ""
                for product in configuration.products {
                    do throws(CatalogError) { try catalog.add(product) } catch {
                        return CommandOutput(
                            stdout: "", stderr: "\(file): error: \(error)\n", exitCode: ExitCode.dataError)
                    }
                }
                out += CatalogTable.render(catalog)
                out +=
                    "\nstorefront: \(configuration.storefront?.countryCode ?? "USA (default)"), currency \(configuration.currency)\n"
                out +=
                    "billing grace period: \(configuration.billingGracePeriodEnabled == true ? "on (16 days; weekly products 6 days)" : "off")\n"
                if !configuration.otherSettings.isEmpty {
                    out += "settings listed but not used (time is virtual; billing failures come from the timeline):\n"
                    for setting in configuration.otherSettings { out += "  \(setting.key) = \(setting.value)\n" }
                }
                if !configuration.notes.isEmpty {
                    out += "import notes:\n"
                    for note in configuration.notes { out += "  \(note)\n" }
                }
                return CommandOutput(stdout: out, stderr: "", exitCode: ExitCode.success)
            } catch {
                return CommandOutput(stdout: "", stderr: "\(error)\n", exitCode: ExitCode.dataError)
            }
        }
        switch decode(file) {
        case .failure(let output): return output
        case .success(let scenario):
            return CommandOutput(stdout: CatalogTable.render(scenario.catalog), stderr: "", exitCode: ExitCode.success)
        }
    }
}

/// Counts a streamed run's notifications (`simctl validate`).
struct NotificationCounter: RunSink {
    var count = 0
    mutating func receive(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>) {
        count += notifications.count
    }
}

/// The catalogue as a table for people.
package enum CatalogTable {
    package static func render(_ catalog: Catalog) -> String {
        var rows = [["PRODUCT", "TYPE", "GROUP/LEVEL", "PERIOD", "PRICE", "CURRENCY", "FAMILY", "INTRO OFFER"]]
        for p in catalog.products {
            let group = p.group.map { "\($0)/\(p.level)" } ?? "-"
            let period =
                p.period?.rawValue ?? p.duration.map { "\($0) (term)" }
                ?? (p.type == .nonRenewing ? "no duration" : "-")
            let offer = p.introOffers.isEmpty ? "-" : p.introOffers.map(terms).joined(separator: "; ")
            rows.append([
                p.id, p.type.rawValue, group, period, p.price.description, p.currency, p.familyShareable ? "yes" : "no",
                offer,
            ])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        let table = rows.map { row in
            var line = ""
            for (i, cell) in row.enumerated() {
                line += i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2)
            }
            return line + "\n"
        }.joined()
        return table + planLines(catalog) + offerLines(catalog)
    }

    /// An offer's terms ("free trial P1W", "5.49 × 2 × P1M", ...) and the plan it is for, when it is for one.
    static func terms(_ offer: SubscriptionOffer) -> String {
        let terms: String
        switch offer.mode {
        case .freeTrial: terms = "free trial \(offer.period)"
        case .payAsYouGo: terms = "\(offer.price) × \(offer.periods) × \(offer.period)"
        case .payUpFront: terms = "\(offer.price) for \(offer.period)"
        case .oneTime: terms = "\(offer.price) once"
        }
        return terms + planSuffix(offer.plan)
    }

    /// " (monthly plan)" or " (up-front plan)" for an offer configured for one billing plan (rule offer-for-its-plan);
    /// nothing for an offer of both plans.
    static func planSuffix(_ plan: BillingPlan?) -> String {
        switch plan {
        case .monthly: return " (monthly plan)"
        case .upfront: return " (up-front plan)"
        case nil: return ""
        }
    }

    /// One line per product with the monthly plan with a 12-month commitment (reference Appendix E): its monthly
    /// price, the commitment's price (rule commitment-twelve-periods) and its storefront prices.
    static func planLines(_ catalog: Catalog) -> String {
        var text = ""
        for p in catalog.products {
            guard let plan = p.monthlyCommitment else { continue }
            let total = CommitmentPlan.commitmentPrice(monthly: plan.monthlyPrice)
            text +=
                "plan \(p.id) monthly: \(plan.monthlyPrice) \(p.currency) × \(CommitmentPlan.totalBillingPeriods) "
                + "(12-month commitment, \(total))"
            if !plan.prices.isEmpty {
                text +=
                    "; "
                    + plan.prices.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            text += "\n"
        }
        return text.isEmpty ? "" : "\n" + text
    }

    /// One line per redeemable offer (promotional, offer code, win-back), under the table.
    static func offerLines(_ catalog: Catalog) -> String {
        var text = ""
        for p in catalog.products {
            for o in p.offers {
                text += "offer \(p.id) \(o.identifier ?? "-"): \(o.type.rawValue), \(terms(o))\n"
            }
        }
        return text.isEmpty ? "" : "\n" + text
    }
}
