import Foundation
import SimctlCrypto
import SimctlHTTP
import Testing

@testable import SimctlCommand
@testable import SubscriptionSimulator

/// Issue 50, online checks: `simctl certs export --ocsp-url URL DIR` and `simctl certs ocsp` (docs/signing.md,
/// "Online certificate checks (OCSP)"). Apple's verifier against the running responder:
/// Tests/Conformance/ocsp_check.sh.
@Suite struct CertsOCSPTests {
    static let url = "http://127.0.0.1:8788/ocsp"

    @Test func optionsParse() throws {
        let location = try OCSPResponderURL(Self.url)
        #expect(
            try ArgumentParser.parse(["certs", "export", "--ocsp-url", Self.url, "out"])
                == .certs(.exportOCSP(directory: "out", caSeed: nil, url: location)))
        #expect(
            try ArgumentParser.parse(["certs", "export", "out", "--ca-seed", "team", "--ocsp-url=\(Self.url)"])
                == .certs(.exportOCSP(directory: "out", caSeed: "team", url: location)))
        #expect(
            try ArgumentParser.parse(["certs", "ocsp", "--ocsp-url", Self.url])
                == .certs(.ocsp(OCSPServeOptions(url: location))))
        #expect(
            try ArgumentParser.parse([
                "certs", "ocsp", "--ocsp-url", Self.url, "--ca-seed", "team", "--revoke", "leaf",
                "--revoke=intermediate",
            ]) == .certs(.ocsp(OCSPServeOptions(url: location, caSeed: "team", revoked: [.leaf, .intermediate]))))
    }

    @Test func badOptionsAreRefusedWithTheirReason() {
        let bad: [([String], String)] = [
            (["certs", "ocsp"], "'certs ocsp' needs --ocsp-url URL"),
            (["certs", "ocsp", "--ocsp-url", "https://x/"], "only http:// is served"),
            (["certs", "ocsp", "--ocsp-url", Self.url, "--revoke", "root"], "expected leaf or intermediate"),
            (["certs", "ocsp", "--ocsp-url", Self.url, "dir"], "takes no folder or file"),
            (["certs", "ocsp", "--ocsp-url", Self.url, "--revok", "leaf"], "did you mean '--revoke'?"),
            (["certs", "ocsp", "--ocsp-url", Self.url, "--ocsp-url", Self.url], "given twice"),
            (["certs", "export", "out", "--ocsp-url"], "option '--ocsp-url' needs a value"),
            (["certs", "export", "out", "--ocsp-url", "http://h:0/"], "the port must be a number"),
            (["certs", "export", "out", "--ocsp-url", Self.url, "--signing-chain", "mine"], "does not apply"),
            (["certs", "negative-fixtures", "f.yaml", "out", "--ocsp-url", Self.url], "has no option '--ocsp-url'"),
        ]
        for (arguments, message) in bad {
            #expect {
                try ArgumentParser.parse(arguments)
            } throws: { error in
                (error as? UsageError)?.message.contains(message) == true
            }
        }
    }

    @Test func exportWritesTheChainThatNamesTheResponder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-ocsp-\(UUIDText.next())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = Simctl.main(["certs", "export", "--ocsp-url", Self.url, directory.path])
        #expect(output.exitCode == 0, "\(output.stderr)")
        #expect(output.stdout.contains("simctl certs ocsp --ocsp-url \(Self.url)"))
        let leaf = try X509Certificate(
            pem: String(contentsOf: directory.appendingPathComponent("leaf.pem"), encoding: .utf8))
        #expect(try leaf.ocspURLs() == [Self.url])
        #expect(leaf == SigningChain.generate(ocspURL: Self.url).chain.leaf.x509)
    }

    /// The HTTP side of the responder, called as the server calls it.
    @Test func handlerAnswersPostOnThePathRevokesAndRefusesTheRest() throws {
        let generated = SigningChain.generate(ocspURL: Self.url)
        let box = OCSPResponderBox(OCSPResponder(generated))
        let now = Instant(millisecondsSince1970: 1_796_212_207_000)
        let clock: @Sendable () -> Instant = { now }
        func call(_ method: String, _ target: String, _ body: [UInt8] = []) throws -> HTTPResponse {
            Simctl.ocspHandle(
                try HTTPRequest(method: method, target: target, body: body), path: "/ocsp", box: box, clock: clock)
        }
        let chain = generated.chain
        let request = OCSP.Request(
            certIDs: [OCSP.CertID(certificate: chain.leaf.x509, issuer: chain.intermediate.x509, algorithm: .sha256)]
        ).derRepresentation
        let good = try call("POST", "/ocsp", request)
        #expect(good.status == 200 && good.headers["Content-Type"] == "application/ocsp-response")
        #expect(try OCSP.Response(derRepresentation: good.body).responses.map(\.status) == ["good"])
        #expect(try call("POST", "/simctl/ocsp/revoke/leaf").status == 200)
        #expect(
            try OCSP.Response(derRepresentation: try call("POST", "/ocsp", request).body).responses.map(\.status) == [
                "revoked"
            ])
        let garbage = try call("POST", "/ocsp", [1, 2, 3])
        #expect(garbage.status == 400 && garbage.headers["Simctl-OCSP-Error"]?.contains("malformed") == true)
        #expect(try call("GET", "/ocsp").status == 405)
        #expect(try call("POST", "/other").status == 404)
        #expect(try call("POST", "/simctl/ocsp/revoke/root").status == 404)
        #expect(try call("GET", "/simctl/ocsp/revoke/leaf").status == 405)
    }
}
