import SubscriptionSimulator

/// What the command line asked for.
package enum SimctlInvocation: Equatable, Sendable {
    case run(RunOptions)
    case validate(file: String)
    case catalog(file: String)
    case certs(CertsInvocation)
    case help(topic: String?)
    case version
    case trigger(TriggerOptionsLine)
    case replay(ReplayCommand.Options)
    case merge(files: [String])
    case serve(ServeOptions, keyFromEnvironment: String?)
    case check(CheckCommandOptions)
    case population(PopulationCommand.Options)
    /// `simctl completion bash|zsh|fish` (Completion.swift).
    case completion(shell: String)
}

package struct RunOptions: Equatable, Sendable {
    package var file: String
    package var format: OutputFormat = .timeline
    package var outDirectory: String?
    /// Raw text; the scenario decoder reads it with the scenario time syntax.
    package var until: String?
    package var seed: UInt64?
    /// `--start`: `now` or an ISO 8601 instant; resolved by ``Simctl`` (the only place that reads the clock).
    package var start: String?
    /// `--force`: replace an existing `--out` folder, once the new one is complete.
    package var force: Bool
    /// `--deliver URL` and its options (DeliveryOptions.swift).
    package var delivery: DeliveryOptions?
    /// `--environment`, `--ca-seed` / `--signing-chain` (SigningOptions.swift).
    package var signing: SigningOptions = .init()
    /// Replaces the scenario's `app.environment` (``SigningOptions/environment``).
    package var environment: SimulatedEnvironment? {
        get { signing.environment }
        set { signing.environment = newValue }
    }
    /// `--jobs N`: parts simulated at once (``RunPlan/jobs``); nil: the machine's cores.
    package var jobs: Int?
    /// `--shard I/N`: write part I of N in the part format (``PartFile``) for `simctl merge`.
    package var shard: RunPart?
    /// Issue 47: `--bundle-id`, `--app-apple-id`, `--map-product` (IdentityOptions.swift).
    package var identity = IdentityOptions()
    /// `--customers`, `--from`, `--to`, `--axis`: what the picture shows (PictureOptions.swift).
    package var picture = PictureOptions()

    package init(
        file: String, format: OutputFormat = .timeline, outDirectory: String? = nil, until: String? = nil,
        seed: UInt64? = nil, start: String? = nil, force: Bool = false, environment: SimulatedEnvironment? = nil,
        signing: SigningOptions = .init()
    ) {
        self.file = file
        self.format = format
        self.outDirectory = outDirectory
        self.until = until
        self.seed = seed
        self.start = start
        self.force = force
        self.signing = signing
        if let environment { self.signing.environment = environment }
    }
}

/// A command line that cannot be run as given. `topic` names the command whose usage should follow the message.
package struct UsageError: Error, Equatable, Sendable {
    package var message: String
    package var topic: String?
}

/// The top of the command line: the command's name, then its declaration (CommandTable.swift) parses the rest with
/// ``OptionParser``. Nothing is dispatched before this parse.
package enum ArgumentParser {
    package static let commands = CommandTable.names

    package static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError)
        -> SimctlInvocation
    {
        guard let first = arguments.first else { return .help(topic: nil) }
        let rest = Array(arguments.dropFirst())
        if let global = CommandTable.globalOptions.first(where: { $0.names.contains(first) }) {
            return global.invocation
        }
        switch first {
        case "help":
            guard arguments.count <= 2 else {
                throw UsageError(message: "'help' takes at most one command name", topic: nil)
            }
            if arguments.count == 2 {
                let topic = arguments[1]
                guard commands.contains(topic) else {
                    throw UsageError(message: "unknown command '\(topic)'\(hint(topic, commands))", topic: nil)
                }
                return .help(topic: topic)
            }
            return .help(topic: nil)
        default:
            guard let command = CommandTable.command(named: first) else {
                if first.hasPrefix("-") {
                    throw UsageError(
                        message: "unknown option '\(first)'\(hint(first, ["--help", "--version"]))", topic: nil)
                }
                throw UsageError(message: "unknown command '\(first)'\(hint(first, commands))", topic: nil)
            }
            // `-h`/`--help` anywhere after the command's name (as every command has always taken it).
            if rest.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help(topic: first) }
            return try command.parse(rest, environment)
        }
    }

    static func parseRun(_ arguments: [String]) throws(UsageError) -> RunOptions {
        var state = RunState()
        try OptionParser.parse(arguments, RunState.command, into: &state)
        return try state.finish()
    }

    /// `validate FILE`, `catalog FILE`: one file, no options.
    static func singleFile(_ arguments: [String], command: String) throws(UsageError) -> String {
        var files: [String] = []
        let declaration = CommandDeclaration<[String]>(
            name: command, topic: command, summary: "", positional: "FILE", positionalValue: .file, options: [],
            argument: { files, file in files.append(file) },
            unknownOption: { name, _ in "'\(command)' has no option '\(name)'" })
        try OptionParser.parse(arguments, declaration, into: &files)
        guard files.count == 1 else {
            throw UsageError(
                message: files.isEmpty
                    ? "'\(command)' needs a file" : "'\(command)' takes one file; found \(files.count)",
                topic: command)
        }
        return files[0]
    }

    /// `--seed N` of `run`, `serve` and `trigger`: a whole number of UInt64's range.
    static func seed(_ text: String, topic: String) throws(UsageError) -> UInt64 {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt64(text) else {
            throw UsageError(
                message: "option '--seed' needs a whole number from 0 to \(UInt64.max), found '\(text)'", topic: topic)
        }
        return number
    }

    /// The one scenario file of `run`, `serve` and `check`: a second one is a usage error.
    static func scenarioFile(_ file: inout String?, _ argument: String, command: String) throws(UsageError) {
        if let file {
            throw UsageError(
                message: "'\(command)' takes one scenario file; found '\(file)' and '\(argument)'", topic: command)
        }
        file = argument
    }

    static func hint(_ found: String, _ candidates: [String]) -> String {
        Suggestions.closest(to: found, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }
}
