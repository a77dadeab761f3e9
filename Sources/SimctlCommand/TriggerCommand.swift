import Foundation
import SubscriptionSimulator

/// `simctl trigger KIND [--deliver URL] [options]`: one notification of a kind, from the smallest lifecycle that ends
/// in it (``TriggerLifecycles``), printed as its `run --format jsonl` line or POSTed as `run --deliver` does.
package struct TriggerOptionsLine: Equatable, Sendable {
    package enum Mode: Equatable, Sendable {
        case list
        case printScenario
        case emit
    }

    package var kind: String?
    package var mode: Mode = .emit
    package var all = false
    package var tamper = false
    package var format: OutputFormat = .jsonl
    package var scenarioFile: String?
    package var trigger = TriggerOptions()
    /// `--environment`, `--ca-seed`, `--signing-chain`: the signing options every command that signs takes
    /// (``SigningOptions``).
    package var signing = SigningOptions()
    package var delivery: DeliveryOptions?
    /// Issue 47: `--map-product OLD=NEW` with `--scenario FILE` (IdentityOptions.swift; trigger's own `--bundle-id`,
    /// `--app-apple-id` and `--product` give the built-in catalogue the backend's ids).
    package var identity = IdentityOptions()

    /// What the command line gave, before the options are checked together.
    struct ParseState: Sendable {
        var options = TriggerOptionsLine()
        var delivery = DeliveryOptions.Builder(topic: "trigger")
    }

    /// A value option of the trigger itself, checked and stored by `apply`.
    static func option(
        _ name: String, _ placeholder: String, _ summary: String,
        _ apply: @escaping @Sendable (inout TriggerOptionsLine, String) throws(UsageError) -> Void
    ) -> OptionDeclaration<ParseState> {
        option(name, placeholder, .text, summary, apply)
    }

    static func option(
        _ name: String, _ placeholder: String, _ value: OptionValue, _ summary: String,
        _ apply: @escaping @Sendable (inout TriggerOptionsLine, String) throws(UsageError) -> Void
    ) -> OptionDeclaration<ParseState> {
        .value(name, placeholder, value, summary) { (state: inout ParseState, text: String) throws(UsageError) in
            try apply(&state.options, text)
        }
    }

    static let ownOptions: [OptionDeclaration<ParseState>] = [
        .flag("--list", "every kind, with the lifecycle behind it") { state in state.options.mode = .list },
        .flag("--print-scenario", "print the lifecycle as a scenario file") { state in
            state.options.mode = .printScenario
        }
        .help("print the lifecycle as a scenario file: 'simctl run' of it sends the same notification"),
        .flag("--all", "the whole lifecycle, not only its last notification") { state in state.options.all = true },
        .flag("--tamper", "the notification with its payload changed after signing") { state in
            state.options.tamper = true
        }
        .help(
            "the notification with its payload changed after signing (the altered-payload fixture of 'simctl certs "
                + "negative-fixtures'): a verifying endpoint must refuse it. With --deliver, exit code 0 when it was "
                + "refused, 3 when it was accepted"),
        option("--format", "FORMAT", .choices(["jsonl", "decoded"]), "jsonl (default) or decoded") {
            (options: inout TriggerOptionsLine, text: String) throws(UsageError) in
            guard let format = OutputFormat(rawValue: text), format == .jsonl || format == .decoded else {
                throw UsageError(
                    message: "option '--format' is jsonl or decoded, found '\(text)'"
                        + ArgumentParser.hint(text, ["jsonl", "decoded"]), topic: "trigger")
            }
            options.format = format
        }
        .help(
            "",
            values: [
                HelpRow("jsonl", "(default) the notification as its line of 'simctl run --format jsonl'"),
                HelpRow("decoded", "the decoded line (recipient, instant, payload with its nested JWS decoded)"),
            ]),
        option("--bundle-id", "ID", "the app's bundle id") {
            (options: inout TriggerOptionsLine, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--bundle-id' needs a bundle id", topic: "trigger")
            }
            options.trigger.bundleId = text
        }
        .help("the app's bundleId (default com.example.app)"),
        option("--app-apple-id", "N", "the app's Apple id") {
            (options: inout TriggerOptionsLine, text: String) throws(UsageError) in
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let id = Int64(text), id > 0 else {
                throw UsageError(
                    message: "option '--app-apple-id' needs a positive whole number, found '\(text)'",
                    topic: "trigger")
            }
            options.trigger.appAppleId = id
        }
        .help("the app's appAppleId (default 1234567890; Sandbox payloads omit it)"),
        option("--product", "ID", "the product's id") {
            (options: inout TriggerOptionsLine, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--product' needs a product id", topic: "trigger")
            }
            options.trigger.product = text
        }
        .help(
            "the product's id (default com.example.app.monthly; com.example.app.coins for ONE_TIME_CHARGE); with "
                + "--scenario, the product of its catalogue to use"),
        option("--customer", "NAME", "the customer's name") {
            (options: inout TriggerOptionsLine, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--customer' needs a name", topic: "trigger")
            }
            options.trigger.customer = text
        }
        .help("the customer the notification is about (default alice)"),
        option("--storefront", "CODE", "the storefront") { options, text in options.trigger.storefront = text }
            .help("the customer's storefront (ISO 3166-1 alpha-3, such as FRA)"),
        option("--seed", "N", "the seed") { (options: inout TriggerOptionsLine, text: String) throws(UsageError) in
            options.trigger.seed = try ArgumentParser.seed(text, topic: "trigger")
        }
        .help("the seed of ids and UUIDs (default 0)"),
        option("--scenario", "FILE", .file, "the lifecycle on this scenario's app and catalogue") {
            (options: inout TriggerOptionsLine, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--scenario' needs a scenario file", topic: "trigger")
            }
            options.scenarioFile = text
        }
        .help("take the app and the catalogue from a scenario file"),
        IdentityOptions.mapProduct(topic: "trigger").lifted(\ParseState.options.identity)
            .help("with --scenario: rename its product OLD to NEW (repeatable, or a comma-separated list)"),
    ]

    static var options: [OptionDeclaration<ParseState>] {
        var all = ownOptions
        // The signing options, as every command that signs takes them; the environment is the trigger's too.
        for signing in SigningOptions.declarations(topic: "trigger") {
            var option = signing.lifted(\ParseState.options.signing)
            let apply = option.apply
            option.apply = { (state: inout ParseState, text: String) throws(UsageError) in
                try apply(&state, text)
                state.options.trigger.environment =
                    state.options.signing.environment ?? state.options.trigger.environment
            }
            all.append(option)
        }
        all += DeliveryOptions.declarations().map { $0.lifted(\ParseState.delivery) }
        return all
    }

    static let command = CommandDeclaration<ParseState>(
        name: "trigger", topic: "trigger", summary: "Send or print one signed notification of a kind",
        positional: "KIND", positionalValue: .choices(TriggerLifecycles.kinds), options: options,
        groups: [SigningOptions.exclusive],
        argument: { (state: inout ParseState, argument: String) throws(UsageError) in
            if let kind = state.options.kind {
                throw UsageError(
                    message: "'trigger' takes one notification kind; found '\(kind)' and '\(argument)'",
                    topic: "trigger")
            }
            state.options.kind = argument
        },
        page: HelpPage(
            forms: ["trigger --list", "trigger KIND --print-scenario [options]"],
            about: [
                .paragraph(
                    "Runs the smallest lifecycle that ends in a notification of KIND (a notificationType with an "
                        + "optional subtype: REFUND, DID_FAIL_TO_RENEW/GRACE_PERIOD, SUBSCRIBED/RESUBSCRIBE, ...; any "
                        + "case) on a built-in app (com.example.app, appAppleId 1234567890, Sandbox) and catalogue, and "
                        + "prints that notification as its line of 'simctl run --format jsonl', or POSTs it to URL as "
                        + "'simctl run --deliver' does. --environment is the app's environment too: Sandbox (the "
                        + "default) is signed by the test chain of 'simctl certs export'; LocalTesting and Xcode carry "
                        + "unsigned placeholders.")
            ],
            examples: [
                "trigger --list",
                "trigger REFUND --format decoded",
                "trigger DID_FAIL_TO_RENEW/GRACE_PERIOD --deliver http://127.0.0.1:8080/asn",
            ]))

    static func parse(_ arguments: [String]) throws(UsageError) -> TriggerOptionsLine {
        var state = ParseState()
        try OptionParser.parse(arguments, command, into: &state)
        var options = state.options
        let delivery = state.delivery
        options.delivery = try delivery.build()
        if !options.identity.products.isEmpty && options.scenarioFile == nil {
            throw UsageError(
                message: "option '--map-product' maps a scenario's products: give '--scenario FILE' (the built-in "
                    + "catalogue takes '--product ID')", topic: "trigger")
        }
        if options.mode == .list {
            if let kind = options.kind {
                throw UsageError(message: "'--list' takes no notification kind; found '\(kind)'", topic: "trigger")
            }
            return options
        }
        guard options.kind != nil else {
            throw UsageError(
                message: "'trigger' needs a notification kind such as REFUND (simctl trigger --list shows every kind)",
                topic: "trigger")
        }
        if options.mode == .printScenario, options.delivery != nil || options.all || options.tamper {
            throw UsageError(
                message: "'--print-scenario' prints the scenario only; drop '--deliver', '--all' and '--tamper'",
                topic: "trigger")
        }
        if options.tamper {
            if options.all {
                throw UsageError(message: "'--tamper' sends one notification; drop '--all'", topic: "trigger")
            }
            if options.signing.chainDirectory != nil {
                throw UsageError(
                    message: "'--tamper' builds its fixtures from a generated chain: use '--ca-seed', not "
                        + "'--signing-chain'", topic: "trigger")
            }
        }
        if options.delivery != nil && options.format != .jsonl {
            throw UsageError(message: "'--deliver' sends POST bodies; drop '--format'", topic: "trigger")
        }
        return options
    }
}

extension Simctl {
    /// `simctl trigger`.
    static func trigger(_ options: TriggerOptionsLine) -> CommandOutput {
        if options.mode == .list { return CommandOutput(stdout: triggerList(), stderr: "", exitCode: 0) }
        let lifecycle: TriggerLifecycles.Lifecycle
        do throws(TriggerError) { lifecycle = try TriggerLifecycles.lifecycle(named: options.kind!) } catch {
            return usageFailure(UsageError(message: error.message, topic: "trigger"))
        }
        var base: Scenario?
        if let file = options.scenarioFile {
            switch decode(file) {
            case .failure(let output): return output
            case .success(let scenario):
                switch options.identity.applied(to: scenario, topic: "trigger") {
                case .failure(let output): return output
                case .success(let mapped): base = mapped
                }
            }
        }
        let made: TriggerScenario
        do throws(TriggerError) {
            made = try TriggerScenario.make(lifecycle, options: options.trigger, base: base)
        } catch {
            return CommandOutput(stdout: "", stderr: "error: \(error.message)\n", exitCode: ExitCode.dataError)
        }
        if options.mode == .printScenario { return CommandOutput(stdout: made.yaml, stderr: "", exitCode: 0) }
        let signer: (any PayloadSigner)?
        switch options.signing.signer() {
        case .failure(let output): return output
        case .success(let value): signer = value
        }
        let run: ScenarioRun
        do throws(ScenarioError) { run = try ScenarioRunner.run(made.scenario) } catch {
            return CommandOutput(stdout: "", stderr: "\(error)\n", exitCode: ExitCode.dataError)
        }
        let notifications = run.store.notifications
        guard
            let chosen = TriggerScenario.chosenIndex(lifecycle, in: notifications, customer: options.trigger.customer)
        else {
            return CommandOutput(
                stdout: "", stderr: "error: the lifecycle sent no \(lifecycle.kind)\n", exitCode: ExitCode.dataError)
        }
        var items = DeliveryItem.items(of: run.store, signer: signer)
        if options.tamper {
            let app = run.scenario.app
            guard app.environment == .sandbox || app.environment == .production else {
                return CommandOutput(
                    stdout: "",
                    stderr:
                        "error: '--tamper' needs environment Sandbox or Production (Apple's libraries verify no "
                        + "signature in \(app.environment.rawValue))\n", exitCode: ExitCode.usage)
            }
            let fixtures = NegativeFixtures.make(
                for: notifications[chosen], app: app, caSeed: options.signing.caSeed ?? SigningChain.defaultCASeed)
            guard let altered = fixtures.first(where: { $0.name == "altered-payload" }) else {
                preconditionFailure("NegativeFixtures makes altered-payload")
            }
            items = [
                DeliveryItem(
                    notificationUUID: items[chosen].notificationUUID, recipient: items[chosen].recipient,
                    instant: items[chosen].instant, notificationType: items[chosen].notificationType,
                    subtype: items[chosen].subtype, body: altered.postBody)
            ]
        } else if !options.all {
            items = [items[chosen]]
        }
        guard let delivery = options.delivery else {
            if options.format == .decoded {
                let lines = RunOutput.decoded(run).split(separator: "\n", omittingEmptySubsequences: false)
                let text = options.all ? RunOutput.decoded(run) : lines[chosen] + "\n"
                return CommandOutput(stdout: String(text), stderr: "", exitCode: 0)
            }
            // The bodies are the lines of `run --format jsonl` (DeliveryItem.body).
            return CommandOutput(stdout: items.map { $0.body + "\n" }.joined(), stderr: "", exitCode: 0)
        }
        var output = deliver(items, options: delivery, seed: run.scenario.seed, topic: "trigger")
        if options.tamper && output.exitCode == ExitCode.success {
            output.stderr +=
                "warning: your endpoint accepted a notification whose payload was changed after signing "
                + "(altered-payload, which Apple's SignedDataVerifier refuses with VERIFICATION_FAILURE): is "
                + "your verifier on, with the environment \(run.scenario.app.environment.rawValue)?\n"
            output.exitCode = ExitCode.tamperedAccepted
        } else if options.tamper && output.exitCode == ExitCode.undelivered {
            output.stderr += "the tampered notification was refused, as a verifying endpoint should\n"
            output.exitCode = ExitCode.success
        }
        return output
    }

    /// `simctl trigger --list`: every kind with its lifecycle.
    static func triggerList() -> String {
        let width = TriggerLifecycles.kinds.map(\.count).max() ?? 0
        return TriggerLifecycles.all.map {
            $0.kind + String(repeating: " ", count: width - $0.kind.count + 2) + $0.summary + "\n"
        }.joined()
    }

    /// Delivers encoded notifications as `run --deliver` does (the one pump, ``DeliveryPlan/deliver(_:seed:)``):
    /// the summary on standard error, exit code 2 when one is still undelivered.
    static func deliver(_ items: [DeliveryItem], options: DeliveryOptions, seed: UInt64, topic: String)
        -> CommandOutput
    {
        let connection: DeliveryConnection
        switch DeliveryConnection.open(options) {
        case .failure(let error):
            return usageFailure(UsageError(message: error.message, topic: topic))
        case .success(let opened): connection = opened
        }
        defer { connection.close() }
        let plan = DeliveryPlan(
            transport: connection.transport, mode: options.mode, chaos: options.chaos,
            log: options.logFile.map { FileDeliveryLog(path: $0) })
        switch plan.deliver(items, seed: seed) {
        case .logFailed(let error):
            return CommandOutput(stdout: "", stderr: "error: \(error)\n", exitCode: ExitCode.cannotCreate)
        case .delivered(let summary), .cutShort(let summary, _):
            let text = DeliveryOptions.summary(
                summary, destination: connection.transport.destination, mode: options.mode)
            return CommandOutput(
                stdout: "", stderr: text, exitCode: summary.allDelivered ? ExitCode.success : ExitCode.undelivered)
        }
    }
}

extension ExitCode {
    /// `trigger --tamper --deliver`: the endpoint accepted a notification that fails verification.
    package static let tamperedAccepted: Int32 = 3
}
