import SubscriptionSimulator

/// What the command line asked for.
package enum SimctlInvocation: Equatable, Sendable {
    case run(RunOptions)
    case validate(file: String)
    case catalog(file: String)
    case certs(CertsInvocation)
    case help(topic: String?)
    case version
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

/// A small, strict parser following swift-argument-parser's conventions: subcommands, `--option value` and
/// `--option=value`, `--` to end options, `--help`/`-h` anywhere, and "did you mean" for near misses.
package enum ArgumentParser {
    package static let commands = [
        "trigger", "replay", "run", "merge", "validate", "catalog", "certs", "serve", "check", "population", "help",
    ]
    static let runOptions =
        [
            "--format", "--out", "--until", "--seed", "--start", "--force", "--jobs", "--shard",
        ]
        + SigningOptions.names + DeliveryOptions.names + IdentityOptions.names + PictureOptions.names
    /// Options that take no value.
    static let runFlags = ["--force"]

    package static func parse(_ arguments: [String]) throws(UsageError) -> SimctlInvocation {
        guard let first = arguments.first else { return .help(topic: nil) }
        switch first {
        case "--help", "-h": return .help(topic: nil)
        case "--version": return .version
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
        case "run":
            let rest = Array(arguments.dropFirst())
            if rest.contains("--help") || rest.contains("-h") { return .help(topic: "run") }
            return .run(try parseRun(rest))
        case "certs":
            let rest = Array(arguments.dropFirst())
            if rest.contains("--help") || rest.contains("-h") { return .help(topic: "certs") }
            return .certs(try CertsInvocation.parse(rest))
        case "validate", "catalog":
            let rest = Array(arguments.dropFirst())
            if rest.contains("--help") || rest.contains("-h") { return .help(topic: first) }
            let file = try singleFile(rest, command: first)
            return first == "validate" ? .validate(file: file) : .catalog(file: file)
        default:
            if first.hasPrefix("-") {
                throw UsageError(
                    message: "unknown option '\(first)'\(hint(first, ["--help", "--version"]))", topic: nil)
            }
            throw UsageError(message: "unknown command '\(first)'\(hint(first, commands))", topic: nil)
        }
    }

    static func parseRun(_ arguments: [String]) throws(UsageError) -> RunOptions {
        var file: String?
        var format: OutputFormat?
        var out: String?
        var until: String?
        var seed: UInt64?
        var start: String?
        var force = false
        var delivery = DeliveryOptions.Builder()
        var signing = SigningOptions()
        var identity = IdentityOptions()
        var jobs: Int?
        var shard: RunPart?
        var picture = PictureOptions()
        var index = 0
        var optionsEnded = false
        func setFile(_ value: String) throws(UsageError) {
            guard file == nil else {
                throw UsageError(
                    message: "'run' takes one scenario file; found '\(file!)' and '\(value)'", topic: "run")
            }
            file = value
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                try setFile(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard runOptions.contains(name) else {
                throw UsageError(message: "unknown option '\(name)'\(hint(name, runOptions))", topic: "run")
            }
            if runFlags.contains(name) {
                if value != nil { throw UsageError(message: "option '\(name)' takes no value", topic: "run") }
                if force { throw UsageError(message: "option '\(name)' is given twice", topic: "run") }
                force = true
                continue
            }
            if value == nil {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError(message: "option '\(name)' needs a value", topic: "run")
                }
                value = arguments[index]
                index += 1
            }
            let text = value!
            func once<T>(_ existing: T?) throws(UsageError) {
                if existing != nil { throw UsageError(message: "option '\(name)' is given twice", topic: "run") }
            }
            switch name {
            case "--format":
                try once(format)
                guard let parsed = OutputFormat(rawValue: text) else {
                    let valid = OutputFormat.allCases.map(\.rawValue)
                    throw UsageError(
                        message:
                            "unknown format '\(text)'; expected one of \(valid.joined(separator: ", "))\(hint(text, valid))",
                        topic: "run")
                }
                format = parsed
            case "--out":
                try once(out)
                guard !text.isEmpty else {
                    throw UsageError(message: "option '--out' needs a folder path", topic: "run")
                }
                out = text
            case "--until":
                try once(until)
                // The form is checked here; the range (years 1970 to 9999) once the file's `start` is known.
                guard CalendarDurationSyntax.parse(text) != nil || CalendarDurationSyntax.parseInstant(text) != nil
                else {
                    throw UsageError(
                        message:
                            "option '--until' needs a time such as 0, 90s, 30m, 1h, 16d, 2w, P1M or an ISO instant "
                            + "such as 2026-06-01T00:00:00Z, found '\(SourceText.escapingControlCharacters(text))'",
                        topic: "run")
                }
                until = text
            case "--start":
                try once(start)
                guard !text.isEmpty else {
                    throw UsageError(
                        message: "option '--start' needs `now` or an ISO 8601 instant such as 2026-12-01T00:00:00Z",
                        topic: "run")
                }
                start = text
            case _ where DeliveryOptions.names.contains(name):
                try delivery.set(name, text)
            // The picture's options (PictureOptions.swift).
            case _ where PictureOptions.names.contains(name):
                try picture.set(name, text)
            case _ where try signing.apply(name, text, topic: "run"):
                break
            case _ where try identity.apply(name, text, topic: "run"):
                break
            case "--jobs":
                try once(jobs)
                guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text),
                    (1...1_024).contains(number)
                else {
                    throw UsageError(
                        message: "option '--jobs' needs a whole number from 1 to 1024, found '\(text)'", topic: "run")
                }
                jobs = number
            case "--shard":
                try once(shard)
                let halves = text.split(separator: "/", omittingEmptySubsequences: false)
                guard halves.count == 2,
                    halves.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                    let part = Int(halves[0]), let count = Int(halves[1]), (1...65_536).contains(count),
                    (1...count).contains(part)
                else {
                    throw UsageError(
                        message:
                            "option '--shard' needs I/N with 1 <= I <= N <= 65536 (part I of N, from 1), found '\(SourceText.escapingControlCharacters(text))'",
                        topic: "run")
                }
                shard = RunPart(index: part - 1, count: count)
            default:
                try once(seed)
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt64(text) else {
                    throw UsageError(
                        message: "option '--seed' needs a whole number from 0 to \(UInt64.max), found '\(text)'",
                        topic: "run")
                }
                seed = number
            }
        }
        guard let file else { throw UsageError(message: "'run' needs a scenario file", topic: "run") }
        if force && out == nil {
            throw UsageError(
                message: "option '--force' applies to '--out DIR'; give the folder to replace", topic: "run")
        }
        var options = RunOptions(
            file: file, format: format ?? .timeline, outDirectory: out, until: until, seed: seed, start: start,
            force: force, signing: signing)
        options.delivery = try delivery.build()
        options.jobs = jobs
        options.shard = shard
        options.identity = identity
        options.picture = picture
        if let given = picture.firstGiven, options.format != .svg, out == nil {
            throw UsageError(
                message: "option '\(given)' applies to the picture: give '--format svg' or '--out DIR'", topic: "run")
        }
        if shard != nil {
            // A part holds output lines or timeline rows with their keys, written to standard output only.
            var conflict: String?
            if !PartFile.formats.contains(options.format) {
                conflict =
                    "'--format \(options.format.rawValue)' (a part holds jsonl or decoded lines or timeline rows)"
            } else if out != nil {
                conflict = "'--out' (write the fixture folder from the one-job run)"
            } else if options.delivery != nil {
                conflict = "'--deliver' (deliver from the one-job run)"
            }
            if let conflict {
                throw UsageError(message: "option '--shard' cannot be used with \(conflict)", topic: "run")
            }
        }
        return options
    }

    static func singleFile(_ arguments: [String], command: String) throws(UsageError) -> String {
        let files = arguments.filter { $0 != "--" }
        if let option = files.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw UsageError(message: "'\(command)' has no option '\(option)'", topic: command)
        }
        guard files.count == 1 else {
            throw UsageError(
                message: files.isEmpty
                    ? "'\(command)' needs a file" : "'\(command)' takes one file; found \(files.count)",
                topic: command)
        }
        return files[0]
    }

    static func hint(_ found: String, _ candidates: [String]) -> String {
        Suggestions.closest(to: found, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }
}
