import Foundation
import SimctlCrypto
import SubscriptionSimulator

/// How payloads are signed: `--ca-seed TEXT` (a generated chain) or `--signing-chain DIR` (the user's own);
/// neither means the environment's default (``SimulatedEnvironment/defaultSigner``).
package struct SigningOptions: Equatable, Sendable {
    package var caSeed: String?
    package var chainDirectory: String?

    package init(caSeed: String? = nil, chainDirectory: String? = nil) {
        self.caSeed = caSeed
        self.chainDirectory = chainDirectory
    }

    /// The files `--signing-chain DIR` reads, as `simctl certs export` writes them.
    package static let chainFiles = (
        root: "root.pem", intermediate: "intermediate.pem", leaf: "leaf.pem", leafKey: "leaf-key.pem"
    )

    mutating func set(_ name: String, _ value: String, topic: String) throws(UsageError) {
        if name == "--ca-seed" {
            guard caSeed == nil else { throw UsageError(message: "option '--ca-seed' is given twice", topic: topic) }
            guard !value.isEmpty else { throw UsageError(message: "option '--ca-seed' needs a text", topic: topic) }
            caSeed = value
        } else {
            guard chainDirectory == nil else {
                throw UsageError(message: "option '--signing-chain' is given twice", topic: topic)
            }
            guard !value.isEmpty else {
                throw UsageError(message: "option '--signing-chain' needs a folder path", topic: topic)
            }
            chainDirectory = value
        }
        if caSeed != nil && chainDirectory != nil {
            throw UsageError(
                message:
                    "'--ca-seed' and '--signing-chain' cannot be combined: a seed generates a chain, the folder brings one",
                topic: topic)
        }
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

    /// The signer for a run: ES256 with the named chain when an option is given, else the environment's default.
    func signer() -> Result<(any PayloadSigner)?, CommandOutput> {
        guard caSeed != nil || chainDirectory != nil else { return .success(nil) }
        return chain().map { ES256Signer(chain: $0) }
    }
}

/// `simctl certs export DIR` and `simctl certs negative-fixtures FILE DIR`.
package enum CertsInvocation: Equatable, Sendable {
    case export(directory: String, signing: SigningOptions)
    case negativeFixtures(file: String, directory: String, environment: SimulatedEnvironment?, caSeed: String?)

    package static let subcommands = ["export", "negative-fixtures"]

    static func parse(_ arguments: [String]) throws(UsageError) -> CertsInvocation {
        guard let sub = arguments.first else {
            throw UsageError(message: "'certs' needs a subcommand: export or negative-fixtures", topic: "certs")
        }
        guard subcommands.contains(sub) else {
            throw UsageError(
                message: "unknown certs subcommand '\(sub)'\(ArgumentParser.hint(sub, subcommands))", topic: "certs")
        }
        let allowed = sub == "export" ? ["--ca-seed", "--signing-chain"] : ["--ca-seed", "--environment"]
        var positional: [String] = []
        var signing = SigningOptions()
        var environment: SimulatedEnvironment?
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                positional.append(argument)
                continue
            }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard allowed.contains(name) else {
                throw UsageError(
                    message: "'certs \(sub)' has no option '\(name)'\(ArgumentParser.hint(name, allowed))",
                    topic: "certs")
            }
            if value == nil {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError(message: "option '\(name)' needs a value", topic: "certs")
                }
                value = arguments[index]
                index += 1
            }
            if name == "--environment" {
                guard environment == nil else {
                    throw UsageError(message: "option '--environment' is given twice", topic: "certs")
                }
                environment = try SigningOptions.environment(value!, topic: "certs")
            } else {
                try signing.set(name, value!, topic: "certs")
            }
        }
        if sub == "export" {
            guard positional.count == 1 else {
                throw UsageError(message: "'certs export' takes one folder; found \(positional.count)", topic: "certs")
            }
            return .export(directory: positional[0], signing: signing)
        }
        guard positional.count == 2 else {
            throw UsageError(
                message:
                    "'certs negative-fixtures' takes a scenario file and a folder; found \(positional.count) arguments",
                topic: "certs")
        }
        return .negativeFixtures(
            file: positional[0], directory: positional[1], environment: environment, caSeed: signing.caSeed)
    }
}

extension Simctl {
    static func certs(_ invocation: CertsInvocation) -> CommandOutput {
        switch invocation {
        case .export(let directory, let signing):
            let chain: SigningChain
            switch signing.chain() {
            case .failure(let output): return output
            case .success(let value): chain = value
            }
            let files = exportFiles(chain)
            if let failure = write(files, to: directory) { return failure }
            let listing = files.map { "  \($0.name)\n" }.joined()
            return CommandOutput(
                stdout: "wrote the signing chain to \(directory):\n\(listing)", stderr: "", exitCode: ExitCode.success)
        case .negativeFixtures(let file, let directory, let environment, let caSeed):
            let scenario: Scenario
            switch decode(file, overrides: ScenarioOverrides(environment: environment)) {
            case .failure(let output): return output
            case .success(let decoded): scenario = decoded
            }
            let app = scenario.app
            guard app.environment == .sandbox || app.environment == .production else {
                return CommandOutput(
                    stdout: "",
                    stderr:
                        "\(file): error: negative fixtures need environment Sandbox or Production (Apple's libraries verify no signature in \(app.environment.rawValue)); pass --environment Sandbox\n",
                    exitCode: ExitCode.dataError)
            }
            let result: ScenarioRun
            do throws(ScenarioError) { result = try ScenarioRunner.run(scenario) } catch {
                return CommandOutput(stdout: "", stderr: "\(error)\n", exitCode: ExitCode.dataError)
            }
            guard let first = result.store.notifications.first else {
                return CommandOutput(
                    stdout: "", stderr: "\(file): error: the scenario sends no notification to build fixtures from\n",
                    exitCode: ExitCode.dataError)
            }
            let seed = caSeed ?? SigningChain.defaultCASeed
            let fixtures = NegativeFixtures.make(for: first, app: app, caSeed: seed)
            let root = SigningChain.generate(caSeed: seed).chain.root
            var files: [(name: String, bytes: [UInt8])] = fixtures.map {
                ($0.name + ".json", Array(($0.postBody + "\n").utf8))
            }
            files.append(("root.der", root.derRepresentation))
            files.append(("root.pem", Array(root.pemRepresentation.utf8)))
            let manifest = NegativeFixtures.manifest(fixtures, app: app, caSeed: seed)
            files.append(("manifest.json", Array((CanonicalJSON.pretty(manifest) + "\n").utf8)))
            if let failure = write(files, to: directory) { return failure }
            let width = fixtures.map(\.name.count).max() ?? 0
            let listing = fixtures.map {
                "  \($0.name).json" + String(repeating: " ", count: width - $0.name.count + 2) + $0.expectedStatus
                    + "\n"
            }.joined()
            return CommandOutput(
                stdout:
                    "wrote \(fixtures.count) fixtures to \(directory) (expected VerificationStatus of Apple's SignedDataVerifier):\n\(listing)",
                stderr: "", exitCode: ExitCode.success)
        }
    }

    /// `root`, `intermediate` and `leaf` in PEM and DER, and the leaf's PKCS#8 key: the folder `--signing-chain`
    /// reads back.
    static func exportFiles(_ chain: SigningChain) -> [(name: String, bytes: [UInt8])] {
        var files: [(name: String, bytes: [UInt8])] = []
        for (role, certificate) in [("root", chain.root), ("intermediate", chain.intermediate), ("leaf", chain.leaf)] {
            files.append(("\(role).pem", Array(certificate.pemRepresentation.utf8)))
            files.append(("\(role).der", certificate.derRepresentation))
        }
        files.append((SigningOptions.chainFiles.leafKey, Array(ECKeyEncoding.pkcs8PEM(chain.leafKey).utf8)))
        return files
    }

    static func write(_ files: [(name: String, bytes: [UInt8])], to directory: String) -> CommandOutput? {
        do throws(FixtureWriter.WriteError) {
            try Interrupts.deferred { () throws(FixtureWriter.WriteError) in
                try FixtureWriter.write(bytes: files, to: directory)
            }
            return nil
        } catch {
            return CommandOutput(stdout: "", stderr: "error: \(error)\n", exitCode: ExitCode.cannotCreate)
        }
    }
}
