import Foundation

/// Every command of simctl, in the overview's order: its declaration (for help, completion and the docs) and how its
/// arguments become a ``SimctlInvocation``. `simctl help COMMAND` and `simctl completion SHELL` read this table.
package struct CommandEntry: Sendable {
    package var info: CommandInfo
    /// `certs export`, `certs negative-fixtures`, `certs tls`, `certs ocsp`.
    package var subcommands: [CommandInfo] = []
    /// The arguments after the command's name (and the process's environment, for `serve`'s variables).
    var parse: @Sendable ([String], [String: String]) throws(UsageError) -> SimctlInvocation
}

package enum CommandTable {
    package static let entries: [CommandEntry] = [
        CommandEntry(info: TriggerOptionsLine.command.info) { arguments, _ throws(UsageError) in
            .trigger(try TriggerOptionsLine.parse(arguments))
        },
        CommandEntry(info: ReplayCommand.command.info) { arguments, _ throws(UsageError) in
            .replay(try ReplayCommand.parse(arguments))
        },
        CommandEntry(info: RunState.command.info) { arguments, _ throws(UsageError) in
            .run(try ArgumentParser.parseRun(arguments))
        },
        CommandEntry(info: MergeCommand.command.info) { arguments, _ throws(UsageError) in
            .merge(files: try MergeCommand.parse(arguments))
        },
        CommandEntry(info: fileCommand("validate", "Check a scenario and run it without printing")) {
            arguments, _ throws(UsageError) in
            .validate(file: try ArgumentParser.singleFile(arguments, command: "validate"))
        },
        CommandEntry(info: fileCommand("catalog", "Print the products of a scenario or an Xcode .storekit file")) {
            arguments, _ throws(UsageError) in
            .catalog(file: try ArgumentParser.singleFile(arguments, command: "catalog"))
        },
        CommandEntry(
            info: CommandInfo(
                name: "certs",
                summary: "Export the signing chain; negative fixtures for verifiers; TLS test certificates",
                positional: "SUBCOMMAND", positionalValue: .choices(CertsInvocation.subcommands), options: []),
            subcommands: [
                CertsInvocation.signingCommand("export").info, CertsInvocation.signingCommand("negative-fixtures").info,
                TLSCertsOptions.command.info, OCSPServeOptions.command.info,
            ]
        ) { arguments, _ throws(UsageError) in .certs(try CertsInvocation.parse(arguments)) },
        CommandEntry(info: ServeCommand.command.info) { arguments, environment throws(UsageError) in
            let (arguments, key) = ServeEnvironment.arguments(arguments, environment: environment)
            return .serve(try ServeCommand.parse(arguments), keyFromEnvironment: key)
        },
        CommandEntry(info: CheckCommand.command.info) { arguments, _ throws(UsageError) in
            .check(try CheckCommand.parse(arguments))
        },
        CommandEntry(info: PopulationCommand.command.info) { arguments, _ throws(UsageError) in
            .population(try PopulationCommand.parse(arguments))
        },
        CommandEntry(info: completionCommand) { arguments, _ throws(UsageError) in
            .completion(shell: try Completion.parse(arguments))
        },
    ]

    /// The options of simctl itself, before a command.
    package static let globalOptions: [(names: [String], summary: String, invocation: SimctlInvocation)] = [
        (["--help", "-h"], "Show help", .help(topic: nil)),
        (["--version"], "Print the version", .version),
    ]

    /// The command names, with `help`, as the overview lists them.
    package static let names = entries.map(\.info.name) + ["help"]

    static func command(named name: String) -> CommandEntry? { entries.first { $0.info.name == name } }

    /// A command that takes one file and no options.
    static func fileCommand(_ name: String, _ summary: String) -> CommandInfo {
        CommandInfo(name: name, summary: summary, positional: "FILE", positionalValue: .file, options: [])
    }

    static let completionCommand = CommandInfo(
        name: "completion", summary: "Print a shell completion script (bash, zsh or fish)", positional: "SHELL",
        positionalValue: .choices(Completion.shells), options: [])
}
