import Foundation
import SimctlCrypto
import SubscriptionSimulator

/// `simctl certs export DIR`, `simctl certs negative-fixtures FILE DIR`, `simctl certs tls DIR` and
/// `simctl certs ocsp`.
package enum CertsInvocation: Equatable, Sendable {
    case export(directory: String, signing: SigningOptions)
    /// `certs export --ocsp-url URL DIR`: the opt-in chain whose intermediate and leaf name the OCSP responder at
    /// URL (docs/signing.md, "Online certificate checks (OCSP)"); the seed's keys and serial numbers.
    case exportOCSP(directory: String, caSeed: String?, url: OCSPResponderURL)
    /// `certs ocsp`: the responder for that chain (`Sources/SimctlCommand/CertsOCSP.swift`), its own options.
    case ocsp(OCSPServeOptions)
    case negativeFixtures(file: String, directory: String, environment: SimulatedEnvironment?, caSeed: String?)
    /// `certs tls`: its own options (`Sources/SimctlCommand/CertsTLS.swift`), not the signing options.
    case tls(TLSCertsOptions)

    package static let subcommands = ["export", "negative-fixtures", "tls", "ocsp"]

    /// `certs export` and `certs negative-fixtures`: the signing options and their folders and files.
    struct SigningState: Sendable {
        var signing = SigningOptions()
        var positional: [String] = []
        /// `--ocsp-url URL` (`certs export` only): the opt-in chain that names an OCSP responder (docs/signing.md).
        var ocspURL: OCSPResponderURL?
    }

    /// `certs export --ocsp-url URL`, checked by ``OCSPResponderURL`` (rule ocsp-url).
    static let exportOCSPOption = OptionDeclaration<SigningState>.value(
        "--ocsp-url", "URL", .url, "the chain names this OCSP responder (simctl certs ocsp; docs/signing.md)"
    ) { (state: inout SigningState, text: String) throws(UsageError) in
        state.ocspURL = try OCSPServeOptions.ocspURL(text)
    }

    /// The signing options (`--environment`, `--ca-seed`, `--signing-chain`) on the certs subcommands' state.
    static var signingOptions: [OptionDeclaration<SigningState>] {
        SigningOptions.declarations(topic: "certs").map { $0.lifted(\SigningState.signing) }
    }

    /// `certs negative-fixtures --signing-chain DIR`: parsed only to be refused with the reason (neither listed in the
    /// usage and help nor completed, ``OptionInfo/isRefusal``).
    static let negativeFixturesChainRefusal = OptionDeclaration<SigningState>.value(
        "--signing-chain", "DIR", OptionInfo.refusalSummary
    ) { (_: inout SigningState, _: String) throws(UsageError) in
        throw UsageError(
            message: "option '--signing-chain' does not apply to 'certs negative-fixtures': the fixtures re-issue "
                + "certificates (wrong markers, an expired leaf) with the intermediate's and the root's keys, which "
                + "the folder does not hold; use --ca-seed TEXT",
            topic: "certs")
    }

    static func signingCommand(_ sub: String) -> CommandDeclaration<SigningState> {
        CommandDeclaration(
            name: "certs \(sub)", topic: "certs",
            summary: sub == "export"
                ? "write the signing chain's certificates and keys" : "write negative fixtures for verifiers",
            positional: sub == "export" ? "DIR" : "FILE DIR", positionalValue: sub == "export" ? .directory : .file,
            options: sub == "export"
                ? signingOptions + [exportOCSPOption]
                : signingOptions.filter { $0.name != "--signing-chain" } + [negativeFixturesChainRefusal],
            // The fixtures refuse `--signing-chain`, so only export lists the pair.
            groups: sub == "export" ? [SigningOptions.exclusive] : [],
            argument: { state, argument in state.positional.append(argument) },
            unknownOption: { name, hint in "'certs \(sub)' has no option '\(name)'\(hint)" },
            page: HelpPage(about: [.paragraph(sub == "export" ? exportHelp : negativeFixturesHelp)]))
    }

    static let exportHelp =
        "writes the chain Sandbox and Production payloads are signed with: root, intermediate and leaf as .pem and "
        + ".der, and the leaf's key as leaf-key.pem. Give root.der (or root.pem) to your verifier as its trusted "
        + "root. It takes the signing options of run, serve and check, so one set of options names the chain "
        + "everywhere (--environment does not change the chain). With --ocsp-url URL (and --ca-seed, not "
        + "--signing-chain) its intermediate and leaf name that OCSP responder (certs ocsp)."
    static let negativeFixturesHelp =
        "runs the scenario FILE and writes its first notification made to fail verification in each way a verifier "
        + "must catch (altered payload, another key, wrong OIDs, expired leaf, untrusted root, one-certificate chain, "
        + "wrong bundleId, wrong environment), a valid control, root.der and manifest.json with the "
        + "VerificationStatus Apple's SignedDataVerifier returns for each. It takes --environment (the environment "
        + "the fixtures claim) and --ca-seed, not --signing-chain (the fixtures need the chain's CA keys)."

    static func parse(_ arguments: [String]) throws(UsageError) -> CertsInvocation {
        guard let sub = arguments.first else {
            throw UsageError(
                message: "'certs' needs a subcommand: export, negative-fixtures, tls or ocsp", topic: "certs")
        }
        guard subcommands.contains(sub) else {
            throw UsageError(
                message: "unknown certs subcommand '\(sub)'\(ArgumentParser.hint(sub, subcommands))", topic: "certs")
        }
        if sub == "tls" { return .tls(try TLSCertsOptions.parse(Array(arguments.dropFirst()))) }
        if sub == "ocsp" { return .ocsp(try OCSPServeOptions.parse(Array(arguments.dropFirst()))) }
        // The signing options are the same as every command's (SigningOptions); the rest are folders and files.
        var state = SigningState()
        try OptionParser.parse(Array(arguments.dropFirst()), signingCommand(sub), into: &state)
        let (signing, positional, ocspURL) = (state.signing, state.positional, state.ocspURL)
        if sub == "export" {
            guard positional.count == 1 else {
                throw UsageError(message: "'certs export' takes one folder; found \(positional.count)", topic: "certs")
            }
            if let ocspURL {
                guard signing.chainDirectory == nil else {
                    throw UsageError(
                        message: "option '--ocsp-url' does not apply to '--signing-chain': it issues the chain from "
                            + "a seed (--ca-seed TEXT), whose CA keys also sign the responder's answers",
                        topic: "certs")
                }
                return .exportOCSP(directory: positional[0], caSeed: signing.caSeed, url: ocspURL)
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
            file: positional[0], directory: positional[1], environment: signing.environment, caSeed: signing.caSeed)
    }
}

extension Simctl {
    static func certs(_ invocation: CertsInvocation, clock: @escaping @Sendable () -> Instant = wallClock)
        -> CommandOutput
    {
        switch invocation {
        case .tls(let options): return certsTLS(options)
        case .ocsp(let options): return certsOCSP(options, clock: clock)
        case .exportOCSP(let directory, let caSeed, let url):
            let chain = SigningChain.generate(caSeed: caSeed ?? SigningChain.defaultCASeed, ocspURL: url.text).chain
            let files = exportFiles(chain)
            if let failure = write(files, to: directory) { return failure }
            let listing = files.map { "  \($0.name)\n" }.joined()
            return CommandOutput(
                stdout: "wrote the signing chain with the OCSP responder \(url.text) to \(directory):\n\(listing)"
                    + "serve its answers with: simctl certs ocsp --ocsp-url \(url.text)"
                    + "\(caSeed.map { " --ca-seed '\($0)'" } ?? "")\n",
                stderr: "", exitCode: ExitCode.success)
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
