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
        }
        .help(
            "",
            values: [
                HelpRow(
                    "timeline",
                    "(default) a readable table: virtual time, offset from start, customer, notification type and "
                        + "subtype, status, key fields, and each change of access"),
                HelpRow(
                    "jsonl",
                    "exactly one App Store POST body {\"signedPayload\":\"...\"} per line, in virtual-time order; "
                        + "nothing else on standard output"),
                HelpRow(
                    "decoded",
                    "one JSON object per line: recipient, instant and the payload with its nested JWS (transaction, "
                        + "renewal info) decoded"),
                HelpRow(
                    "svg",
                    "one self-contained SVG picture of the run: a lane per customer, phases, notifications, access "
                        + "and the family delay over a dated UTC axis"),
            ]),
        .value("--out", "DIR", .directory, "also write a fixture folder") {
            (state: inout RunState, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(message: "option '--out' needs a folder path", topic: "run")
            }
            state.out = text
        }
        .help(
            "also write a fixture folder: one numbered file per notification (0001.json, ...) holding its POST body, "
                + "plus manifest.json (recipient, instant, type, subtype) and timeline.svg (the svg format's "
                + "picture). Written atomically: on failure no folder is left. DIR must not exist yet (not even "
                + "empty) unless --force is given; missing parent folders are created. Not written when an "
                + "expectation fails. Ctrl-C waits for the write to end."),
        .flag("--force", "with --out: replace an existing folder") { state in state.force = true }
            .help(
                "with --out: replace an existing DIR, only once the new folder is complete (the old folder stays in place "
                    + "until then)"),
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
        }
        .help(
            "run until TIME instead of the scenario's `until`: 0, 90s, 30m, 1h, 16d, 2w, an ISO 8601 duration such as "
                + "P1M10D (offsets from `start`), or an ISO instant"),
        .value("--seed", "N", "use seed N instead of the scenario's seed") {
            (state: inout RunState, text: String) throws(UsageError) in
            state.seed = try ArgumentParser.seed(text, topic: "run")
        }
        .help("use seed N instead of the scenario's `seed` (ids and UUIDs derive from it)"),
        .value("--start", "now|INSTANT", "use this start instead of the scenario's start") {
            (state: inout RunState, text: String) throws(UsageError) in
            guard !text.isEmpty else {
                throw UsageError(
                    message: "option '--start' needs `now` or an ISO 8601 instant such as 2026-12-01T00:00:00Z",
                    topic: "run")
            }
            state.start = text
        }
        .help(
            "use this start instead of the scenario's `start`: `now` (the clock, rounded down to the whole second) or "
                + "an ISO 8601 UTC instant such as 2026-12-01T00:00:00Z. Offsets in the file count from it; absolute "
                + "instants in the file stay as written."),
        .value("--jobs", "N", "simulate the customers in N parts on N threads") {
            (state: inout RunState, text: String) throws(UsageError) in
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text),
                (1...1_024).contains(number)
            else {
                throw UsageError(
                    message: "option '--jobs' needs a whole number from 1 to 1024, found '\(text)'", topic: "run")
            }
            state.jobs = number
        }
        .help(
            "simulate the customers in N parts on N threads at once (default: this machine's cores); families stay "
                + "together, and the output is merged into the same bytes for every N; a long timeline is read on up "
                + "to N threads. --jobs 1 runs on one thread. One job whatever N: svg, --deliver, and a scenario with "
                + "an action for no one customer (a price change, removeFromSale, TEST, a mass renewal extension) "
                + "(docs/streaming.md)"),
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
        }
        .help(
            "write only part I of N (from 1) of a jsonl, decoded or timeline run, in the part format that 'simctl "
                + "merge' reads (run the N parts on N machines, then merge them into the same bytes as one run). A "
                + "scenario that runs as one job has everything in part 1; its other parts are empty. Expectations "
                + "are not judged. Not with svg, --out or --deliver. See 'simctl help merge' and docs/streaming.md"),
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
            try ArgumentParser.scenarioFile(&state.file, value, command: "run")
        },
        page: HelpPage(
            about: [.paragraph("Runs the scenario FILE on the virtual clock and checks its expectations.")],
            notes: [
                .paragraph(
                    "The same file, seed and start always give byte-identical output.\nExpectation failures go to "
                        + "standard error; the exit code is then 1.\nAn action the rules refuse stops the run: the "
                        + "timeline up to it is printed (formats jsonl and decoded print nothing), the error goes to "
                        + "standard error as FILE:LINE:COLUMN: error: MESSAGE, exit code 65.")
            ],
            examples: [
                "run Scenarios/family-stop-sharing.yaml",
                "run Scenarios/family-stop-sharing.yaml --format jsonl --seed 3",
                "run Scenarios/family-stop-sharing.yaml --out fixtures --force",
            ]))

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
