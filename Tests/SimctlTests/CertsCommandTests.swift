import Foundation
import SimctlCrypto
import Testing
@testable import SimctlCommand
@testable import SubscriptionSimulator

@Suite struct CertsArgumentTests {
    static let valid: [([String], SimctlInvocation)] = [
        (["certs", "export", "out"], .certs(.export(directory: "out", signing: .init()))),
        (
            ["certs", "export", "out", "--ca-seed", "team"],
            .certs(.export(directory: "out", signing: .init(caSeed: "team")))
        ),
        (
            ["certs", "export", "--signing-chain=mine", "out"],
            .certs(.export(directory: "out", signing: .init(chainDirectory: "mine")))
        ),
        (
            ["certs", "negative-fixtures", "a.yaml", "out", "--environment", "Sandbox"],
            .certs(.negativeFixtures(file: "a.yaml", directory: "out", environment: .sandbox, caSeed: nil))
        ),
        (
            ["certs", "export", "out", "--environment", "Sandbox", "--ca-seed", "team"],
            .certs(.export(directory: "out", signing: .init(environment: .sandbox, caSeed: "team")))
        ),
        (["certs", "--help"], .help(topic: "certs")),
        (
            ["run", "a.yaml", "--environment", "Production", "--ca-seed", "x"],
            .run(RunOptions(file: "a.yaml", environment: .production, signing: .init(caSeed: "x")))
        ),
        (
            ["run", "a.yaml", "--signing-chain", "dir"],
            .run(RunOptions(file: "a.yaml", signing: .init(chainDirectory: "dir")))
        ),
    ]

    @Test(arguments: valid)
    func parses(arguments: [String], invocation: SimctlInvocation) throws {
        #expect(try ArgumentParser.parse(arguments) == invocation)
    }

    static let invalid: [([String], String)] = [
        (["certs"], "needs a subcommand"),
        (["certs", "exprt", "out"], "did you mean 'export'"),
        (["certs", "export"], "takes one folder"),
        (["certs", "export", "out", "--environment", "Sandbx"], "did you mean 'Sandbox'"),
        (
            ["certs", "export", "out", "--enviroment", "Sandbox"],
            "has no option '--enviroment'; did you mean '--environment'"
        ),
        (
            ["certs", "negative-fixtures", "a.yaml", "out", "--signing-chain", "d"],
            "does not apply to 'certs negative-fixtures'"
        ),
        (["certs", "negative-fixtures", "a.yaml"], "a scenario file and a folder"),
        (["run", "a.yaml", "--environment", "Sandbx"], "did you mean 'Sandbox'"),
        (["run", "a.yaml", "--ca-seed", "x", "--signing-chain", "d"], "cannot be combined"),
        (["run", "a.yaml", "--ca-seed", "x", "--ca-seed", "y"], "given twice"),
    ]

    @Test(arguments: invalid)
    func refuses(arguments: [String], message: String) {
        #expect {
            try ArgumentParser.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.message.contains(message) == true
        }
    }
}

@Suite struct CertsCommandTests {
    let scenario = SimctlProcess.packageRoot.appendingPathComponent("Scenarios/cancel-during-grace.yaml").path

    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("simctl-certs-\(name)-\(UUIDText.next())").path
    }

    func read(_ directory: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name)))
    }

    @Test func exportWritesEachCertificateInPEMAndDERAndTheLeafKey() throws {
        let directory = temporaryPath("export")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = Simctl.main(["certs", "export", directory])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let chain = SigningChain.default
        for (role, certificate) in [("root", chain.root), ("intermediate", chain.intermediate), ("leaf", chain.leaf)] {
            #expect(try read(directory, "\(role).der") == certificate.derRepresentation)
            #expect(try read(directory, "\(role).pem") == Array(certificate.pemRepresentation.utf8))
        }
        let key = try ECKeyEncoding.privateKey(
            pem: String(decoding: try read(directory, "leaf-key.pem"), as: UTF8.self))
        #expect(key == chain.leafKey)
    }

    @Test func anExportedChainSignsAsTheSeedItCameFrom() throws {
        let directory = temporaryPath("byo")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(Simctl.main(["certs", "export", directory, "--ca-seed", "team"]).exitCode == 0)
        let fromFolder = Simctl.main([
            "run", scenario, "--environment", "Sandbox", "--format", "jsonl", "--signing-chain", directory,
        ])
        let fromSeed = Simctl.main([
            "run", scenario, "--environment", "Sandbox", "--format", "jsonl", "--ca-seed", "team",
        ])
        let standard = Simctl.main(["run", scenario, "--environment", "Sandbox", "--format", "jsonl"])
        #expect(fromFolder.exitCode == 0 && !fromFolder.stdout.isEmpty, "\(fromFolder.stderr)")
        #expect(fromFolder.stdout == fromSeed.stdout)
        #expect(fromFolder.stdout != standard.stdout)
    }

    @Test func aSigningChainFolderWithAForeignKeyIsRefused() throws {
        let directory = temporaryPath("foreign")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(Simctl.main(["certs", "export", directory]).exitCode == 0)
        let other = ECKeyEncoding.pkcs8PEM(SigningChain.generate(caSeed: "other").chain.leafKey)
        try Data(other.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent("leaf-key.pem"))
        let result = Simctl.main(["run", scenario, "--format", "jsonl", "--signing-chain", directory])
        #expect(result.exitCode == ExitCode.dataError)
        #expect(result.stderr.contains("does not belong to the leaf certificate"))
    }

    @Test func aMissingSigningChainFolderIsRefused() {
        let result = Simctl.main(["run", scenario, "--signing-chain", temporaryPath("missing")])
        #expect(result.exitCode == ExitCode.noInput && result.stderr.contains("root.pem"))
    }

    @Test func negativeFixturesAreWrittenWithTheirManifestAndRoot() throws {
        let directory = temporaryPath("negative")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = Simctl.main(["certs", "negative-fixtures", scenario, directory, "--environment", "Production"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(try read(directory, "root.der") == SigningChain.default.root.derRepresentation)
        let manifest = try CanonicalJSON.parse(String(decoding: try read(directory, "manifest.json"), as: UTF8.self))
        #expect(manifest.value(at: "verifier.environment") == .string("Production"))
        #expect(manifest.value(at: "verifier.appAppleId") == .integer(1_234_567_890))
        #expect(manifest.value(at: "fixtures.9.file") == .string("wrong-environment.json"))
        #expect(manifest.value(at: "fixtures.9.expectedStatus") == .string("INVALID_APP_IDENTIFIER"))
        #expect(!(try read(directory, "altered-payload.json")).isEmpty)
    }

    @Test func negativeFixturesNeedASignedEnvironment() {
        let result = Simctl.main(["certs", "negative-fixtures", scenario, temporaryPath("local")])
        #expect(result.exitCode == ExitCode.dataError && result.stderr.contains("--environment Sandbox"))
    }
}
