import Foundation
import SimctlCrypto
import SimctlHTTP
import SubscriptionSimulator
import Testing

@testable import SimctlCommand

/// `simctl check` signs what it delivers as its signing options say (docs/check.md, "Signing: which environment,
/// which chain"): `--environment Sandbox --ca-seed TEXT` with TEXT's chain, and with nothing the scenario's
/// environment (LocalTesting for Tests/Check/header.yaml: the placeholder, no chain). Apple's verifier accepting
/// those payloads is Tests/Conformance/signing_options.py's part.
@Suite struct CheckSigningTests {
    final class Bodies: @unchecked Sendable {
        let lock = NSLock()
        var list: [String] = []
        func append(_ body: String) { lock.withLock { list.append(body) } }
        var all: [String] { lock.withLock { list } }
    }

    /// The protected header of a POST body's `signedPayload`.
    static func header(_ body: String) throws -> JSONValue {
        guard case .object(let members) = try CanonicalJSON.parse(body),
            case .string(let jws)? = members["signedPayload"],
            let bytes = Base64URL.decode(String(jws.split(separator: ".")[0]))
        else { throw CheckSigningError(body: body) }
        return try CanonicalJSON.parse(String(decoding: bytes, as: UTF8.self))
    }

    struct CheckSigningError: Error { var body: String }

    @Test func checkSignsWithTheChainAndEnvironmentItIsGiven() throws {
        let bodies = Bodies()
        let receiver = try LoopbackReceiver { message in
            if case .request(let method, _, _) = message.startLine, method == "GET" {
                return .respond(status: 404, body: "")
            }
            bodies.append(String(decoding: message.body, as: UTF8.self))
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let team = SigningChain.generate(caSeed: "check signing test").chain
        for options in [["--environment", "Sandbox", "--ca-seed", "check signing test"], []] {
            let before = bodies.all.count
            let output = Simctl.main(
                [
                    "check", CheckCommandTests.header, "--cases", "1", "--no-shrink", "--no-duplicates",
                    "--no-retries", "--out", try CheckCommandTests.temporaryDirectory().path, "--deliver",
                    receiver.url(), "--entitlements", receiver.url(path: "/{originalTransactionId}"),
                ] + options)
            // The receiver forgets everything: the first checkpoint diverges (exit 1), after deliveries.
            #expect(output.exitCode == 1, "\(output.stdout)\(output.stderr)")
            let delivered = Array(bodies.all[before...])
            #expect(!delivered.isEmpty)
            for body in delivered {
                let header = try Self.header(body)
                let payload = try #require(
                    body.split(separator: "\"").dropFirst(3).first.map { String($0.split(separator: ".")[1]) })
                let claims = try CanonicalJSON.parse(
                    String(decoding: try #require(Base64URL.decode(payload)), as: UTF8.self))
                if options.isEmpty {
                    #expect(claims.value(at: "data.environment") == .string("LocalTesting"))
                    #expect(header.value(at: "x5c.0") == .string(UnsignedTestSigner.placeholderCertificates[0]))
                } else {
                    #expect(claims.value(at: "data.environment") == .string("Sandbox"))
                    #expect(header.value(at: "alg") == .string("ES256"))
                    let root = Data(team.root.derRepresentation).base64EncodedString()
                    #expect(header.value(at: "x5c.2") == .string(root), "the team's root ends the chain")
                }
            }
        }
    }
}
