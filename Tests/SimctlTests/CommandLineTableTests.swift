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

    /// The option names an OPTIONS-style row of a help starts with (`  --name ...`), in order; a run of rows of one
    /// option (its rows per value) counts once.
    static func listedOptions(_ help: String) -> [String] {
        var names: [String] = []
        for line in help.split(separator: "\n") where line.hasPrefix("  --") {
            let name = String(line.dropFirst(2).prefix { $0 != " " && $0 != "," })
            if names.last != name { names.append(name) }
        }
        return names
    }

    /// `simctl help COMMAND` is rendered from the declarations: every declared option is listed once (a
    /// subcommand's in its own section, a shared section's once), no undeclared option is listed, check's refused
    /// run options are neither listed nor named, every environment variable is named, and no line passes the width.
    @Test func everyHelpIsRenderedFromItsCommandsDeclarations() {
        for entry in CommandTable.entries {
            let text = HelpText.text(for: entry.info.name)
            let commands = [entry.info] + entry.subcommands
            let declared = Set(commands.flatMap(\.options).map(\.name))
            let listed = Self.listedOptions(text)
            if entry.subcommands.isEmpty {
                #expect(listed.sorted() == entry.info.options.map(\.name).sorted(), "simctl help \(entry.info.name)")
            } else {
                // certs: each subcommand's own options under its name; a shared section (signing) once.
                #expect(Set(listed) == declared, "simctl help \(entry.info.name)")
                for command in entry.subcommands {
                    let own = command.options.filter { $0.section == nil }.map(\.name)
                    let section = text.components(separatedBy: "\n\(command.name) OPTIONS:\n").dropFirst().first
                    #expect(own.isEmpty || section.map { Self.listedOptions($0).prefix(own.count) == own[...] } == true)
                }
            }
            #expect(Set(listed).count == listed.count || !entry.subcommands.isEmpty, "\(entry.info.name) lists twice")
            for option in commands.flatMap(\.options) {
                if let variable = option.environment {
                    #expect(text.contains(variable), "simctl help \(entry.info.name) does not name \(variable)")
                }
            }
            for line in text.split(separator: "\n") {
                #expect(line.count <= HelpText.width, "simctl help \(entry.info.name): \(line)")
            }
            #expect(Simctl.main(["help", entry.info.name]).stdout == text + "\n")
        }
        let check = HelpText.text(for: "check")
        for refused in CheckCommand.notApplicable.keys {
            #expect(!check.contains(refused), "simctl help check names the refused \(refused)")
        }
        #expect(CheckCommand.command.options.map(\.name).contains("--deliver-mode"))
    }

    /// The help's shape: the USAGE lines (the usage after an error too), the option rows at their column, and the
    /// overview's commands from the table.
    @Test func theHelpsShapeComesFromTheTable() {
        let run = HelpText.text(for: "run")
        #expect(run.hasPrefix("USAGE: simctl run FILE [--format timeline|jsonl|decoded|svg] [--out DIR] [--force]"))
        #expect(run.contains("\n  --format jsonl      exactly one App Store POST body"))
        #expect(run.contains("[--ca-seed TEXT | --signing-chain DIR]"))
        #expect(run.components(separatedBy: SigningOptions.section.title + ":").count == 2)
        let usage = HelpText.usageLine(for: "run")
        #expect(usage.hasPrefix("usage: simctl run FILE "))
        #expect(run.hasPrefix("USAGE" + usage.dropFirst("usage".count) + "\n\n"))
        #expect(HelpText.usageLine(for: "check").hasPrefix("usage: simctl check SCENARIO --deliver URL --entitlements"))
        let overview = HelpText.overview
        for entry in CommandTable.entries {
            let label = ([entry.info.name, entry.info.positional].filter { !$0.isEmpty }).joined(separator: " ")
            #expect(overview.contains("\n  \(label) "), "the overview lists \(label)")
        }
        for line in overview.split(separator: "\n") { #expect(line.count <= HelpText.width, "\(line)") }
        // Wrapping keeps every word and breaks only between words.
        let text = "one two three four five six seven eight nine ten eleven twelve"
        #expect(HelpText.wrap(text, indent: 100).map { $0.dropFirst(100) }.joined(separator: " ") == text[...])
    }

    /// Every example a help shows is a command line simctl parses.
    @Test func everyHelpExampleParses() throws {
        for entry in CommandTable.entries {
            for example in ([entry.info] + entry.subcommands).flatMap(\.page.examples) {
                var words: [String] = []
                var quoted = false
                var word = ""
                for character in example {
                    if character == "'" {
                        quoted.toggle()
                    } else if character == " " && !quoted {
                        words.append(word)
                        word = ""
                    } else {
                        word.append(character)
                    }
                }
                words.append(word)
                #expect(throws: Never.self, "\(example)") { _ = try ArgumentParser.parse(words) }
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
