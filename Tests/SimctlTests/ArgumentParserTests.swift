import Testing
@testable import SimctlCommand

@Suite struct ArgumentParserTests {
    static let valid: [([String], SimctlInvocation)] = [
        ([], .help(topic: nil)),
        (["--help"], .help(topic: nil)),
        (["-h"], .help(topic: nil)),
        (["help"], .help(topic: nil)),
        (["help", "run"], .help(topic: "run")),
        (["run", "--help"], .help(topic: "run")),
        (["validate", "-h"], .help(topic: "validate")),
        (["--version"], .version),
        (["run", "a.yaml"], .run(RunOptions(file: "a.yaml"))),
        (["run", "a.yaml", "--format", "jsonl"], .run(RunOptions(file: "a.yaml", format: .jsonl))),
        (["run", "--format=decoded", "a.yaml"], .run(RunOptions(file: "a.yaml", format: .decoded))),
        (
            ["run", "a.yaml", "--out", "fx", "--until", "P2M", "--seed", "42"],
            .run(RunOptions(file: "a.yaml", outDirectory: "fx", until: "P2M", seed: 42))
        ),
        (["run", "--", "--odd-name.yaml"], .run(RunOptions(file: "--odd-name.yaml"))),
        (
            ["run", "a.yaml", "--out", "fx", "--force", "--start", "now"],
            .run(RunOptions(file: "a.yaml", outDirectory: "fx", start: "now", force: true))
        ),
        (
            ["run", "a.yaml", "--start=2026-12-01T00:00:00Z"],
            .run(RunOptions(file: "a.yaml", start: "2026-12-01T00:00:00Z"))
        ),
        (["validate", "a.yaml"], .validate(file: "a.yaml")),
        (["catalog", "Products.storekit"], .catalog(file: "Products.storekit")),
    ]

    @Test(arguments: valid)
    func parses(arguments: [String], invocation: SimctlInvocation) throws {
        #expect(try ArgumentParser.parse(arguments) == invocation)
    }

    static let invalid: [([String], String, String?)] = [
        (["rn", "a.yaml"], "unknown command 'rn'; did you mean 'run'?", nil),
        (["frobnicate"], "unknown command 'frobnicate'", nil),
        (["--verison"], "unknown option '--verison'; did you mean '--version'?", nil),
        (["help", "rnu"], "unknown command 'rnu'; did you mean 'run'?", nil),
        (["run"], "'run' needs a scenario file", "run"),
        (["run", "a.yaml", "b.yaml"], "'run' takes one scenario file; found 'a.yaml' and 'b.yaml'", "run"),
        (["run", "a.yaml", "--fromat", "jsonl"], "unknown option '--fromat'; did you mean '--format'?", "run"),
        (["run", "a.yaml", "--format"], "option '--format' needs a value", "run"),
        (["run", "a.yaml", "--force"], "option '--force' applies to '--out DIR'; give the folder to replace", "run"),
        (["run", "a.yaml", "--out", "fx", "--force=yes"], "option '--force' takes no value", "run"),
        (
            ["run", "a.yaml", "--format", "json"],
            "unknown format 'json'; expected one of timeline, jsonl, decoded, svg; did you mean 'jsonl'?", "run"
        ),
        (
            ["run", "a.yaml", "--format", "xml"], "unknown format 'xml'; expected one of timeline, jsonl, decoded, svg",
            "run"
        ),
        (
            ["run", "a.yaml", "--seed", "-1"],
            "option '--seed' needs a whole number from 0 to 18446744073709551615, found '-1'", "run"
        ),
        (
            ["run", "a.yaml", "--seed", "x"],
            "option '--seed' needs a whole number from 0 to 18446744073709551615, found 'x'", "run"
        ),
        (
            ["run", "a.yaml", "--seed=1.5"],
            "option '--seed' needs a whole number from 0 to 18446744073709551615, found '1.5'", "run"
        ),
        (["run", "a.yaml", "--format", "jsonl", "--format", "decoded"], "option '--format' is given twice", "run"),
        (["run", "a.yaml", "--out="], "option '--out' needs a folder path", "run"),
        (["validate"], "'validate' needs a file", "validate"),
        (["validate", "a", "b"], "'validate' takes one file; found 2", "validate"),
        (["catalog", "--format", "x"], "'catalog' has no option '--format'", "catalog"),
        (["help", "run", "more"], "'help' takes at most one command name", nil),
    ]

    @Test(arguments: invalid)
    func rejects(arguments: [String], message: String, topic: String?) {
        #expect(throws: UsageError(message: message, topic: topic)) { try ArgumentParser.parse(arguments) }
    }

    @Test func usageErrorsExitWith64AndSayHowToFixTheCall() {
        let output = Simctl.main(["run", "a.yaml", "--fromat", "jsonl"])
        #expect(output.exitCode == 64 && output.stdout.isEmpty)
        #expect(
            output.stderr
                == "error: unknown option '--fromat'; did you mean '--format'?\n" + HelpText.usageLine(for: "run")
                + "\nsee 'simctl help run'\n")
    }

    @Test func helpAndVersion() {
        #expect(
            Simctl.main(["--version"]) == CommandOutput(stdout: simctlVersionLine + "\n", stderr: "", exitCode: 0))
        let help = Simctl.main(["--help"])
        #expect(help.exitCode == 0 && help.stdout == HelpText.overview + "\n")
        for command in ["run", "validate", "catalog"] {
            #expect(Simctl.main(["help", command]).stdout.hasPrefix("USAGE: simctl \(command) FILE"))
        }
        #expect(HelpText.overview.contains("64  bad usage") && HelpText.overview.contains("65  invalid scenario"))
    }
}
