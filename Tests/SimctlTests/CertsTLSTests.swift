import Foundation
import SimctlCrypto
import Testing
@testable import SimctlCommand
@testable import SubscriptionSimulator

/// Issue 50: `simctl certs tls` writes a CA and a server certificate for the names Apple's libraries call, made by
/// the project's own X.509 code, the same bytes for the same options. (Tests/TLS/unmodified_client_check.sh puts them
/// in front of `serve` with stunnel and Apple's Python client.)
@Suite struct CertsTLSTests {
    @Test func optionsParseWithDefaultsAndRefuseBadValues() throws {
        #expect(
            try ArgumentParser.parse(["certs", "tls", "out"]) == .certs(.tls(TLSCertsOptions(directory: "out"))))
        let parsed = try ArgumentParser.parse([
            "certs", "tls", "--name", "a.example", "--name=127.0.0.1", "out", "--seed", "s", "--days", "30",
            "--not-before", "2027-01-01T00:00:00Z",
        ])
        #expect(
            parsed
                == .certs(
                    .tls(
                        TLSCertsOptions(
                            directory: "out", names: ["a.example", "127.0.0.1"], seed: "s",
                            notBefore: CalendarDurationSyntax.parseInstant("2027-01-01T00:00:00Z")!, days: 30))))
        let bad: [([String], String)] = [
            (["certs", "tls"], "'certs tls' takes one folder; found 0"),
            (["certs", "tls", "out", "--name", "bad_name"], "option '--name': 'bad_name' is not a host name"),
            (["certs", "tls", "out", "--days", "0"], "option '--days': expected a whole number of days from 1"),
            (["certs", "tls", "out", "--nme", "x"], "'certs tls' has no option '--nme'; did you mean '--name'?"),
            (["certs", "tls", "out", "--not-before", "tomorrow"], "option '--not-before': expected an ISO 8601"),
            (["certs", "tls", "out", "--seed"], "option '--seed' needs a value"),
        ]
        for (arguments, message) in bad {
            #expect {
                try ArgumentParser.parse(arguments)
            } throws: { error in
                (error as? UsageError)?.message.contains(message) == true
            }
        }
    }

    @Test func theServerCertificateNamesEveryHostAndChainsToTheCA() throws {
        let made = try TLSCertificates.generate(names: TLSCertificates.defaultNames + ["127.0.0.1"])
        let server = made.server.x509
        let ca = made.ca.x509
        #expect(server.isSigned(by: ca.publicKey) && ca.isSigned(by: ca.publicKey))
        #expect(server.issuer == ca.subject && server.publicKey == made.serverKey.publicKey)
        #expect(try ca.basicConstraints()?.isCA == true && server.basicConstraints()?.isCA == false)
        #expect(try server.keyUsage() == [X509Certificate.KeyUsage.digitalSignature.rawValue])
        #expect(try server.authorityKeyIdentifier() == ca.subjectKeyIdentifier())
        let san = try #require(server.extension(DER.ObjectIdentifier("2.5.29.17")!))
        let text = String(decoding: san.value, as: UTF8.self)
        for name in TLSCertificates.defaultNames { #expect(text.contains(name)) }
        #expect(san.value.suffix(6) == [0x87, 4, 127, 0, 0, 1], "the IPv4 address as an iPAddress")
        #expect(server.extension(DER.ObjectIdentifier("2.5.29.37")!) != nil, "extendedKeyUsage serverAuth")
        #expect(server.notBefore == ASN1Time(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0))
        #expect(server.notAfter == ASN1Time(year: 2035, month: 12, day: 30, hour: 0, minute: 0, second: 0))
        let again = try TLSCertificates.generate(names: TLSCertificates.defaultNames + ["127.0.0.1"])
        #expect(again == made, "deterministic")
        #expect(try TLSCertificates.generate(names: ["x.example"], seed: "other").ca != made.ca)
    }

    @Test func theCommandWritesTheFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = Simctl.main(["certs", "tls", folder.path])
        #expect(output.exitCode == 0, "\(output.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["ca.der", "ca.pem", "server-key.pem", "server.der", "server.pem"])
        let pem = try String(contentsOf: folder.appendingPathComponent("server.pem"), encoding: .utf8)
        #expect(pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 3, "the certificate, then the CA")
        let key = try String(contentsOf: folder.appendingPathComponent("server-key.pem"), encoding: .utf8)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(Simctl.main(["certs", "tls", folder.path]).exitCode != 0, "the folder must not exist yet")
    }
}
