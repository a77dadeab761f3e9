import Foundation
import SimctlCrypto
import SubscriptionSimulator

// `simctl certs tls [--name HOST]... [--seed TEXT] [--not-before INSTANT] [--days N] DIR` (issue 50): the options of
// this subcommand, in the hand-written style, kept apart from `export` and `negative-fixtures` for the option tables.

/// What `simctl certs tls` was asked for.
package struct TLSCertsOptions: Equatable, Sendable {
    package var directory: String
    /// `--name HOST` (repeatable); empty means ``TLSCertificates/defaultNames``.
    package var names: [String] = []
    /// `--seed TEXT`, default ``TLSCertificates/defaultSeed``.
    package var seed: String = TLSCertificates.defaultSeed
    /// `--not-before INSTANT` (ISO 8601, UTC), default 2026-01-01T00:00:00Z.
    package var notBefore: Instant = TLSCertificates.defaultNotBefore
    /// `--days N`, default 3650.
    package var days: Int = TLSCertificates.defaultDays

    /// What the command line gave: the options above, and the folders.
    struct ParseState: Sendable {
        var options = TLSCertsOptions(directory: "")
        var positional: [String] = []
    }

    static func fail(_ message: String) -> UsageError { UsageError(message: message, topic: "certs") }

    static let command = CommandDeclaration<ParseState>(
        name: "certs tls", topic: "certs", summary: "a test CA and a TLS server certificate it issued",
        positional: "DIR", positionalValue: .directory,
        options: [
            .value("--name", "HOST", repeatable: true, "a DNS name or IPv4 address (repeatable)") {
                (state: inout ParseState, text: String) throws(UsageError) in
                if let problem = TLSCertificates.problem(with: text) {
                    throw fail("option '--name': '\(text)' is not a host name or IPv4 address: \(problem)")
                }
                state.options.names.append(text)
            }
            .help(
                "a DNS name or IPv4 address the certificate names (repeatable; default local-testing-base-url, "
                    + "api.storekit.apple.com, api.storekit-sandbox.apple.com)"),
            .value("--seed", "TEXT", "keys and serial numbers (default simctl-tls-1)") {
                (state: inout ParseState, text: String) throws(UsageError) in
                guard !text.isEmpty else { throw fail("option '--seed' needs a non-empty text") }
                state.options.seed = text
            },
            .value("--not-before", "INSTANT", "the certificates' start (default 2026-01-01T00:00:00Z)") {
                (state: inout ParseState, text: String) throws(UsageError) in
                guard let instant = CalendarDurationSyntax.parseInstant(text) else {
                    throw fail(
                        "option '--not-before': expected an ISO 8601 instant such as 2026-01-01T00:00:00Z, found '\(text)'"
                    )
                }
                state.options.notBefore = instant
            },
            .value("--days", "N", "the certificates' validity (1 to 36500, default 3650)") {
                (state: inout ParseState, text: String) throws(UsageError) in
                guard let number = Int(text), (1...36500).contains(number) else {
                    throw fail("option '--days': expected a whole number of days from 1 to 36500, found '\(text)'")
                }
                state.options.days = number
            },
        ],
        argument: { state, argument in state.positional.append(argument) },
        unknownOption: { name, hint in "'certs tls' has no option '\(name)'\(hint)" }
    )
    .described(
        HelpPage(about: [
            .paragraph(
                "writes a test CA (ca.pem, ca.der) and a TLS server certificate it issued (server.pem: the "
                    + "certificate then the CA; server.der; server-key.pem, PKCS#8) for the names given, so that a TLS "
                    + "terminator in front of 'simctl serve' answers as the hosts Apple's libraries call "
                    + "(docs/server.md, \"Unmodified clients over TLS\"). Trust ca.pem in the client "
                    + "(REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS, a Java trust store, SSL_CERT_FILE).")
        ]))

    static func parse(_ arguments: [String]) throws(UsageError) -> TLSCertsOptions {
        var state = ParseState()
        try OptionParser.parse(arguments, command, into: &state)
        guard state.positional.count == 1 else {
            throw fail("'certs tls' takes one folder; found \(state.positional.count)")
        }
        state.options.directory = state.positional[0]
        return state.options
    }
}

extension Simctl {
    /// `ca.pem`, `ca.der`, `server.pem` (the server certificate, then the CA: the chain a TLS server sends),
    /// `server.der`, `server-key.pem` (PKCS#8).
    static func certsTLS(_ options: TLSCertsOptions) -> CommandOutput {
        let names = options.names.isEmpty ? TLSCertificates.defaultNames : options.names
        let made: TLSCertificates
        do throws(SigningChainError) {
            made = try TLSCertificates.generate(
                names: names, seed: options.seed, notBefore: options.notBefore, days: options.days)
        } catch {
            return CommandOutput(stdout: "", stderr: "error: \(error.message)\n", exitCode: ExitCode.usage)
        }
        let files: [(name: String, bytes: [UInt8])] = [
            ("ca.pem", Array(made.ca.pemRepresentation.utf8)), ("ca.der", made.ca.derRepresentation),
            ("server.pem", Array((made.server.pemRepresentation + made.ca.pemRepresentation).utf8)),
            ("server.der", made.server.derRepresentation), ("server-key.pem", Array(made.serverKeyPEM.utf8)),
        ]
        if let failure = write(files, to: options.directory) { return failure }
        let listing = files.map { "  \($0.name)\n" }.joined()
        return CommandOutput(
            stdout: "wrote a TLS server certificate for \(names.joined(separator: ", ")) and its CA to "
                + "\(options.directory):\n\(listing)",
            stderr: "", exitCode: ExitCode.success)
    }
}
