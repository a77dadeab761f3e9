import SubscriptionSimulator

/// `simctl run`'s options, declared once (OptionTable.swift); the values are checked as they are met, and together
/// by ``finish()``.
struct RunState: Sendable {
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

    /// `run`'s own options; ``options`` adds the shared sets.
    static let ownOptions: [OptionDeclaration<RunState>] = [
        .value(
            "--format", "FORMAT", .choices(OutputFormat.allCases.map(\.rawValue)), "timeline, jsonl, decoded or svg"
        ) { (state: inout RunState, text: String) throws(UsageError) in
            guard let parsed = OutputFormat(rawValue: text) else {
                let valid = OutputFormat.allCases.map(\.rawValue)
                throw UsageError(
                    message:
                        "unknown format '\(text)'; expected one of \(valid.joined(separator: ", "))\(ArgumentParser.hint(text, valid))",
                    topic: "run")
            }
            state.format = parsed
        },
        .value("--out", "DIR", .directory, "also write a fixture folder") {
            (state: inout RunState, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--out' needs a folder path", topic: "run")
            }
            state.out = text
        },
        .flag("--force", "with --out: replace an existing folder") { state in state.force = true },
        .value("--until", "TIME", "run until TIME instead of the scenario's until") {
            (state: inout RunState, text: String) throws(UsageError) in
            // The form is checked here; the range (years 1970 to 9999) once the file's `start` is known.
            guard CalendarDurationSyntax.parse(text) != nil || CalendarDurationSyntax.parseInstant(text) != nil
            else {
                throw UsageError(
                    message:
                        "option '--until' needs a time such as 0, 90s, 30m, 1h, 16d, 2w, P1M or an ISO instant "
                        + "such as 2026-06-01T00:00:00Z, found '\(SourceText.escapingControlCharacters(text))'",
                    topic: "run")
            }
            state.until = text
        },
        .value("--seed", "N", "use seed N instead of the scenario's seed") {
            (state: inout RunState, text: String) throws(UsageError) in
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt64(text) else {
                throw UsageError(
                    message: "option '--seed' needs a whole number from 0 to \(UInt64.max), found '\(text)'",
                    topic: "run")
            }
            state.seed = number
        },
        .value("--start", "now|INSTANT", "use this start instead of the scenario's start") {
            (state: inout RunState, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(
                    message: "option '--start' needs `now` or an ISO 8601 instant such as 2026-12-01T00:00:00Z",
                    topic: "run")
            }
            state.start = text
        },
        .value("--jobs", "N", "simulate the customers in N parts on N threads") {
            (state: inout RunState, text: String) throws(UsageError) in
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text),
                (1...1_024).contains(number)
            else {
                throw UsageError(
                    message: "option '--jobs' needs a whole number from 1 to 1024, found '\(text)'", topic: "run")
            }
            state.jobs = number
        },
        .value("--shard", "I/N", "write only part I of N for 'simctl merge'") {
            (state: inout RunState, text: String) throws(UsageError) in
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
            state.shard = RunPart(index: part - 1, count: count)
        },
    ]

    static var options: [OptionDeclaration<RunState>] {
        var all = ownOptions
        all += SigningOptions.declarations(topic: "run").map { $0.lifted(\RunState.signing) }
        all += DeliveryOptions.declarations().map { $0.lifted(\RunState.delivery) }
        all += IdentityOptions.declarations(topic: "run").map { $0.lifted(\RunState.identity) }
        all += PictureOptions.declarations.map { $0.lifted(\RunState.picture) }
        return all
    }

    static let command = CommandDeclaration<RunState>(
        name: "run", topic: "run", summary: "Run a scenario; print its timeline or notification stream",
        positional: "FILE", positionalValue: .file, options: options,
        groups: [SigningOptions.exclusive],
        argument: { (state: inout RunState, value: String) throws(UsageError) in
            if let file = state.file {
                throw UsageError(message: "'run' takes one scenario file; found '\(file)' and '\(value)'", topic: "run")
            }
            state.file = value
        })

    /// The options together: what one option needs of another.
    func finish() throws(UsageError) -> RunOptions {
        let (file, format, out, until, seed, start, force, delivery, signing, jobs, shard, identity, picture) = (
            self.file, self.format, self.out, self.until, self.seed, self.start, self.force, self.delivery,
            self.signing, self.jobs, self.shard, self.identity, self.picture
        )
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

}
