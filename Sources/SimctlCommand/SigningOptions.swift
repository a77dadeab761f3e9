import Foundation
import SimctlCrypto
import SubscriptionSimulator

/// How payloads are signed, the same for every command that emits or signs notifications (`run`, `serve`, `check`,
/// `certs`; docs/signing.md, "The signing options"): `--environment NAME` (replaces the scenario's
/// `app.environment`; the command line wins over the file), and the chain, `--ca-seed TEXT` (a generated one) or
/// `--signing-chain DIR` (the user's own). No chain option means the environment's default
/// (``SimulatedEnvironment/defaultSigner``). Parsed here and only here: a command's parser hands each option it
/// meets to ``apply(_:_:topic:)``, or takes them all out first with ``consume(_:topic:)``.
package struct SigningOptions: Equatable, Sendable {
    /// `--environment NAME`: replaces the scenario's `app.environment`.
    package var environment: SimulatedEnvironment?
    /// `--ca-seed TEXT`.
    package var caSeed: String?
    /// `--signing-chain DIR`.
    package var chainDirectory: String?

    package init(environment: SimulatedEnvironment? = nil, caSeed: String? = nil, chainDirectory: String? = nil) {
        self.environment = environment
        self.caSeed = caSeed
        self.chainDirectory = chainDirectory
    }

    /// The option names, each taking one value (`--name value` or `--name=value`).
    package static let names = ["--environment", "--ca-seed", "--signing-chain"]

    /// The files `--signing-chain DIR` reads, as `simctl certs export` writes them.
    package static let chainFiles = (
        root: "root.pem", intermediate: "intermediate.pem", leaf: "leaf.pem", leafKey: "leaf-key.pem"
    )

    /// Takes option `name` with `value` when it is a signing option and returns true; returns false (and changes
    /// nothing) for any other name. Throws when the option is given twice, its value is unusable, or `--ca-seed`
    /// meets `--signing-chain`; `topic` names the command whose usage follows the message. The options themselves
    /// are declared once, in ``declarations(topic:)`` (SharedOptions.swift).
    package mutating func apply(_ name: String, _ value: String, topic: String) throws(UsageError) -> Bool {
        guard let option = Self.declarations(topic: topic).first(where: { $0.name == name }) else { return false }
        let given = [
            "--environment": environment != nil, "--ca-seed": caSeed != nil, "--signing-chain": chainDirectory != nil,
        ]
        if given[name] == true { throw UsageError(message: "option '\(name)' is given twice", topic: topic) }
        try option.apply(&self, value)
        if caSeed != nil && chainDirectory != nil { throw UsageError(message: Self.exclusive.message, topic: topic) }
        return true
    }

    /// Takes every signing option out of `arguments` (`--name value` and `--name=value`, up to a `--` that ends the
    /// options) and returns them with the arguments left, in their order, for the command's own parser.
    package static func consume(_ arguments: [String], topic: String) throws(UsageError) -> (
        signing: SigningOptions, rest: [String]
    ) {
        var signing = SigningOptions()
        let rest = try OptionParser.extract(
            arguments, declarations(topic: topic), groups: [exclusive], topic: topic, into: &signing)
        return (signing, rest)
    }

    static func environment(_ text: String, topic: String) throws(UsageError) -> SimulatedEnvironment {
        guard let value = SimulatedEnvironment(rawValue: text) else {
            let names = SimulatedEnvironment.allCases.map(\.rawValue)
            throw UsageError(
                message:
                    "unknown environment '\(text)'; expected one of \(names.joined(separator: ", "))\(ArgumentParser.hint(text, names))",
                topic: topic)
        }
        return value
    }

    /// The chain these options name (the default chain when neither is given).
    func chain() -> Result<SigningChain, CommandOutput> {
        if let caSeed { return .success(SigningChain.generate(caSeed: caSeed).chain) }
        guard let directory = chainDirectory else { return .success(.default) }
        let files = Self.chainFiles
        var texts: [String] = []
        for name in [files.root, files.intermediate, files.leaf, files.leafKey] {
            let path = (directory as NSString).appendingPathComponent(name)
            switch Simctl.read(path) {
            case .failure(let output): return .failure(output)
            case .success(let text): texts.append(text)
            }
        }
        do throws(SigningChainError) {
            return .success(
                try SigningChain(rootPEM: texts[0], intermediatePEM: texts[1], leafPEM: texts[2], leafKeyPEM: texts[3]))
        } catch {
            return .failure(
                CommandOutput(stdout: "", stderr: "\(directory): error: \(error)\n", exitCode: ExitCode.dataError))
        }
    }

    /// The signer for a run: ES256 with the named chain when a chain option is given, else nil (the environment's
    /// default: ES256 with the default chain in Sandbox and Production, the placeholder in LocalTesting and Xcode).
    func signer() -> Result<(any PayloadSigner)?, CommandOutput> {
        guard caSeed != nil || chainDirectory != nil else { return .success(nil) }
        return chain().map { ES256Signer(chain: $0) }
    }
}
