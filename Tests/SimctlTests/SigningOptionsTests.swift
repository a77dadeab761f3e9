import Foundation
import Testing
@testable import SimctlCommand
@testable import SubscriptionSimulator

/// One set of signing options, parsed by SigningOptions and accepted alike by run, serve, check and certs
/// (docs/signing.md, "The signing options").
@Suite struct SigningOptionsTests {
    static let given = ["--environment", "Sandbox", "--ca-seed", "team"]
    static let expected = SigningOptions(environment: .sandbox, caSeed: "team")

    @Test func consumeTakesTheSigningOptionsAndKeepsTheRestInOrder() throws {
        let (signing, rest) = try SigningOptions.consume(
            ["a.yaml", "--environment=Sandbox", "--port", "0", "--ca-seed", "team", "--", "--ca-seed"], topic: "x")
        #expect(signing == Self.expected)
        #expect(rest == ["a.yaml", "--port", "0", "--", "--ca-seed"])
    }

    @Test func applyTakesOnlyItsOwnOptions() throws {
        var signing = SigningOptions()
        #expect(try signing.apply("--port", "0", topic: "x") == false)
        #expect(signing == SigningOptions())
        #expect(try signing.apply("--signing-chain", "dir", topic: "x"))
        #expect(signing.chainDirectory == "dir")
    }

    static let refused: [([String], String)] = [
        (["--environment", "Sandbx"], "unknown environment 'Sandbx'; expected one of LocalTesting, Xcode, Sandbox, "),
        (["--environment", "Sandbox", "--environment", "Production"], "option '--environment' is given twice"),
        (["--ca-seed", ""], "option '--ca-seed' needs a text"),
        (["--ca-seed", "a", "--signing-chain", "d"], "'--ca-seed' and '--signing-chain' cannot be combined"),
        (["--signing-chain"], "option '--signing-chain' needs a value"),
    ]

    /// Every command gives the same message for the same mistake.
    @Test(arguments: refused)
    func everyCommandRefusesAlike(options: [String], message: String) {
        let commands: [(String, () throws(UsageError) -> Void)] = [
            ("run", { () throws(UsageError) in _ = try ArgumentParser.parse(["run", "a.yaml"] + options) }),
            ("serve", { () throws(UsageError) in _ = try ServeCommand.parse(["a.yaml"] + options) }),
            (
                "check",
                { () throws(UsageError) in
                    _ = try CheckCommand.parse(
                        [
                            "a.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements",
                            "http://h/{originalTransactionId}",
                        ]
                            + options)
                }
            ),
            ("certs", { () throws(UsageError) in _ = try ArgumentParser.parse(["certs", "export", "out"] + options) }),
        ]
        for (name, parse) in commands {
            do throws(UsageError) {
                try parse()
                Issue.record("\(name) accepted \(options)")
            } catch {
                #expect(error.message.hasPrefix(message), "\(name): \(error.message)")
            }
        }
    }

    @Test func everyCommandAcceptsTheSameOptions() throws {
        guard case .run(let run) = try ArgumentParser.parse(["run", "a.yaml"] + Self.given) else {
            Issue.record("not a run")
            return
        }
        #expect(run.signing == Self.expected && run.environment == .sandbox)
        #expect(try ServeCommand.parse(["a.yaml"] + Self.given).signing == Self.expected)
        let check = try CheckCommand.parse(
            ["a.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements", "http://h/{originalTransactionId}"]
                + Self.given)
        #expect(check.signing == Self.expected)
        let replay = try CheckCommand.parse(
            [
                "--replay", "c.yaml", "--deliver", "http://127.0.0.1:1/", "--entitlements",
                "http://h/{originalTransactionId}",
                "--signing-chain", "mine",
            ])
        #expect(replay.signing == SigningOptions(chainDirectory: "mine"))
        #expect(
            try ArgumentParser.parse(["certs", "export", "out"] + Self.given)
                == .certs(.export(directory: "out", signing: Self.expected)))
    }

    /// Each command's help shows the options and points to docs/signing.md.
    @Test func everyHelpShowsThemOnce() {
        for topic in ["run", "serve", "check", "certs", "trigger"] {
            let help = HelpText.text(for: topic)
            #expect(help.components(separatedBy: "\n" + SigningOptions.section.title + ":\n").count == 2, "\(topic)")
            #expect(help.contains("docs/signing.md"), "\(topic)")
        }
    }
}
