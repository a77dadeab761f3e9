import Foundation
import Testing

@testable import SimctlCommand

/// The declarative command line (issue 44): one parser over the commands' declarations, the forms it takes, and the
/// completion scripts generated from the same table.
@Suite struct CommandLineTableTests {
    static func usage(_ arguments: [String]) -> String {
        let output = Simctl.main(arguments)
        #expect(output.exitCode == ExitCode.usage, "\(arguments)")
        return output.stderr
    }

    @Test func everyCommandTakesBothFormsAndTheEndOfOptions() throws {
        #expect(
            try ArgumentParser.parse(["run", "a.yaml", "--seed=7"])
                == ArgumentParser.parse(["run", "a.yaml", "--seed", "7"]))
        guard case .run(let options) = try ArgumentParser.parse(["run", "--seed", "7", "--", "-odd.yaml"]) else {
            Issue.record("not a run")
            return
        }
        #expect(options.file == "-odd.yaml" && options.seed == 7)
        #expect(try ServeCommand.parse(["a.yaml", "--port=0"]).port == 0)
        #expect(
            try CheckCommand.parse(["a.yaml", "--deliver=http://127.0.0.1:1/", "--entitlements=x"]).file == "a.yaml")
        #expect(try ArgumentParser.parse(["merge", "--", "-part"]) == .merge(files: ["-part"]))
    }

    @Test func helpAnywhereAfterTheCommand() throws {
        for command in ["run", "trigger", "replay", "merge", "serve", "check", "population", "certs", "validate"] {
            #expect(try ArgumentParser.parse([command, "x", "--help"]) == .help(topic: command))
            #expect(try ArgumentParser.parse([command, "-h"]) == .help(topic: command))
        }
    }

    @Test func mistakesNameTheCommandAndShowItsUsage() {
        let unknown = Self.usage(["serve", "a.yaml", "--prot", "1"])
        #expect(unknown.hasPrefix("error: unknown option '--prot'; did you mean '--port'?\nusage: simctl serve "))
        #expect(unknown.hasSuffix("see 'simctl help serve'\n"))
        #expect(Self.usage(["trigger", "REFUND", "--tamper=yes"]).hasPrefix("error: option '--tamper' takes no value"))
        #expect(Self.usage(["replay", "d", "--deliver"]).hasPrefix("error: option '--deliver' needs a value"))
        #expect(
            Self.usage(["population", "--seed", "1", "--seed", "2"])
                .hasPrefix("error: option '--seed' is given twice"))
        #expect(Self.usage(["population", "--json", "--format", "json"]).contains("see 'simctl population --help'"))
        #expect(
            Self.usage(["certs", "tls", "d", "--nam", "x"]).hasPrefix(
                "error: 'certs tls' has no option '--nam'; did you mean '--name'?"))
        #expect(
            Self.usage(["check", "a.yaml", "--ca-seed", "a", "--signing-chain", "d"]).hasPrefix(
                "error: '--ca-seed' and '--signing-chain' cannot be combined"))
        #expect(Self.usage(["completion", "tcsh"]).hasPrefix("error: 'completion' needs one shell: bash, zsh or fish"))
    }

    @Test func repeatableOptionsTakeEachValue() throws {
        #expect(
            try ServeCommand.parse(["a.yaml", "--allow-host", "a", "--allow-host=b,c"]).allowHosts == ["a", "b", "c"])
        guard
            case .certs(.tls(let tls)) = try ArgumentParser.parse(["certs", "tls", "d", "--name", "a", "--name", "b"])
        else {
            Issue.record("not certs tls")
            return
        }
        #expect(tls.names == ["a", "b"])
    }

    @Test func theEnvironmentsVariablesAreDeclaredWithTheirOptions() {
        #expect(
            ServeEnvironment.variables.map(\.name) == [
                "SIMCTL_HOST", "SIMCTL_PORT", "SIMCTL_SEED", "SIMCTL_START", "SIMCTL_ENVIRONMENT", "SIMCTL_DELIVER",
                "SIMCTL_API_KEY_PEM_FILE", "SIMCTL_LOG", "SIMCTL_ALLOW_HOST",
            ])
    }

    @Test func theTableListsTheOverviewsCommands() {
        #expect(
            CommandTable.names == [
                "trigger", "replay", "run", "merge", "validate", "catalog", "certs", "serve", "check", "population",
                "completion", "help",
            ])
        // Every declared option name is an option (`--x`), and no command declares one twice.
        for entry in CommandTable.entries {
            for command in [entry.info] + entry.subcommands {
                let names = command.options.map(\.name)
                #expect(Set(names).count == names.count, "\(command.name)")
                #expect(names.allSatisfy { $0.hasPrefix("--") && !$0.contains("=") }, "\(command.name)")
            }
        }
    }

    /// `simctl help COMMAND` is written by hand (its wording is the docs'), so it is checked against the table:
    /// every declared option and environment variable is in the command's help, and every `--option` the help
    /// names is declared by that command or one of its subcommands (or is simctl's own `--help`/`--version`).
    @Test func everyHelpTextMatchesItsCommandsDeclarations() {
        for entry in CommandTable.entries {
            let text = HelpText.text(for: entry.info.name)
            let declared = ([entry.info] + entry.subcommands).flatMap(\.options)
            let globs = text.matches(of: /--[a-z-]+-\*/).map { String($0.output.dropLast()) }
            for option in declared {
                #expect(
                    text.contains(option.name) || globs.contains { option.name.hasPrefix($0) },
                    "simctl help \(entry.info.name) does not name \(option.name)")
                if let variable = option.environment {
                    #expect(text.contains(variable), "simctl help \(entry.info.name) does not name \(variable)")
                }
            }
            let names = Set(declared.map(\.name) + ["--help", "--version"])
            var named: Set<String> = []
            // Another command's options, quoted as 'simctl run ... --shard I/N', are that command's.
            var rest = Substring(text.replacing(/'simctl [^']*'/, with: ""))
            while let range = rest.range(of: "--") {
                let word = rest[range.lowerBound...].prefix { $0 == "-" || $0.isLetter || $0.isNumber || $0 == "*" }
                if word.count > 2, word.dropFirst(2).first?.isLetter == true { named.insert(String(word)) }
                rest = rest[range.upperBound...]
            }
            // `--chaos-*` names every option of that prefix.
            for glob in named where glob.hasSuffix("-*") {
                named.remove(glob)
                named.formUnion(names.filter { $0.hasPrefix(glob.dropLast()) })
            }
            for name in named.subtracting(names).sorted() {
                let command = entry.info.name
                Issue.record("simctl help \(command) names \(name), which '\(command)' does not declare")
            }
        }
    }

    @Test func completionScriptsComeFromTheTable() {
        let bash = Completion.script(for: "bash")
        #expect(bash.contains("complete -o filenames -F _simctl simctl"))
        #expect(bash.contains("compgen -W \"trigger replay run merge validate catalog certs serve check population"))
        #expect(bash.contains("--format) COMPREPLY=($(compgen -W \"timeline jsonl decoded svg\" -- \"$cur\"))"))
        #expect(bash.contains("'certs tls')"))
        let zsh = Completion.script(for: "zsh")
        #expect(zsh.hasPrefix("#compdef simctl\n"))
        #expect(zsh.contains("_simctl_certs_negative_fixtures()"))
        #expect(zsh.contains("'--deliver-mode=[production or sandbox retries]:M:(production sandbox)'"))
        #expect(zsh.contains("'*--map-product=["))
        let fish = Completion.script(for: "fish")
        #expect(fish.contains("complete -c simctl -n '__fish_use_subcommand' -a check -d "))
        #expect(fish.contains("-l environment -x -a 'LocalTesting Xcode Sandbox Production'"))
        for entry in CommandTable.entries {
            for option in entry.info.options {
                #expect(bash.contains(option.name), "bash: \(entry.info.name) \(option.name)")
                #expect(fish.contains("-l \(option.name.dropFirst(2))"), "fish: \(entry.info.name) \(option.name)")
            }
        }
        #expect(Simctl.main(["completion", "fish"]).stdout == fish)
    }

    /// docs/cli.md's console block is what simctl prints.
    @Test func theDocsErrorIsWhatSimctlPrints() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```console\n").dropFirst().first)
            .components(separatedBy: "```")[0]
        var lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let command = lines.removeFirst().dropFirst("$ simctl ".count).split(separator: " ").map(String.init)
        #expect(Simctl.main(command).stderr == lines.joined(separator: "\n"))
    }
}
