import Foundation

/// Every command of simctl, in the overview's order: its declaration (for help, completion and the docs) and how its
/// arguments become a ``SimctlInvocation``. `simctl help COMMAND` and `simctl completion SHELL` read this table.
///
/// A command's declaration is built only when it is read (help, completion, or that command's own parsing), so
/// starting one command does not build every other command's option table (tested by the callgrind guard's
/// population workload, whose whole process is mostly start-up).
package struct CommandEntry: Sendable {
    package let name: String
    private let describe: @Sendable () -> CommandInfo
    private let describeSubcommands: @Sendable () -> [CommandInfo]
    /// The arguments after the command's name (and the process's environment, for `serve`'s variables).
    let parse: @Sendable ([String], [String: String]) throws(UsageError) -> SimctlInvocation

    init(
        _ name: String, info: @autoclosure @escaping @Sendable () -> CommandInfo,
        subcommands: @autoclosure @escaping @Sendable () -> [CommandInfo] = [],
        parse: @escaping @Sendable ([String], [String: String]) throws(UsageError) -> SimctlInvocation
    ) {
        self.name = name
        self.describe = info
        self.describeSubcommands = subcommands
        self.parse = parse
    }

    package var info: CommandInfo {
        let info = describe()
        assert(info.name == name, "the command table names \(name) for \(info.name)")
        return info
    }

    /// `certs export`, `certs negative-fixtures`, `certs tls`, `certs ocsp`.
    package var subcommands: [CommandInfo] { describeSubcommands() }
}

package enum CommandTable {
    package static let entries: [CommandEntry] = [
        CommandEntry("trigger", info: TriggerOptionsLine.command.info) { arguments, _ throws(UsageError) in
            .trigger(try TriggerOptionsLine.parse(arguments))
        },
        CommandEntry("replay", info: ReplayCommand.command.info) { arguments, _ throws(UsageError) in
            .replay(try ReplayCommand.parse(arguments))
        },
        CommandEntry("run", info: RunState.command.info) { arguments, _ throws(UsageError) in
            .run(try ArgumentParser.parseRun(arguments))
        },
        CommandEntry("merge", info: MergeCommand.command.info) { arguments, _ throws(UsageError) in
            .merge(files: try MergeCommand.parse(arguments))
        },
        CommandEntry(
            "validate", info: fileCommand("validate", "Check a scenario and run it without printing", validatePage)
        ) {
            arguments, _ throws(UsageError) in
            .validate(file: try ArgumentParser.singleFile(arguments, command: "validate"))
        },
        CommandEntry(
            "catalog",
            info: fileCommand("catalog", "Print the products of a scenario or an Xcode .storekit file", catalogPage)
        ) {
            arguments, _ throws(UsageError) in
            .catalog(file: try ArgumentParser.singleFile(arguments, command: "catalog"))
        },
        CommandEntry(
            "certs",
            info: CommandInfo(
                name: "certs",
                summary: "Export the signing chain; negative fixtures for verifiers; TLS test certificates",
                positional: "SUBCOMMAND", positionalValue: .choices(CertsInvocation.subcommands), options: [],
                page: HelpPage(notes: [
                    .paragraph(
                        "DIR must not exist yet; it is written atomically. The keys are test data: never trust this "
                            + "root outside tests.")
                ])),
            subcommands: [
                CertsInvocation.signingCommand("export").info, CertsInvocation.signingCommand("negative-fixtures").info,
                TLSCertsOptions.command.info, OCSPServeOptions.command.info,
            ]
        ) { arguments, _ throws(UsageError) in .certs(try CertsInvocation.parse(arguments)) },
        CommandEntry("serve", info: ServeCommand.command.info) { arguments, environment throws(UsageError) in
            let (arguments, key) = ServeEnvironment.arguments(arguments, environment: environment)
            return .serve(try ServeCommand.parse(arguments), keyFromEnvironment: key)
        },
        CommandEntry("check", info: CheckCommand.command.info) { arguments, _ throws(UsageError) in
            .check(try CheckCommand.parse(arguments))
        },
        CommandEntry("population", info: PopulationCommand.command.info) { arguments, _ throws(UsageError) in
            .population(try PopulationCommand.parse(arguments))
        },
        CommandEntry("completion", info: completionCommand) { arguments, _ throws(UsageError) in
            .completion(shell: try Completion.parse(arguments))
        },
    ]

    /// The options of simctl itself, before a command.
    package static let globalOptions: [(names: [String], summary: String, invocation: SimctlInvocation)] = [
        (["--help", "-h"], "Show help", .help(topic: nil)),
        (["--version"], "Print the version", .version),
    ]

    /// The command names, with `help`, as the overview lists them.
    package static let names = entries.map(\.name) + ["help"]

    static func command(named name: String) -> CommandEntry? { entries.first { $0.name == name } }

    /// A command that takes one file and no options.
    static func fileCommand(_ name: String, _ summary: String, _ page: HelpPage) -> CommandInfo {
        CommandInfo(name: name, summary: summary, positional: "FILE", positionalValue: .file, options: [], page: page)
    }

    static let validatePage = HelpPage(
        about: [
            .paragraph(
                "Checks the scenario FILE (syntax, schema, names, times, field paths) and runs it without printing "
                    + "anything, so every action the lifecycle and family rules refuse (a second cancel, a refund of "
                    + "nothing, a purchase during billing retry, ...) is reported at its timeline entry. Expectations "
                    + "are not judged: 'simctl run' judges them.\nErrors are printed as FILE:LINE:COLUMN: error: "
                    + "MESSAGE; the exit code is then 65.")
        ],
        examples: ["validate Scenarios/family-stop-sharing.yaml"])

    static let catalogPage = HelpPage(
        about: [
            .paragraph(
                "Prints the product catalogue the simulator will use: one row per product with id, type, group and "
                    + "level, period, price, currency, family shareable and introductory offer. FILE is a scenario "
                    + "(.yaml) or an Xcode StoreKit configuration file (.storekit); for a .storekit file the settings "
                    + "it holds are listed too.")
        ],
        examples: ["catalog Scenarios/family-stop-sharing.yaml"])

    static let completionCommand = CommandInfo(
        name: "completion", summary: "Print a shell completion script (bash, zsh or fish)", positional: "SHELL",
        positionalValue: .choices(Completion.shells), options: [],
        page: HelpPage(
            about: [
                .paragraph(
                    "Prints a shell completion script for simctl, generated from its command table: commands, "
                        + "subcommands, options, the values of options with a fixed list, and file arguments "
                        + "(docs/cli.md, \"Shell completion\")."),
                .rows(
                    "INSTALL",
                    [
                        HelpRow(
                            "bash", "source <(simctl completion bash)   (or save it in /etc/bash_completion.d/simctl)"),
                        HelpRow("zsh", "simctl completion zsh > \"${fpath[1]}/_simctl\""),
                        HelpRow("fish", "simctl completion fish > ~/.config/fish/completions/simctl.fish"),
                    ]),
            ]))
}
