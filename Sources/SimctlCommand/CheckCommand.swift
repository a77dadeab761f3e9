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

    package init() {}
}

/// The entitlement query of the contract (docs/check.md): `GET TEMPLATE` with `{originalTransactionId}` replaced,
/// answered with JSON `{"active": Bool, "productId"?: String}`; a 404 means unknown (not active).
struct EntitlementQuery {
    /// The placeholder TEMPLATE must contain.
    static let placeholder = "{originalTransactionId}"
    let client: HTTPClient
    /// The request target with the placeholder in it.
    let target: String

    /// The answer's JSON (the contract's two fields).
    struct Answer: Decodable {
        var active: Bool
        var productId: String?
    }

    /// A query that cannot be judged (unreachable, a status other than 200 or 404, a body that is not the contract's
    /// JSON).
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads TEMPLATE; throws a usage error when it is not an http:// URL containing the placeholder.
    init(template: String, timeoutMilliseconds: Int64) throws(UsageError) {
        guard template.contains(Self.placeholder) else {
            throw UsageError(
                message: "option '--entitlements' needs a URL containing \(Self.placeholder), such as "
                    + "http://127.0.0.1:8000/entitlements/\(Self.placeholder), found '\(template)'", topic: "check")
        }
        let endpoint: HTTPEndpoint
        do throws(HTTPEndpointError) {
            endpoint = try HTTPEndpoint(url: template.replacingOccurrences(of: Self.placeholder, with: "0"))
        } catch {
            // The endpoint's own text speaks of delivery URLs; this is the entitlement query's.
            throw UsageError(
                message: "option '--entitlements': invalid URL '\(template)': \(error.message)", topic: "check")
        }
        let schemeAndAuthority = "http://" + endpoint.hostHeader
        guard let range = template.range(of: schemeAndAuthority, options: [.caseInsensitive, .anchored]) else {
            throw UsageError(
                message: "option '--entitlements' must hold \(Self.placeholder) in its path or query, found "
                    + "'\(template)'", topic: "check")
        }
        var rest = String(template[range.upperBound...])
        if rest.hasPrefix("?") { rest = "/" + rest }
        client = HTTPClient(endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds)
        target = rest
    }

    /// Asks about `originalTransactionId`; nil: unknown (404).
    func ask(_ originalTransactionId: String) throws(Failure) -> BackendAnswer? {
        let url = "http://\(client.endpoint.hostHeader)"
        let path = target.replacingOccurrences(of: Self.placeholder, with: originalTransactionId)
        switch client.get(path) {
        case .failure(let error):
            throw Failure(description: "GET \(url)\(path): \(error)")
        case .success(let response):
            if response.status == 404 { return nil }
            guard response.status == 200 else {
                throw Failure(description: "GET \(url)\(path) answered HTTP \(response.status), expected 200 or 404")
            }
            guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body)) else {
                let text = String(decoding: response.body.prefix(200), as: UTF8.self)
                throw Failure(
                    description: "GET \(url)\(path) answered '\(text)', expected JSON with a boolean \"active\" "
                        + "and an optional string \"productId\"")
            }
            return BackendAnswer(active: answer.active, productId: answer.productId)
        }
    }
}

enum CheckCommand {
    static let help = """
        USAGE: simctl check SCENARIO --deliver URL --entitlements TEMPLATE [--cases N] [--seed S] [--epoch N]
                                     [--out DIR] [--junit FILE] [--max-time D] [--settle D] [--deliver-timeout D]
                                     [--deliver-connections N] [--chaos-duplicate P] [--chaos-fail-rate P]
                                     [--chaos-fail-first N] [--no-duplicates] [--no-retries] [--no-shrink]
                                     [--port P [--host ADDR] [--api-key-pem FILE] [--log FILE]]
                                     \(SigningOptions.usage)
               simctl check --replay FILE --deliver URL --entitlements TEMPLATE [--epoch N] [--settle D]
                                     [--port P ...] [--environment NAME] [--ca-seed TEXT | --signing-chain DIR]

        Generates N lifecycles (cases) from SCENARIO's app, catalogue, customers and family (its timeline, if
        any, starts every case), delivers each case's notifications to URL with Apple's retries, duplicates and
        late deliveries, and at every instant where all notifications due were delivered asks TEMPLATE about each
        originalTransactionId delivered, comparing with the store's ground truth (docs/check.md). The first
        divergence is shrunk to a small scenario written to DIR as counterexample.yaml (`simctl run` runs it with
        exit 0; `simctl check --replay` replays it against the backend) and counterexample.jsonl.

        THE CONTRACT:
          TEMPLATE is an http:// URL containing {originalTransactionId}; simctl GETs it and expects HTTP 200 with
          JSON {"active": true|false, "productId": "..."} (productId optional, compared when given), or 404
          (unknown: not active).

        OPTIONS:
          --deliver URL       POST each notification's body to URL (http:// or https://, which trusts the
                              system's certificate store), as 'simctl run --deliver' does
          --entitlements T    the entitlement query (see THE CONTRACT)
          --cases N           cases to generate (default 100, at most 1000000)
          --seed S            generation seed (default 0): the same scenario, seed and options give the same
                              cases and the same report
          --epoch N           identity epoch of the first case (default 0); case i runs at epoch N+i, so the
                              backend needs no reset between cases. With --replay: the replay's epoch
                              (default: the file's epoch:, that of counterexample.jsonl)
          --out DIR           where to write counterexample.yaml and counterexample.jsonl (default: .)
          --junit FILE        also write JUnit XML: one testcase per case run, a divergence as a failure
          --max-time D        stop after D of wall clock (such as 90s or 5m), with a summary of the cases run
          --settle D          wait D of wall clock before each checkpoint's queries (asynchronous backends)
          --deliver-timeout D wall time to wait for each answer (default 5s)
          --deliver-connections N  attempts in flight at once (default 1; above 1, attempts due together may
                              arrive in any order among themselves)
          --port P            serve the App Store Server API (the endpoints of 'simctl serve') for the running
                              case's store on port P (0: any free port, printed on standard error), for the
                              whole check; endpoints that change the store answer 429 during check
          --host ADDR         the address it listens on (default 127.0.0.1)
          --api-key-pem FILE  check each bearer token's ES256 signature against this key, as 'simctl serve'
          --log FILE          write that server's log (every request and answer) to FILE
          --chaos-duplicate P share of notifications sent twice (default 0.2)
          --chaos-fail-rate P share of notifications whose first attempts fail (default 0.2)
          --chaos-fail-first N  most first attempts such a notification fails, 0 to 5 (default 2; 0: none)
          --no-duplicates, --no-retries   turn duplicates, failed first attempts off
          --no-shrink         report the first divergence as found, without shrinking it
        \(SigningOptions.help)
                              Without them, check signs as the scenario's app.environment says
                              (LocalTesting when it says nothing: placeholder signatures, which a
                              verifying backend refuses); a backend that verifies needs --environment
                              Sandbox (or Production) and the root of 'simctl certs export' with the
                              same options. They apply to --replay and to the --port server's answers.

        Progress goes to standard error when it is a terminal; the report to standard output.

        EXIT CODES:
          0   every case agrees with the store (with --replay: the file agrees)
          1   a divergence (with --replay: the file still diverges)
          2   the backend cannot be judged: unreachable, an entitlement answer that is not 200/404 with the
              contract's JSON, or a notification undelivered after its last attempt
          64  bad usage
          65  invalid scenario (or one whose own timeline cannot run)
          66  the input file cannot be read
          73  the --out folder or the --junit file cannot be written
        """

    static let usageLine =
        "usage: simctl check SCENARIO --deliver URL --entitlements TEMPLATE [--cases N] [--seed S] [--out DIR] [--junit FILE] [--max-time D] [--settle D] | simctl check --replay FILE --deliver URL --entitlements TEMPLATE"

    /// Options that take a value.
    static let valueOptions: Set<String> = [
        "--replay", "--entitlements", "--cases", "--seed", "--epoch", "--out", "--junit", "--max-time", "--settle",
        "--port", "--host", "--api-key-pem", "--log",
    ]
    /// The delivery options of `simctl run` that apply to check (parsed by ``DeliveryOptions/Builder``, as run's).
    static let deliveryOptions: Set<String> = [
        "--deliver", "--deliver-timeout", "--deliver-connections", "--chaos-duplicate", "--chaos-fail-rate",
        "--chaos-fail-first",
    ]
    /// Delivery options of `simctl run` that do not apply to check, with the reason.
    static let notApplicable: [String: String] = [
        "--deliver-mode": "check always delivers on the production retry schedule, which its cases need",
        "--chaos-reorder-window": "check's late deliveries come from failed first attempts, written into each case",
        "--delivery-log": "the report lists the last notifications delivered for the divergent originalTransactionId",
    ]
    /// Options without a value.
    static let flags: Set<String> = ["--no-duplicates", "--no-retries", "--no-shrink"]

    static func parse(_ arguments: [String]) throws(UsageError) -> CheckCommandOptions {
        var values: [String: String] = [:]
        var delivery = DeliveryOptions.Builder()
        var seenFlags: Set<String> = []
        var signing = SigningOptions()
        var file: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "-h" || argument == "--help" { throw UsageError(message: "", topic: "help") }
            if !argument.hasPrefix("-") || argument == "-" {
                guard file == nil else {
                    throw UsageError(
                        message: "'check' takes one scenario file; found '\(file!)' and '\(argument)'", topic: "check")
                }
                file = argument
                continue
            }
            if flags.contains(argument) {
                guard seenFlags.insert(argument).inserted else {
                    throw UsageError(message: "option '\(argument)' is given twice", topic: "check")
                }
                continue
            }
            if SigningOptions.names.contains(argument) {
                guard index < arguments.count else {
                    throw UsageError(message: "option '\(argument)' needs a value", topic: "check")
                }
                _ = try signing.apply(argument, arguments[index], topic: "check")
                index += 1
                continue
            }
            if let reason = notApplicable[argument] {
                throw UsageError(
                    message: "option '\(argument)' of 'simctl run' does not apply to 'check': \(reason)", topic: "check"
                )
            }
            if deliveryOptions.contains(argument) {
                guard index < arguments.count else {
                    throw UsageError(message: "option '\(argument)' needs a value", topic: "check")
                }
                do throws(UsageError) { try delivery.set(argument, arguments[index]) } catch {
                    throw UsageError(message: error.message, topic: "check")
                }
                index += 1
                continue
            }
            guard valueOptions.contains(argument) else {
                throw UsageError(message: "unknown option '\(argument)'", topic: "check")
            }
            guard index < arguments.count else {
                throw UsageError(message: "option '\(argument)' needs a value", topic: "check")
            }
            guard values[argument] == nil else {
                throw UsageError(message: "option '\(argument)' is given twice", topic: "check")
            }
            values[argument] = arguments[index]
            index += 1
        }
        var options = CheckCommandOptions()
        options.signing = signing
        if let replay = values["--replay"] {
            if let file {
                throw UsageError(
                    message: "'--replay FILE' runs FILE in place of SCENARIO; found both '\(replay)' and '\(file)'",
                    topic: "check")
            }
            let generation = ["--cases", "--seed", "--junit", "--max-time", "--out"].filter { values[$0] != nil }
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
        if let text = values["--epoch"] {
            guard let epoch = UInt32(text) else {
                throw UsageError(
                    message: "option '--epoch' needs a whole number from 0 to 4294967295, found '\(text)'",
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
        return options
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
        let options: CheckCommandOptions
        do throws(UsageError) { options = try parse(arguments) } catch {
            if error.topic == "help" { return CommandOutput(stdout: help + "\n", stderr: "", exitCode: 0) }
            return CommandOutput(
                stdout: "", stderr: "error: \(error.message)\n\(usageLine)\nsee 'simctl help check'\n",
                exitCode: ExitCode.usage)
        }
        let query: EntitlementQuery
        do throws(UsageError) {
            query = try EntitlementQuery(
                template: options.entitlements, timeoutMilliseconds: options.timeoutMilliseconds)
        } catch {
            return CommandOutput(
                stdout: "", stderr: "error: \(error.message)\n\(usageLine)\nsee 'simctl help check'\n",
                exitCode: ExitCode.usage)
        }
        let scenario: Scenario
        switch Simctl.decode(options.file, overrides: ScenarioOverrides(environment: options.signing.environment)) {
        case .failure(let output): return output
        case .success(let decoded): scenario = decoded
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
        var output =
            options.replay ? replay(scenario, options, backend) : check(scenario, options, backend, progress: progress)
        server?.stop()
        // A line of `--log` that could not be written: the log is incomplete, which the check's answer must say
        // (docs/reliability.md, "Write errors"); the check itself ran to its end.
        if let message = server?.log?.failureMessage {
            output.stderr += message
            output.exitCode = ExitCode.ioError
        }
        return output
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
    ) -> CommandOutput {
        let checkOptions = CheckOptions(
            cases: options.cases, seed: options.seed, chaos: options.chaos, shrinks: options.shrinks,
            epoch: options.epoch ?? 0)
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
                }
            }
        }
        let report: CheckReport
        do throws(CheckError) { report = try check.run(against: backend) } catch {
            return CommandOutput(stdout: "", stderr: "error: \(error)\n", exitCode: ExitCode.dataError)
        }
        progress?("\n")
        let elapsed = started.duration(to: clock.now).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        var stdout = report.description + "\n"
        var stderr = String(format: "check: %.1f s of wall clock\n", seconds)
        var exitCode = ExitCode.success
        switch report.verdict {
        case .agrees: break
        case .cannotJudge: exitCode = ExitCode.cannotJudge
        case .diverges(let counterexample):
            exitCode = ExitCode.expectationFailed
            let directory = URL(fileURLWithPath: options.outDirectory)
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try Data(counterexample.yaml.utf8).write(to: directory.appendingPathComponent("counterexample.yaml"))
                try Data(counterexample.jsonl.utf8).write(to: directory.appendingPathComponent("counterexample.jsonl"))
            } catch {
                return CommandOutput(
                    stdout: stdout,
                    stderr: stderr + "error: cannot write the counterexample to '\(options.outDirectory)': "
                        + "\(error.localizedDescription)\n", exitCode: ExitCode.cannotCreate)
            }
            stdout +=
                "counterexample written to \(directory.appendingPathComponent("counterexample.yaml").path) and "
                + "counterexample.jsonl\n"
        }
        if let junit = options.junit {
            do { try Data(junitXML(report, seconds: seconds).utf8).write(to: URL(fileURLWithPath: junit)) } catch {
                stderr += "error: cannot write the JUnit file '\(junit)': \(error.localizedDescription)\n"
                return CommandOutput(stdout: stdout, stderr: stderr, exitCode: ExitCode.cannotCreate)
            }
        }
        return CommandOutput(stdout: stdout, stderr: stderr, exitCode: exitCode)
    }

    /// The report as JUnit XML: one testcase per case run; the diverging case a failure, a case that cannot be
    /// judged an error.
    static func junitXML(_ report: CheckReport, seconds: Double) -> String {
        var failures = 0
        var errors = 0
        var cases: [String] = []
        for number in 1...max(report.cases, 1) where number <= report.cases {
            var line = "    <testcase classname=\"simctl.check\" name=\"case \(number) (seed \(report.seed))\""
            switch report.verdict {
            case .diverges(let counterexample) where counterexample.caseNumber == number:
                failures += 1
                line +=
                    ">\n      <failure message=\"\(escape("diverges: \(counterexample.divergence.kind.rawValue)"))\">"
                    + escape(counterexample.description) + "</failure>\n    </testcase>"
            case .cannotJudge(let caseNumber, let message) where caseNumber == number:
                errors += 1
                line +=
                    ">\n      <error message=\"\(escape("cannot be judged"))\">\(escape(message))</error>\n"
                    + "    </testcase>"
            case .agrees, .diverges, .cannotJudge:
                line += "/>"
            }
            cases.append(line)
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites>
              <testsuite name="simctl check" tests="\(report.cases)" failures="\(failures)" errors="\(errors)" \
            time="\(String(format: "%.3f", seconds))">
            \(cases.joined(separator: "\n"))
              </testsuite>
            </testsuites>

            """
    }

    /// `text` escaped for XML text and attribute values (control characters other than tab and newline dropped).
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}

extension ExitCode {
    /// `simctl check`: the backend cannot be judged.
    package static let cannotJudge: Int32 = 2
}
