import Foundation
import SimctlCrypto
import SimctlHTTP
import SimctlHTTPDelivery
import SimctlServer
import SubscriptionSimulator

/// `simctl serve FILE`: the scenario's store behind a local App Store Server API and a control API (docs/server.md).
package struct ServeOptions: Equatable, Sendable {
    package var file: String
    package var host = "127.0.0.1"
    package var port: UInt16 = 0
    package var seed: UInt64?
    package var start: String?
    /// `--environment`, `--ca-seed`, `--signing-chain` (SigningOptions.swift).
    package var signing = SigningOptions()
    /// Replaces the scenario's `app.environment` (``SigningOptions/environment``).
    package var environment: SimulatedEnvironment? {
        get { signing.environment }
        set { signing.environment = newValue }
    }
    package var delivery: DeliveryOptions?
    /// `--api-key-pem FILE`: bearer tokens must be signed with this key (a public key, or the private key, PEM).
    package var apiKeyPEM: String?
    /// `--log FILE`: the readable log (default: standard error).
    package var logFile: String?
    /// `--epoch N`: the store's epoch at start (its identities; 0 gives the usual ids and UUIDs); nil: the file's
    /// `epoch:` (0 when it has none).
    package var epoch: UInt32?
    /// Issue 47: `--bundle-id`, `--app-apple-id`, `--map-product` (IdentityOptions.swift).
    package var identity = IdentityOptions()
    // --- issue 48: the dashboard's browser safety ---
    /// `--allow-host NAME[,NAME...]` (repeatable): more names `Host` may carry on the dashboard and `/simctl/`
    /// (``ServeCommand/allowHost(_:)``).
    package var allowHosts: [String] = []
    // --- end issue 48 ---
    /// `--realtime-url URL` (Retention Messaging): the Get Retention Message endpoint at start, as if configured with
    /// Configure Realtime URL (no performance test needed).
    package var realtimeURL: String?

    package init(file: String) { self.file = file }
}

enum ServeCommand {
    /// What the command line gave, before the delivery options are checked together.
    struct ParseState: Sendable {
        var options = ServeOptions(file: "")
        var delivery = DeliveryOptions.Builder(topic: "serve")
        var file: String?
    }

    static func option(
        _ name: String, _ placeholder: String, _ value: OptionValue, repeatable: Bool = false,
        environment: String? = nil, _ summary: String,
        _ apply: @escaping @Sendable (inout ServeOptions, String) throws(UsageError) -> Void
    ) -> OptionDeclaration<ParseState> {
        .value(name, placeholder, value, repeatable: repeatable, environment: environment, summary) {
            (state: inout ParseState, text: String) throws(UsageError) in try apply(&state.options, text)
        }
    }

    static func option(
        _ name: String, _ placeholder: String, repeatable: Bool = false, environment: String? = nil,
        _ summary: String, _ apply: @escaping @Sendable (inout ServeOptions, String) throws(UsageError) -> Void
    ) -> OptionDeclaration<ParseState> {
        option(name, placeholder, .text, repeatable: repeatable, environment: environment, summary, apply)
    }

    /// The variables of the shared options (ServeEnvironment.swift).
    static let sharedVariables = ["--environment": "SIMCTL_ENVIRONMENT", "--deliver": "SIMCTL_DELIVER"]

    /// `serve`'s options; the order is the order the environment's variables are added in (ServeEnvironment).
    static let firstOptions: [OptionDeclaration<ParseState>] = [
        option("--host", "ADDR", environment: "SIMCTL_HOST", "address to listen on (default 127.0.0.1)") {
            (options: inout ServeOptions, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--host' needs an address", topic: "serve")
            }
            options.host = text
        }
        .help("address to listen on (default 127.0.0.1; give another only on purpose)"),
        option("--port", "N", environment: "SIMCTL_PORT", "port to listen on (default 0: a free port)") {
            (options: inout ServeOptions, text: String) throws(UsageError) in
            guard text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = UInt16(text) else {
                throw UsageError(
                    message: "option '--port' needs a port number from 0 to 65535 (0: any free port), found "
                        + "'\(SourceText.escapingControlCharacters(text))'", topic: "serve")
            }
            options.port = port
        }
        .help("port to listen on (default 0: a free port, see the first line of output)"),
        option("--seed", "N", environment: "SIMCTL_SEED", "use seed N instead of the scenario's seed") {
            (options: inout ServeOptions, text: String) throws(UsageError) in
            options.seed = try ArgumentParser.seed(text, topic: "serve")
        }
        .help("use seed N instead of the scenario's `seed` (as 'simctl run' does)"),
        option("--start", "now|INSTANT", environment: "SIMCTL_START", "use this start instead of the scenario's start")
        {
            (options: inout ServeOptions, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--start' needs `now` or an ISO 8601 instant", topic: "serve")
            }
            options.start = text
        }
        .help(
            "use this start instead of the scenario's `start`: `now` or an ISO 8601 UTC instant (as 'simctl run' does)"),
    ]

    static let lastOptions: [OptionDeclaration<ParseState>] = [
        option(
            "--api-key-pem", "FILE", .file, environment: "SIMCTL_API_KEY_PEM_FILE",
            "check bearer tokens' signatures against this key"
        ) { (options: inout ServeOptions, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--api-key-pem' needs a file", topic: "serve")
            }
            options.apiKeyPEM = text
        }
        .help(
            "check each bearer token's ES256 signature against this key (a PEM public key, or the .p8 private key); "
                + "without it only the token's form and claims are checked (the token's rules, and the 401 naming the "
                + "rule broken: docs/server.md, \"Bearer tokens\")"),
        option("--log", "FILE", .file, environment: "SIMCTL_LOG", "write the log to FILE") {
            (options: inout ServeOptions, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--log' needs a file path", topic: "serve")
            }
            options.logFile = text
        }
        .help("write the log (every request and answer, every delivery attempt) to FILE instead of standard error"),
        option("--epoch", "N", "start at epoch N") {
            (options: inout ServeOptions, text: String) throws(UsageError) in
            guard !text.isEmpty, text.count <= 10, text.allSatisfy({ $0.isASCII && $0.isNumber }),
                let epoch = UInt32(text)
            else {
                throw UsageError(
                    message: "option '--epoch' needs a whole number from 0 to \(UInt32.max), found "
                        + "'\(SourceText.escapingControlCharacters(text))'", topic: "serve")
            }
            options.epoch = epoch
        }
        .help(
            "start at epoch N (0 to 4294967295; default: the file's epoch:, else 0): every id and UUID the store "
                + "derives changes with the epoch; POST /simctl/v1/reset moves to the next one"),
        option(
            "--allow-host", "NAME", repeatable: true, environment: "SIMCTL_ALLOW_HOST",
            "names under which browsers may reach the dashboard"
        ) { (options: inout ServeOptions, text: String) throws(UsageError) in
            options.allowHosts += try allowHost(text)
        }
        .help(
            "a name (or several, comma-separated; repeatable) under which browsers may reach the dashboard and "
                + "/simctl/ besides the listen address, loopback names and IP addresses (the Host check against DNS "
                + "rebinding; docs/server.md, \"Browser safety\"); Apple's /inApps/ routes take any Host"),
    ]

    static var options: [OptionDeclaration<ParseState>] {
        var all = firstOptions
        for signing in SigningOptions.declarations(topic: "serve") {
            var option = signing.lifted(\ParseState.options.signing)
            option.environment = sharedVariables[option.name]
            all.append(option)
        }
        for delivery in DeliveryOptions.declarations(DeliveryOptions.names.filter { $0 != "--delivery-log" }) {
            var option = delivery.lifted(\ParseState.delivery)
            option.environment = sharedVariables[option.name]
            all.append(option)
        }
        all += lastOptions
        all += IdentityOptions.declarations(topic: "serve").map { $0.lifted(\ParseState.options.identity) }
        all.append(realtimeOption)
        return all
    }

    static let realtimeOption: OptionDeclaration<ParseState> =
        option("--realtime-url", "URL", .url, "Retention Messaging: the Get Retention Message endpoint") {
            (options: inout ServeOptions, text: String) throws(UsageError) in
            options.realtimeURL = try realtimeURL(text)
        }
        .help(
            "Retention Messaging: the Get Retention Message endpoint (http://, at most 256 characters) at start, as if "
                + "set with Configure Realtime URL; viewCancellation actions POST their signed realtime request there "
                + "(docs/server.md, \"Retention Messaging\")")

    static let command = CommandDeclaration<ParseState>(
        name: "serve", topic: "serve",
        summary: "Serve a scenario's store: a local App Store Server API and a control API",
        positional: "FILE", positionalValue: .file, options: options,
        groups: [SigningOptions.exclusive],
        argument: { (state: inout ParseState, argument: String) throws(UsageError) in
            try ArgumentParser.scenarioFile(&state.file, argument, command: "serve")
        },
        page: HelpPage(
            about: [
                .paragraph(
                    "Serves the scenario FILE's store over HTTP until SIGINT or SIGTERM (then exits 0): the App Store "
                        + "Server API on Apple's paths (/inApps/...), and a control API under /simctl/v1/ that advances "
                        + "the virtual clock, performs timeline actions, reads the state and resets (docs/server.md, "
                        + "docs/server-control.openapi.yaml). The store starts at the scenario's `start` with its "
                        + "catalogue, customers and family; the scenario's timeline entries run as the clock passes "
                        + "them (`timeline: []` starts an empty store)."),
                .paragraph(
                    "The first line of standard output is the server's URL, e.g. http://127.0.0.1:49152. "
                        + "Notifications due at the scenario's start are delivered after it is printed, so a webhook "
                        + "can already call the server back. With --deliver, Request a Test Notification sends there "
                        + "too."),
            ],
            notes: [
                .paragraph(
                    "GET / (or /simctl/v1/ui) in a browser is the dashboard: the clock, customers, notifications, "
                        + "deliveries and the picture, with forms for every action (docs/server.md, \"The "
                        + "dashboard\")."),
                .paragraph(
                    "GET /simctl/v1/health answers {\"status\":\"ok\"} once the server listens. Listening beyond "
                        + "loopback prints a warning: the control API has no authentication (docs/install.md)."),
            ],
            examples: ["serve Scenarios/family-stop-sharing.yaml --port 8080"],
            environment: [
                HelpRow(ServeEnvironment.scenario, "the scenario FILE"),
                HelpRow(
                    ServeEnvironment.apiKeyPEM,
                    "the key's PEM text itself (--api-key-pem and SIMCTL_API_KEY_PEM_FILE win over it)"),
            ]))

    static func parse(_ arguments: [String]) throws(UsageError) -> ServeOptions {
        var state = ParseState()
        try OptionParser.parse(arguments, command, into: &state)
        var options = state.options
        let (file, delivery) = (state.file, state.delivery)
        guard let file else {
            throw UsageError(message: "'serve' needs a scenario file (or SIMCTL_SCENARIO)", topic: "serve")
        }
        options.file = file
        do throws(UsageError) { options.delivery = try delivery.build() } catch {
            throw UsageError(message: error.message, topic: "serve")
        }
        return options
    }

    // --- issue 48: --allow-host ---
    /// `--allow-host`, repeatable (each occurrence adds its names).

    /// The names of one `--allow-host` value: comma-separated host names (letters, digits, `.`, `-`, `_`; at most 253
    /// characters each) or IPv6 addresses in brackets.
    static func allowHost(_ text: String) throws(UsageError) -> [String] {
        var names: [String] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces)
            let valid =
                !name.isEmpty && name.count <= 253
                && (name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
                    || (name.hasPrefix("[") && name.hasSuffix("]")
                        && name.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }))
            guard valid else {
                throw UsageError(
                    message: "option '--allow-host' needs host names such as simctl or api.test.internal "
                        + "(comma-separated; no scheme, port or path), found "
                        + "'\(SourceText.escapingControlCharacters(String(part)))'", topic: "serve")
            }
            names.append(name)
        }
        return names
    }
    // --- end issue 48 ---

    // MARK: Retention Messaging options (issue 50; kept apart for the option tables)

    /// `--realtime-url URL`'s check (rule retention-realtime-url).
    static func realtimeURL(_ text: String) throws(UsageError) -> String {
        guard RetentionMessaging.isRealtimeURL(text) else {
            throw UsageError(
                message: "option '--realtime-url' needs an http:// or https:// URL of at most "
                    + "\(RetentionMessaging.maximumRealtimeURL) characters, found "
                    + "'\(SourceText.escapingControlCharacters(String(text.prefix(300))))'", topic: "serve")
        }
        return text
    }

    /// The public key `--api-key-pem` names: a `PUBLIC KEY` PEM, or a private key PEM (App Store Connect's `.p8`).
    static func apiKey(_ text: String, file: String) -> Result<P256.PublicKey, CommandOutput> {
        if let block = try? PEM.decodeSingle(text, labels: ["PUBLIC KEY"]),
            let key = try? ECKeyEncoding.publicKey(subjectPublicKeyInfoDER: block.derBytes)
        {
            return .success(key)
        }
        if let key = try? ECKeyEncoding.privateKey(pem: text) { return .success(key.publicKey) }
        return .failure(
            CommandOutput(
                stdout: "",
                stderr: "\(file): error: expected a P-256 public key (PEM 'PUBLIC KEY') or private key "
                    + "(PEM 'PRIVATE KEY' or 'EC PRIVATE KEY')\n", exitCode: ExitCode.dataError))
    }

    /// Runs until SIGINT or SIGTERM. Writes the URL as the first line of standard output as soon as the server
    /// listens; returns the exit code and what is left to print.
    /// `environment`: the process's variables; ``ServeEnvironment`` turns the `SIMCTL_*` ones into options.
    static func main(
        _ arguments: [String], clock: @escaping @Sendable () -> Instant,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> CommandOutput {
        Simctl.main(["serve"] + arguments, clock: clock, environment: environment)
    }

    /// Runs `simctl serve` with its parsed options (``ServeEnvironment`` already applied).
    static func run(_ options: ServeOptions, keyFromEnvironment: String?, clock: @Sendable () -> Instant)
        -> CommandOutput
    {
        var start: Instant?
        if let text = options.start {
            switch Simctl.startInstant(text, clock: clock) {
            case .failure(let output): return output
            case .success(let instant): start = instant
            }
        }
        var scenario: Scenario
        switch Simctl.decode(
            options.file,
            overrides: ScenarioOverrides(seed: options.seed, start: start, environment: options.environment))
        {
        case .failure(let output): return output
        case .success(let decoded): scenario = decoded
        }
        switch options.identity.applied(to: scenario, topic: "serve") {
        case .failure(let output): return output
        case .success(let mapped): scenario = mapped
        }
        let signer: (any PayloadSigner)?
        switch options.signing.signer() {
        case .failure(let output): return output
        case .success(let value): signer = value
        }
        var publicKey: P256.PublicKey?
        if let text = keyFromEnvironment {
            switch apiKey(text, file: ServeEnvironment.apiKeyPEM) {
            case .failure(let output): return output
            case .success(let key): publicKey = key
            }
        } else if let path = options.apiKeyPEM {
            switch Simctl.read(path) {
            case .failure(let output): return output
            case .success(let text):
                switch apiKey(text, file: path) {
                case .failure(let output): return output
                case .success(let key): publicKey = key
                }
            }
        }
        let log: ServeLog
        do { log = try ServeLog(path: options.logFile) } catch {
            return CommandOutput(
                stdout: "", stderr: "error: cannot write the log '\(options.logFile ?? "")'\n",
                exitCode: ExitCode.cannotCreate)
        }
        // Before any thread starts, so every thread leaves SIGINT and SIGTERM to the waiting one.
        ShutdownSignals.block()
        let connection = options.delivery.flatMap { try? DeliveryConnection.open($0).get() }
        defer { connection?.close() }
        let transport = connection?.transport
        var configuration = ServerConfiguration(
            scenario: scenario, signer: signer, deliveryMode: options.delivery?.mode ?? .production,
            chaos: options.delivery?.chaos ?? .none,
            token: BearerTokenPolicy(
                bundleId: scenario.app.bundleId, publicKey: publicKey,
                clock: { Int64(Date().timeIntervalSince1970) }), epoch: options.epoch ?? scenario.epoch)
        configuration.listenHost = options.host
        configuration.allowedHosts = options.allowHosts
        configuration.realtime = HTTPRealtimeTransport()
        configuration.realtimeURL = options.realtimeURL
        let simulator: SimulatorServer
        do throws(ServerSetupError) {
            simulator = try SimulatorServer(
                configuration: configuration, transport: transport, log: { log.write($0) })
        } catch {
            return CommandOutput(stdout: "", stderr: "\(error)\n", exitCode: ExitCode.dataError)
        }
        let http: HTTPServer
        do {
            http = try HTTPServer(
                configuration: HTTPServerConfiguration(host: options.host, port: options.port),
                log: { entry in if entry.status == nil || entry.reason != nil { log.write("http: " + entry.line) } },
                handler: { simulator.handle(http: $0) })
        } catch {
            return CommandOutput(stdout: "", stderr: "error: \(error)\n", exitCode: ExitCode.unavailable)
        }
        http.start()
        // A log that cannot be written stops the server (exit code 74, docs/reliability.md).
        log.onFailure = { ShutdownSignals.trigger(SIGTERM) }
        let urlLine = Array((http.url + "\n").utf8)
        let urlWrite = urlLine.withUnsafeBytes { OutputWrites.write($0, to: STDOUT_FILENO) }
        if urlWrite != 0 {
            http.stop(graceSeconds: 0)
            log.close()
            return CommandOutput(
                stdout: "", stderr: OutputWrites.message(destination: "standard output", code: urlWrite),
                exitCode: ExitCode.ioError)
        }
        if !ServeEnvironment.isLoopback(options.host) {
            FileHandle.standardError.write(Data(ServeEnvironment.exposureWarning(url: http.url).utf8))
        }
        log.write(
            "serving '\(scenario.name)' (\(scenario.app.bundleId), \(scenario.app.environment.rawValue)) at \(http.url); "
                + "clock at \(scenario.start); "
                + (transport.map { "delivering to \($0.destination)" }
                    ?? "no --deliver URL: notifications are kept, not sent"))
        // Only now, with the URL printed and requests answered, are the notifications of the start delivered, on a
        // thread of their own, so that a signal is taken at once even while a slow webhook holds them up.
        let startUp = DispatchSemaphore(value: 0)
        Thread {
            simulator.deliverStartUp()
            startUp.signal()
        }.start()
        let signal = ShutdownSignals.wait()
        log.write("\(signal == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
        // Within the bound whatever is in flight (docs/reliability.md, "Shutdown"): no attempt starts any more, the
        // attempts in flight are cut short (logged as attempts that did not complete), the requests in flight get
        // up to 5 s, then their connections are closed.
        simulator.beginShutdown()
        connection?.abort()
        http.stop(graceSeconds: 5)
        _ = startUp.wait(timeout: .now() + .seconds(1))
        // How the notifications ended (docs/reliability.md, "Counts on exit"), in the log and on standard error.
        var summary = ""
        if let transport, let delivery = simulator.deliverySummary {
            summary = DeliveryOptions.headline(
                delivery, destination: transport.destination, mode: options.delivery?.mode ?? .production)
            for line in summary.split(separator: "\n") { log.write(String(line)) }
        }
        log.write("stopped")
        log.close()
        if let message = log.failureMessage {
            return CommandOutput(stdout: "", stderr: summary + message, exitCode: ExitCode.ioError)
        }
        return CommandOutput(stdout: "", stderr: options.logFile == nil ? "" : summary, exitCode: ExitCode.success)
    }
}

extension ExitCode {
    /// `simctl serve`: the address cannot be listened on (in use, not this machine's).
    package static let unavailable: Int32 = 69
}

/// The readable log: one line per request and answer, per delivery attempt, per start and stop, each prefixed with
/// the wall-clock time (log lines may carry wall time; answers never do).
final class ServeLog: @unchecked Sendable {
    let descriptor: Int32
    let owned: Bool
    /// The log's name in messages.
    let destination: String
    let lock = NSLock()
    /// The errno of the first line that could not be written; the server then stops (``onFailure``) and `serve`
    /// exits with code 74. Nothing more is written after it.
    private(set) var failure: Int32 = 0
    /// Called once, on the first failed write (`serve` stops the server).
    var onFailure: @Sendable () -> Void = {}
    let formatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    init(path: String?) throws {
        guard let path else {
            descriptor = STDERR_FILENO
            owned = false
            destination = "the log (standard error)"
            return
        }
        // Opened in place, never replaced (``openTruncating(_:)``).
        descriptor = openTruncating(path)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        owned = true
        destination = "the log '\(path)'"
    }

    func write(_ line: String) {
        lock.lock()
        guard failure == 0 else {
            lock.unlock()
            return
        }
        let bytes = Array((formatter.string(from: Date()) + " " + line + "\n").utf8)
        let code = bytes.withUnsafeBytes { OutputWrites.write($0, to: descriptor) }
        failure = code
        lock.unlock()
        if code != 0 { onFailure() }
    }

    /// The message for the failed write, when one failed.
    var failureMessage: String? {
        lock.lock()
        defer { lock.unlock() }
        return failure == 0 ? nil : OutputWrites.message(destination: destination, code: failure)
    }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        if owned { _ = Foundation.close(descriptor) }
    }
}
