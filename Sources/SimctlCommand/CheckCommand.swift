import Foundation
import SimctlHTTP
import SimctlCrypto
import SimctlHTTPDelivery
import SimctlServer
import SubscriptionSimulator

/// `simctl check SCENARIO --deliver URL --entitlements TEMPLATE ...` (docs/check.md, "The command line").
package struct CheckCommandOptions: Equatable, Sendable {
    /// The scenario whose header the cases come from, or (with `replay`) the counterexample to run.
    package var file = ""
    /// `--replay FILE`: run this one scenario instead of generating cases.
    package var replay = false
    package var deliver = ""
    /// `--deliver-connections N`: attempts in flight at once.
    package var connections = 1
    /// `--port P`: serve the App Store Server API for the running case's store on this port (0: any free one).
    package var port: Int?
    /// `--host ADDR` of that server (loopback by default).
    package var host = "127.0.0.1"
    /// `--api-key-pem FILE`: bearer tokens must be signed with this key, as with `simctl serve`.
    package var apiKeyPEM: String?
    /// `--log FILE`: the server's log (every request and answer).
    package var logFile: String?
    package var entitlements = ""
    package var cases = 100
    package var seed: UInt64 = 0
    /// `--epoch N`; nil: 0 for a check, the file's `epoch:` for a replay.
    package var epoch: UInt32?
    package var outDirectory = "."
    package var junit: String?
    /// `--max-time D` in milliseconds of wall clock.
    package var maxTimeMilliseconds: Int64?
    /// `--settle D` in milliseconds of wall clock, waited before each checkpoint's queries.
    package var settleMilliseconds: Int64 = 0
    package var timeoutMilliseconds: Int64 = 5000
    package var chaos = CheckChaos.standard
    package var shrinks = true
    /// `--environment`, `--ca-seed`, `--signing-chain` (SigningOptions.swift): how the notifications delivered, and the
    /// `--port` server's signed answers, are signed.
    package var signing = SigningOptions()

    // MARK: Issue 47 (checking an existing backend): a block of its own, to port into the option tables.
    /// `--keep-going`: run every case, one shrunk counterexample per class of divergence.
    package var keepGoing = false
    /// `--accept-status KIND[=CODE],...` (repeatable): refusals the backend makes on purpose.
    package var acceptedRefusals: [String: Set<Int>] = [:]
    /// `--actions LIST`, `--without LIST`, `--weights FILE` (read when the check starts).
    package var onlyActions: Set<String>?
    package var withoutActions: Set<String> = []
    package var weightsFile: String?
    /// `--tolerance D` in milliseconds of virtual time.
    package var toleranceMilliseconds: Int64 = 0
    /// `--epoch auto`: the next free epoch is kept in `--out` (`.simctl-epoch`).
    package var autoEpoch = false
    /// `--bundle-id`, `--app-apple-id`, `--map-product OLD=NEW` (IdentityOptions.swift).
    package var identity = IdentityOptions()

    package init() {}
}

enum CheckCommand {
    /// Delivery options of `simctl run` that do not apply to check, with the reason.
    static let notApplicable: [String: String] = [
        "--deliver-mode": "check always delivers on the production retry schedule, which its cases need",
        "--chaos-reorder-window": "check's late deliveries come from failed first attempts, written into each case",
        "--delivery-log": "the report lists the last notifications delivered for the divergent originalTransactionId",
    ]
    /// What the command line gave, before the options are checked together (``parse(_:)``).
    struct ParseState: Sendable {
        var values: [String: String] = [:]
        var repeated: [String: [String]] = [:]
        var identity = IdentityOptions()
        var delivery = DeliveryOptions.Builder()
        var seenFlags: Set<String> = []
        var signing = SigningOptions()
        var file: String?
    }

    /// One value option whose text is kept for ``parse(_:)``'s checks.
    static func kept(_ name: String, _ placeholder: String, _ value: OptionValue, _ summary: String)
        -> OptionDeclaration<ParseState>
    {
        .value(name, placeholder, value, summary) { state, text in state.values[name] = text }
    }

    static func kept(_ name: String, _ placeholder: String, _ summary: String) -> OptionDeclaration<ParseState> {
        kept(name, placeholder, .text, summary)
    }

    static func flag(_ name: String, _ summary: String) -> OptionDeclaration<ParseState> {
        .flag(name, summary) { state in state.seenFlags.insert(name) }
    }

    /// The section of the options issue 47 added.
    static let existingBackend = HelpSection(
        "CHECKING AN EXISTING BACKEND (docs/check.md, \"Checking an existing backend\")")

    static let ownOptions: [OptionDeclaration<ParseState>] = [
        kept("--replay", "FILE", .file, "run FILE (a case the report wrote) in place of SCENARIO")
            .help("run FILE (a counterexample.yaml the report wrote) in place of generated cases: one case"),
        kept("--entitlements", "TEMPLATE", .url, "the backend's entitlement query, with {originalTransactionId}")
            .help("the entitlement query (see THE CONTRACT)"),
        kept("--cases", "N", "lifecycles to generate (default 100)")
            .help("cases to generate (default 100, at most 1000000)"),
        kept("--seed", "S", "the cases' seed (default 0)")
            .help(
                "generation seed (default 0): the same scenario, seed and options give the same cases and the same report"
            ),
        kept("--epoch", "N|auto", "the store's epoch")
            .help(
                "identity epoch of the first case (default 0); case i runs at epoch N+i, so the backend needs no "
                    + "reset between cases. With --replay: the replay's epoch (default: the file's epoch:, that of "
                    + "counterexample.jsonl). auto: take the next free epoch from DIR/.simctl-epoch (or from the wall "
                    + "clock) and store the next one after the run (with --replay too, given --out DIR)"),
        kept("--out", "DIR", .directory, "where the report goes (default .)")
            .help("where to write counterexample.yaml and counterexample.jsonl (default: .)"),
        kept("--junit", "FILE", .file, "also write a JUnit XML report")
            .help("also write JUnit XML: one testcase per case run, a divergence as a failure"),
        kept("--max-time", "D", "stop generating cases after D")
            .help("stop after D of wall clock (such as 90s or 5m), with a summary of the cases run"),
        kept("--settle", "D", "wait D before each query")
            .help("wait D of wall clock before each checkpoint's queries (asynchronous backends)"),
        kept("--port", "P", "serve the App Store Server API on port P")
            .help(
                "serve the App Store Server API (the endpoints of 'simctl serve') for the running case's store on "
                    + "port P (0: any free port, printed on standard error), for the whole check; endpoints that change "
                    + "the store answer 429 during check"),
        kept("--host", "ADDR", "the API's address (with --port)")
            .help("the address it listens on (default 127.0.0.1)"),
        kept("--api-key-pem", "FILE", .file, "check bearer tokens against this key (with --port)")
            .help("check each bearer token's ES256 signature against this key, as 'simctl serve' does"),
        kept("--log", "FILE", .file, "the API's log (with --port)")
            .help("write that server's log (every request and answer) to FILE"),
        flag("--no-duplicates", "no duplicate deliveries").help("turn duplicate deliveries off"),
        flag("--no-retries", "no failed first attempts").help("turn failed first attempts off"),
        flag("--no-shrink", "report the first failing case as found")
            .help("report the first divergence as found, without shrinking it"),
        // Issue 47 (checking an existing backend).
        flag("--keep-going", "run every case, not only up to the first failure")
            .help(
                "run every case; group the divergences into classes (kind, the notification before it, the action "
                    + "that caused it), shrink one per class and write counterexample-N.yaml/.jsonl and summary.json "
                    + "to DIR (default: stop at the first)"
            ).listed(in: existingBackend),
        OptionDeclaration<ParseState>.value(
            "--accept-status", "KIND[=CODE]", repeatable: true, "refusals the backend may answer"
        ) { state, text in state.repeated["--accept-status", default: []].append(text) }
        .help(
            "refusals the backend makes on purpose (repeatable, or a comma-separated list): a notification of type "
                + "KIND (or TYPE/SUBTYPE) answered CODE (any non-2xx without =CODE) counts as delivered and is not "
                + "judged; other refusals after Apple's retries are a class of their own, \"refuses a valid "
                + "notification\""
        ).listed(in: existingBackend),
        kept("--actions", "LIST", "only these actions")
            .help("draw only these actions (comma-separated names of the scenario action table)")
            .listed(in: existingBackend),
        kept("--without", "LIST", "none of these actions").help("never draw these actions").listed(in: existingBackend),
        kept("--weights", "FILE", .file, "the actions' weights")
            .help("per-action weights: lines 'ACTION WEIGHT' (0 to 1000), '#' comments").listed(in: existingBackend),
        kept("--tolerance", "D", "how late an entitlement may change")
            .help("accept an answer that matches the truth of less than D ago (such as 1h), reported as tolerated")
            .listed(in: existingBackend),
    ]

    /// check's words for the delivery options it shares with `run` (its defaults differ), listed with its own.
    static let deliveryHelp = [
        "--deliver":
            "POST each notification's body to URL (http:// or https://, which trusts the system's certificate store), "
            + "as 'simctl run --deliver' does",
        "--deliver-timeout": "wall time to wait for each answer (default 5s)",
        "--deliver-connections":
            "attempts in flight at once (default 1; above 1, attempts due together may arrive in any order among "
            + "themselves)",
        "--chaos-duplicate": "share of notifications sent twice (default 0.2)",
        "--chaos-fail-rate": "share of notifications whose first attempts fail (default 0.2)",
        "--chaos-fail-first": "most first attempts such a notification fails, 0 to 5 (default 2; 0: none)",
    ]

    static var options: [OptionDeclaration<ParseState>] {
        var all = ownOptions
        all += SigningOptions.declarations(topic: "check").map { $0.lifted(\ParseState.signing) }
        all += IdentityOptions.declarations(topic: "check").map { $0.lifted(\ParseState.identity) }
        let delivery = DeliveryOptions.declarations(DeliveryOptions.names.filter { notApplicable[$0] == nil })
        all += delivery.map { option in
            option.lifted(\ParseState.delivery).help(deliveryHelp[option.name] ?? option.helpText).listed(in: nil)
        }
        for name in notApplicable.keys.sorted() {
            all.append(
                .value(name, "VALUE", OptionInfo.refusalSummary) {
                    (_: inout ParseState, _: String) throws(UsageError) in
                    throw UsageError(
                        message: "option '\(name)' of 'simctl run' does not apply to 'check': \(notApplicable[name]!)",
                        topic: "check")
                })
        }
        return all
    }

    static let command = CommandDeclaration<ParseState>(
        name: "check", topic: "check", summary: "Test a backend against the store with generated lifecycles",
        positional: "SCENARIO", positionalValue: .file, options: options,
        groups: [SigningOptions.exclusive],
        argument: { (state: inout ParseState, argument: String) throws(UsageError) in
            try ArgumentParser.scenarioFile(&state.file, argument, command: "check")
        },
        page: page)

    static let page = HelpPage(
        required: ["--deliver", "--entitlements"],
        forms: [
            "check --replay FILE --deliver URL --entitlements TEMPLATE [--epoch N] [--settle D] [--port P ...] "
                + "[--environment NAME] [--ca-seed TEXT | --signing-chain DIR]"
        ],
        about: [
            .paragraph(
                "Generates N lifecycles (cases) from SCENARIO's app, catalogue, customers and family (its timeline, if "
                    + "any, starts every case), delivers each case's notifications to URL with Apple's retries, "
                    + "duplicates and late deliveries, and at every instant where all notifications due were "
                    + "delivered asks TEMPLATE about each originalTransactionId delivered, comparing with the store's "
                    + "ground truth (docs/check.md). The first divergence is shrunk to a small scenario written to DIR "
                    + "as counterexample.yaml (`simctl run` runs it with exit 0; `simctl check --replay` replays it "
                    + "against the backend) and counterexample.jsonl."),
            .titled(
                "THE CONTRACT",
                "TEMPLATE is an http:// URL containing {originalTransactionId}; simctl GETs it and expects HTTP 200 "
                    + "with JSON {\"active\": true|false, \"productId\": \"...\"} (productId optional, compared "
                    + "when given), or 404 (unknown: not active). TEMPLATE may hold {now} (the checkpoint's virtual "
                    + "instant, ms since 1970) and {nowISO}; every query and delivery carries it in the header "
                    + "X-Simctl-Now."),
        ],
        notes: [
            .paragraph(
                "Without signing options, check signs as the scenario's app.environment says (LocalTesting when it "
                    + "says nothing: placeholder signatures, which a verifying backend refuses); a backend that "
                    + "verifies needs --environment Sandbox (or Production) and the root of 'simctl certs export' with "
                    + "the same options. They apply to --replay and to the --port server's answers."),
            .paragraph("Progress goes to standard error when it is a terminal; the report to standard output."),
            .rows(
                "EXIT CODES",
                [
                    HelpRow("0", "every case agrees with the store (with --replay: the file agrees)"),
                    HelpRow(
                        "1",
                        "a divergence, or with --keep-going at least one class (with --replay: the file still "
                            + "diverges)"),
                    HelpRow(
                        "2",
                        "the backend cannot be judged: unreachable, an entitlement answer that is not 200/404 with "
                            + "the contract's JSON, or a notification undelivered after its last attempt"),
                    HelpRow("64", "bad usage"),
                    HelpRow("65", "invalid scenario (or one whose own timeline cannot run)"),
                    HelpRow("66", "the input file cannot be read"),
                    HelpRow("73", "the --out folder or the --junit file cannot be written"),
                ]),
        ],
        examples: [
            "check Scenarios/family-stop-sharing.yaml --deliver http://127.0.0.1:8000/asn "
                + "--entitlements 'http://127.0.0.1:8000/entitlements/{originalTransactionId}' --cases 20"
        ])

    static func parse(_ arguments: [String]) throws(UsageError) -> CheckCommandOptions {
        var state = ParseState()
        try OptionParser.parse(arguments, command, into: &state)
        let (values, repeated, identity, delivery, seenFlags, signing, file) = (
            state.values, state.repeated, state.identity, state.delivery, state.seenFlags, state.signing, state.file
        )
        var options = CheckCommandOptions()
        options.signing = signing
        options.identity = identity
        if let replay = values["--replay"] {
            if let file {
                throw UsageError(
                    message: "'--replay FILE' runs FILE in place of SCENARIO; found both '\(replay)' and '\(file)'",
                    topic: "check")
            }
            let generation = ["--cases", "--seed", "--junit", "--max-time", "--actions", "--without", "--weights"]
                .filter { values[$0] != nil }
            let chaos =
                ["--chaos-duplicate", "--chaos-fail-rate", "--chaos-fail-first"].filter { delivery.values[$0] != nil }
                + seenFlags.sorted()
            if let other = (generation + chaos).first {
                throw UsageError(
                    message: "option '\(other)' does not apply to '--replay' (the file holds its own faults)",
                    topic: "check")
            }
            options.replay = true
            options.file = replay
        } else {
            guard let file else { throw UsageError(message: "'check' needs a scenario file", topic: "check") }
            options.file = file
        }
        guard delivery.values["--deliver"] != nil else {
            throw UsageError(message: "'check' needs '--deliver URL'", topic: "check")
        }
        let built: DeliveryOptions
        do throws(UsageError) {
            guard let value = try delivery.build() else {
                throw UsageError(message: "'check' needs '--deliver URL'", topic: "check")
            }
            built = value
        } catch {
            throw UsageError(message: error.message, topic: "check")
        }
        options.deliver = built.url
        options.timeoutMilliseconds = built.timeoutMilliseconds
        options.connections = built.connections
        if delivery.values["--chaos-duplicate"] != nil { options.chaos.duplicateRate = built.chaos.duplicateRate }
        if delivery.values["--chaos-fail-rate"] != nil { options.chaos.failureRate = built.chaos.failRate }
        if delivery.values["--chaos-fail-first"] != nil {
            options.chaos.maximumFailedAttempts = built.chaos.failFirstAttempts
            if built.chaos.failFirstAttempts == 0 { options.chaos = options.chaos.withoutFailures }
        }
        if let text = values["--port"] {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw UsageError(
                    message: "option '--port' needs a port number from 0 to 65535, found '\(text)'", topic: "check")
            }
            options.port = port
        }
        for name in ["--host", "--api-key-pem", "--log"] where values[name] != nil {
            guard options.port != nil else {
                throw UsageError(message: "option '\(name)' needs '--port P'", topic: "check")
            }
            guard values[name]?.isEmpty == false else {
                throw UsageError(message: "option '\(name)' needs a value", topic: "check")
            }
        }
        if let host = values["--host"] { options.host = host }
        options.apiKeyPEM = values["--api-key-pem"]
        options.logFile = values["--log"]
        guard let entitlements = values["--entitlements"] else {
            throw UsageError(message: "'check' needs '--entitlements TEMPLATE'", topic: "check")
        }
        options.entitlements = entitlements
        if let text = values["--cases"] {
            guard let count = Int(text), (1...1_000_000).contains(count) else {
                throw UsageError(
                    message: "option '--cases' needs a whole number from 1 to 1000000, found '\(text)'", topic: "check")
            }
            options.cases = count
        }
        if let text = values["--seed"] {
            guard let seed = UInt64(text) else {
                throw UsageError(
                    message: "option '--seed' needs a whole number from 0 to 18446744073709551615, found '\(text)'",
                    topic: "check")
            }
            options.seed = seed
        }
        if let text = values["--epoch"], text == "auto" {
            options.autoEpoch = true
        } else if let text = values["--epoch"] {
            guard let epoch = UInt32(text) else {
                throw UsageError(
                    message: "option '--epoch' needs a whole number from 0 to 4294967295 or 'auto', found '\(text)'",
                    topic: "check")
            }
            options.epoch = epoch
        }
        if let text = values["--out"] {
            guard !text.isEmpty else { throw UsageError(message: "option '--out' needs a folder", topic: "check") }
            options.outDirectory = text
        }
        if let text = values["--junit"] {
            guard !text.isEmpty else { throw UsageError(message: "option '--junit' needs a file path", topic: "check") }
            options.junit = text
        }
        options.maxTimeMilliseconds = try duration(values["--max-time"], "--max-time", minimum: 1, limit: 604_800_000)
        options.settleMilliseconds = try duration(values["--settle"], "--settle", minimum: 0, limit: 60_000) ?? 0
        if seenFlags.contains("--no-duplicates") { options.chaos = options.chaos.withoutDuplicates }
        if seenFlags.contains("--no-retries") { options.chaos = options.chaos.withoutFailures }
        options.shrinks = !seenFlags.contains("--no-shrink")
        try parseIssue47(values, repeated, seenFlags, into: &options)
        return options
    }

    /// Issue 47's options (docs/check.md, "Checking an existing backend").
    static func parseIssue47(
        _ values: [String: String], _ repeated: [String: [String]], _ flags: Set<String>,
        into options: inout CheckCommandOptions
    ) throws(UsageError) {
        options.keepGoing = flags.contains("--keep-going")
        if options.keepGoing && options.replay {
            throw UsageError(message: "option '--keep-going' does not apply to '--replay' (one case)", topic: "check")
        }
        for text in repeated["--accept-status", default: []] {
            for item in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let kind = parts[0]
                let type = String(kind.split(separator: "/", maxSplits: 1).first ?? "")
                guard !kind.isEmpty, NotificationType(rawValue: type) != nil else {
                    let names = NotificationType.allCases.map(\.rawValue)
                    let hint = Suggestions.closest(to: type, among: names).map { " (did you mean '\($0)'?)" } ?? ""
                    throw UsageError(
                        message: "option '--accept-status' needs KIND or KIND=CODE with KIND a notificationType "
                            + "(or TYPE/SUBTYPE) such as TEST=500, found '\(item)'\(hint)", topic: "check")
                }
                var codes = options.acceptedRefusals[kind] ?? []
                if parts.count == 2 {
                    guard let code = Int(parts[1]), (300...599).contains(code) else {
                        throw UsageError(
                            message: "option '--accept-status': '\(item)' needs a refusal status from 300 to 599 "
                                + "after '=', found '\(parts[1])'", topic: "check")
                    }
                    codes.insert(code)
                }
                options.acceptedRefusals[kind] = parts.count == 2 && options.acceptedRefusals[kind] != [] ? codes : []
            }
        }
        func names(_ option: String) throws(UsageError) -> Set<String>? {
            guard let text = values[option] else { return nil }
            let list = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !list.isEmpty, !list.contains("") else {
                throw UsageError(
                    message: "option '\(option)' needs a comma-separated list of actions, found '\(text)'",
                    topic: "check")
            }
            if let problem = VocabularyChoice.unknown(list) {
                throw UsageError(message: "option '\(option)': \(problem)", topic: "check")
            }
            return Set(list)
        }
        options.onlyActions = try names("--actions")
        options.withoutActions = try names("--without") ?? []
        if let text = values["--weights"] {
            guard !text.isEmpty else { throw UsageError(message: "option '--weights' needs a file", topic: "check") }
            options.weightsFile = text
        }
        options.toleranceMilliseconds =
            try duration(values["--tolerance"], "--tolerance", minimum: 0, limit: 31 * 86_400_000) ?? 0
        if options.replay && values["--out"] != nil && !options.autoEpoch {
            throw UsageError(
                message: "option '--out' applies to '--replay' only with '--epoch auto' (the folder that keeps the "
                    + "next free epoch)", topic: "check")
        }
        if options.autoEpoch && options.replay && values["--out"] == nil {
            throw UsageError(
                message: "'--epoch auto' with '--replay' needs '--out DIR', the folder that keeps the next free epoch",
                topic: "check")
        }
    }

    /// A wall-clock duration option in milliseconds (nil when absent).
    static func duration(_ text: String?, _ name: String, minimum: Int64, limit: Int64) throws(UsageError) -> Int64? {
        guard let text else { return nil }
        guard let ms = DeliveryOptions.Builder.milliseconds(text, limit: limit), ms >= minimum else {
            throw UsageError(
                message: "option '\(name)' needs a duration such as 500ms, 30s or 5m (at most \(limit / 1000)s), "
                    + "found '\(text)'", topic: "check")
        }
        return ms
    }

    /// Runs `simctl check` with `arguments` (after the word `check`). `progress` receives progress lines (the
    /// command line passes standard error when it is a terminal).
    static func main(_ arguments: [String], progress: ((String) -> Void)? = nil) -> CommandOutput {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return Simctl.main(["help", "check"]) }
        do throws(UsageError) { return run(try parse(arguments), progress: progress) } catch {
            return Simctl.usageFailure(error)
        }
    }

    /// Runs `simctl check` with its parsed options.
    static func run(_ options: CheckCommandOptions, progress: ((String) -> Void)? = nil) -> CommandOutput {
        var options = options
        let query: EntitlementQuery
        do throws(EntitlementQuery.TemplateError) {
            query = try EntitlementQuery(
                template: options.entitlements, timeoutMilliseconds: options.timeoutMilliseconds)
        } catch {
            return CommandOutput(
                stdout: "",
                stderr: "error: \(error.message)\n\(HelpText.usageLine(for: "check"))\nsee 'simctl help check'\n",
                exitCode: ExitCode.usage)
        }
        var scenario: Scenario
        switch Simctl.decode(options.file, overrides: ScenarioOverrides(environment: options.signing.environment)) {
        case .failure(let output): return output
        case .success(let decoded): scenario = decoded
        }
        switch options.identity.applied(to: scenario) {
        case .failure(let output): return output
        case .success(let mapped): scenario = mapped
        }
        let signer: (any PayloadSigner)?
        switch options.signing.signer() {
        case .failure(let output): return output
        case .success(let value): signer = value
        }
        var deliveryOptions = DeliveryOptions(url: options.deliver)
        deliveryOptions.timeoutMilliseconds = options.timeoutMilliseconds
        deliveryOptions.connections = options.connections
        let connection: DeliveryConnection
        switch DeliveryConnection.open(deliveryOptions) {
        case .failure(let error):
            return CommandOutput(stdout: "", stderr: "error: \(error.message)\n", exitCode: ExitCode.usage)
        case .success(let opened): connection = opened
        }
        let transport = connection.transport
        defer {
            connection.close()
            query.client.close()
        }
        let settle = options.settleMilliseconds
        var backend = CheckedBackend(
            deliver: { request in transport.attempt([request])[0] },
            entitlement: { id in try query.ask(id) },
            settle: { if settle > 0 { Thread.sleep(forTimeInterval: Double(settle) / 1000) } })
        // The checkpoint's virtual instant goes with every query ({now}, {nowISO}, X-Simctl-Now).
        backend.entitlementAt = { id, now in try query.ask(id, now: now) }
        backend.acceptedRefusals = options.acceptedRefusals
        backend.toleranceMilliseconds = options.toleranceMilliseconds
        backend.signer = signer
        backend.connections = transport.connections
        if transport.connections > 1 { backend.deliverBatch = { transport.attempt($0) } }
        var server: APIServer?
        if options.port != nil {
            switch APIServer.start(scenario, options, signer: signer) {
            case .failure(let output): return output
            case .success(let started):
                server = started
                FileHandle.standardError.write(
                    Data("check: serving the App Store Server API at \(started.http.url)\n".utf8))
                var shown: UInt32?
                backend.observe = { store, epoch in
                    started.simulator.show(store, epoch: epoch, newCase: shown != epoch)
                    shown = epoch
                }
            }
        }
        /// The check (or replay) and its epoch bookkeeping; the server is stopped after it.
        func checked() -> CommandOutput {
            var epochFile: EpochFile?
            if options.autoEpoch {
                let file = EpochFile(directory: options.outDirectory)
                switch file.next() {
                case .failure(let output): return output
                case .success(let epoch): options.epoch = epoch
                }
                epochFile = file
            }
            if options.replay {
                let output = replay(scenario, options, backend)
                if let epochFile, let epoch = options.epoch, let failure = epochFile.store(epoch &+ 1) {
                    return failure
                }
                return output
            }
            var output = check(scenario, options, backend, progress: progress)
            if let epochFile, let next = output.nextEpoch {
                if let failure = epochFile.store(next) {
                    output.output.stderr += failure.stderr
                    output.output.exitCode = failure.exitCode
                } else {
                    output.output.stderr +=
                        "check: --epoch auto: epochs \(options.epoch ?? 0) to \(next &- 1); the next free one is kept in "
                        + "\(epochFile.path)\n"
                }
            }
            return output.output
        }
        var output = checked()
        server?.stop()
        // A line of `--log` that could not be written: the log is incomplete, which the check's answer must say
        // (docs/reliability.md, "Write errors"); the check itself ran to its end.
        if let message = server?.log?.failureMessage {
            output.stderr += message
            output.exitCode = ExitCode.ioError
        }
        return output
    }

    /// `--epoch auto` (docs/check.md, "Epochs for a persistent backend"): the next free epoch, kept in
    /// `DIR/.simctl-epoch` (one decimal number and a newline); without that file, one derived from the wall clock
    /// (minutes since 2026-01-01 times 1,000; the command line reads the clock only here), so that runs against a
    /// database that outlives the folder do not meet old ids either.
    struct EpochFile {
        let directory: String
        var path: String { URL(fileURLWithPath: directory).appendingPathComponent(".simctl-epoch").path }

        func next() -> Result<UInt32, CommandOutput> {
            guard let data = FileManager.default.contents(atPath: path) else {
                let minutes = (Int64(Date().timeIntervalSince1970) - 1_767_225_600) / 60
                return .success(UInt32(clamping: max(1, minutes) * 1000 % 4_000_000_000))
            }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let epoch = UInt32(text) else {
                return .failure(
                    CommandOutput(
                        stdout: "",
                        stderr: "error: \(path):1:1: expected the next free epoch, a whole number from 0 to "
                            + "4294967295, found '\(text.prefix(40))' (delete the file to start again from the clock)\n",
                        exitCode: ExitCode.dataError))
            }
            return .success(epoch)
        }

        /// Writes `epoch` as the next free one; the failure's output, or nil.
        func store(_ epoch: UInt32) -> CommandOutput? {
            do {
                try FileManager.default.createDirectory(
                    at: URL(fileURLWithPath: directory), withIntermediateDirectories: true)
                try Data("\(epoch)\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                return nil
            } catch {
                return CommandOutput(
                    stdout: "",
                    stderr: "error: cannot write the next free epoch to '\(path)': \(error.localizedDescription)\n",
                    exitCode: ExitCode.cannotCreate)
            }
        }
    }

    /// `--port`: the App Store Server API of the running case's store (docs/check.md, "The App Store Server API").
    struct APIServer {
        let simulator: SimulatorServer
        let http: HTTPServer
        let log: ServeLog?

        static func start(_ scenario: Scenario, _ options: CheckCommandOptions, signer: (any PayloadSigner)?)
            -> Result<APIServer, CommandOutput>
        {
            var publicKey: P256.PublicKey?
            if let path = options.apiKeyPEM {
                switch Simctl.read(path) {
                case .failure(let output): return .failure(output)
                case .success(let text):
                    switch ServeCommand.apiKey(text, file: path) {
                    case .failure(let output): return .failure(output)
                    case .success(let key): publicKey = key
                    }
                }
            }
            var opened: ServeLog?
            if let path = options.logFile {
                do { opened = try ServeLog(path: path) } catch {
                    return .failure(
                        CommandOutput(
                            stdout: "", stderr: "error: cannot write the log '\(path)'\n",
                            exitCode: ExitCode.cannotCreate))
                }
            }
            let log = opened
            let write: (@Sendable (String) -> Void)? = log.map { log in { @Sendable line in log.write(line) } }
            var configuration = ServerConfiguration(
                scenario: scenario, signer: signer,
                token: BearerTokenPolicy(
                    bundleId: scenario.app.bundleId, publicKey: publicKey,
                    clock: { Int64(Date().timeIntervalSince1970) }), epoch: options.epoch ?? scenario.epoch)
            configuration.readOnlyReason =
                "simctl check moves the store of each case itself; requests that change the store are not available "
                + "during check (reads answer from the running case's store)"
            let simulator: SimulatorServer
            do throws(ServerSetupError) {
                simulator = try SimulatorServer(
                    configuration: configuration, log: write)
            } catch {
                return .failure(CommandOutput(stdout: "", stderr: "\(error)\n", exitCode: ExitCode.dataError))
            }
            let http: HTTPServer
            do {
                http = try HTTPServer(
                    configuration: HTTPServerConfiguration(host: options.host, port: UInt16(options.port ?? 0)),
                    log: { entry in
                        if entry.status == nil || entry.reason != nil { log?.write("http: " + entry.line) }
                    },
                    handler: { simulator.handle(http: $0) })
            } catch {
                return .failure(CommandOutput(stdout: "", stderr: "error: \(error)\n", exitCode: ExitCode.unavailable))
            }
            http.start()
            log?.write("serving the App Store Server API of each case of simctl check at \(http.url)")
            return .success(APIServer(simulator: simulator, http: http, log: log))
        }

        func stop() {
            http.stop(graceSeconds: 1)
            log?.write("stopped")
            log?.close()
        }
    }

    /// `--replay FILE`: runs the file as one case.
    static func replay(_ scenario: Scenario, _ options: CheckCommandOptions, _ backend: CheckedBackend)
        -> CommandOutput
    {
        let result = CaseRunner.run(scenario, against: backend, epoch: options.epoch)
        let counts =
            "\(result.notifications) notifications, \(result.deliveries) deliveries, \(result.checkpoints) checkpoints"
        switch result.outcome {
        case .agrees:
            return CommandOutput(
                stdout: "check --replay: \(options.file) agrees with the store: \(counts)\n", stderr: "", exitCode: 0)
        case .diverges(let divergence):
            return CommandOutput(
                stdout: "check --replay: \(options.file) still diverges: \(counts)\n\(divergence)\n", stderr: "",
                exitCode: ExitCode.expectationFailed)
        case .cannotJudge(let message):
            return CommandOutput(
                stdout: "", stderr: "check --replay: the backend cannot be judged: \(message)\n",
                exitCode: ExitCode.cannotJudge)
        case .invalid(let message):
            return CommandOutput(stdout: "", stderr: "\(message)\n", exitCode: ExitCode.dataError)
        }
    }

    /// Generates and runs the cases; writes the counterexample and the JUnit file.
    static func check(
        _ scenario: Scenario, _ options: CheckCommandOptions, _ backend: CheckedBackend,
        progress: ((String) -> Void)?
    ) -> (output: CommandOutput, nextEpoch: UInt32?) {
        var checkOptions = CheckOptions(
            cases: options.cases, seed: options.seed, chaos: options.chaos, shrinks: options.shrinks,
            epoch: options.epoch ?? 0)
        checkOptions.keepGoing = options.keepGoing
        switch vocabulary(options) {
        case .failure(let output): return (output, nil)
        case .success(let choice): checkOptions.vocabulary = choice
        }
        var check = BackendCheck(scenario: scenario, options: checkOptions)
        let clock = ContinuousClock()
        let started = clock.now
        if let limit = options.maxTimeMilliseconds {
            check.shouldContinue = { started.duration(to: clock.now) < .milliseconds(limit) }
        }
        if let progress {
            check.progress = { event in
                switch event {
                case .caseDone(let done, let total, let notifications):
                    progress("\rcase \(done)/\(total), \(notifications) notifications delivered")
                case .shrinkStep(let steps):
                    progress("\rshrinking: \(steps) step\(steps == 1 ? "" : "s")          ")
                case .classShrinking(let number, let total):
                    progress("\nshrinking class \(number) of \(total)\n")
                }
            }
        }
        let report: CheckReport
        do throws(CheckError) { report = try check.run(against: backend) } catch {
            return (CommandOutput(stdout: "", stderr: "error: \(error)\n", exitCode: ExitCode.dataError), nil)
        }
        progress?("\n")
        let elapsed = started.duration(to: clock.now).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        var stdout = report.description + "\n"
        if !report.keepGoing {
            if report.tolerated > 0 {
                stdout += "tolerated: \(report.tolerated) answers matched the truth of less than the tolerance ago\n"
            }
            if report.acceptedRefusals > 0 {
                stdout += "accepted refusals: \(report.acceptedRefusals) attempts (--accept-status)\n"
            }
        }
        var stderr = String(format: "check: %.1f s of wall clock\n", seconds)
        var exitCode = ExitCode.success
        let directory = URL(fileURLWithPath: options.outDirectory)
        switch report.verdict {
        case .agrees: break
        case .cannotJudge: exitCode = ExitCode.cannotJudge
        case .diverges: exitCode = ExitCode.expectationFailed
        }
        do {
            if report.keepGoing, !report.findings.isEmpty || exitCode == ExitCode.success {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for finding in report.findings {
                    let example = finding.counterexample
                    try Data(example.yaml.utf8).write(
                        to: directory.appendingPathComponent("counterexample-\(finding.number).yaml"))
                    try Data(example.jsonl.utf8).write(
                        to: directory.appendingPathComponent("counterexample-\(finding.number).jsonl"))
                }
                try report.summaryJSON(seconds: seconds).write(to: directory.appendingPathComponent("summary.json"))
                stdout +=
                    "\n"
                    + (report.findings.isEmpty
                        ? "" : "counterexample-1 to -\(report.findings.count) (.yaml, .jsonl) and ")
                    + "summary.json written to \(directory.path)\n"
            } else if case .diverges(let counterexample) = report.verdict {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try Data(counterexample.yaml.utf8).write(to: directory.appendingPathComponent("counterexample.yaml"))
                try Data(counterexample.jsonl.utf8).write(to: directory.appendingPathComponent("counterexample.jsonl"))
                stdout +=
                    "counterexample written to \(directory.appendingPathComponent("counterexample.yaml").path) and "
                    + "counterexample.jsonl\n"
            }
        } catch {
            return (
                CommandOutput(
                    stdout: stdout,
                    stderr: stderr + "error: cannot write the counterexample to '\(options.outDirectory)': "
                        + "\(error.localizedDescription)\n", exitCode: ExitCode.cannotCreate), report.nextEpoch
            )
        }
        if let junit = options.junit {
            let xml = report.keepGoing ? report.junitClassesXML(seconds: seconds) : report.junitXML(seconds: seconds)
            do { try Data(xml.utf8).write(to: URL(fileURLWithPath: junit)) } catch {
                stderr += "error: cannot write the JUnit file '\(junit)': \(error.localizedDescription)\n"
                return (
                    CommandOutput(stdout: stdout, stderr: stderr, exitCode: ExitCode.cannotCreate), report.nextEpoch
                )
            }
        }
        return (CommandOutput(stdout: stdout, stderr: stderr, exitCode: exitCode), report.nextEpoch)
    }

    /// `--actions`, `--without` and `--weights FILE` as the library's choice; nil when none is given (the cases
    /// every seed always drew).
    static func vocabulary(_ options: CheckCommandOptions) -> Result<VocabularyChoice?, CommandOutput> {
        var choice = VocabularyChoice(only: options.onlyActions, without: options.withoutActions)
        if let file = options.weightsFile {
            switch Simctl.read(file) {
            case .failure(let output): return .failure(output)
            case .success(let text):
                do throws(ScenarioError) { choice.weights = try VocabularyChoice.weights(from: text, file: file) } catch
                {
                    return .failure(CommandOutput(stdout: "", stderr: "\(error)\n", exitCode: ExitCode.dataError))
                }
            }
        }
        if choice == VocabularyChoice() { return .success(nil) }
        return .success(choice)
    }
}

extension ExitCode {
    /// `simctl check`: the backend cannot be judged.
    package static let cannotJudge: Int32 = 2
}
