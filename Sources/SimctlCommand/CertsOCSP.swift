import Foundation
import SimctlCrypto
import SimctlHTTP
import SubscriptionSimulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// `simctl certs ocsp --ocsp-url URL [--ca-seed TEXT] [--revoke leaf|intermediate]...` (issue 50, online checks): the
// OCSP responder for the chain `simctl certs export --ocsp-url URL` writes, and its declared options.

/// What `simctl certs ocsp` was asked for.
package struct OCSPServeOptions: Equatable, Sendable {
    /// `--ocsp-url URL` (required): the URL the chain's certificates name; the server listens on its host and port
    /// and answers POST on its path.
    package var url: OCSPResponderURL
    /// `--ca-seed TEXT`, default ``SigningChain/defaultCASeed``.
    package var caSeed: String?
    /// `--revoke ROLE` (repeatable): certificates reported revoked from the start.
    package var revoked: [OCSPResponder.Role] = []

    /// What the command line gave, before `--ocsp-url` is known to be there.
    struct ParseState: Sendable {
        var url: OCSPResponderURL?
        var caSeed: String?
        var revoked: [OCSPResponder.Role] = []
    }

    static func fail(_ message: String) -> UsageError { UsageError(message: message, topic: "certs") }

    static let command = CommandDeclaration<ParseState>(
        name: "certs ocsp", topic: "certs", summary: "the OCSP responder for a chain exported with --ocsp-url",
        positional: "", positionalValue: .none,
        options: [
            .value("--ocsp-url", "URL", .url, "the URL the chain's certificates name; listens on its host and port") {
                (state: inout ParseState, text: String) throws(UsageError) in
                state.url = try ocspURL(text)
            }
            .help("the URL the chain's certificates name (http://HOST:PORT/PATH); it listens on its host and port"),
            .value("--ca-seed", "TEXT", "the chain's seed (default simctl-test-ca-1)") {
                (state: inout ParseState, text: String) throws(UsageError) in
                guard !text.isEmpty else { throw fail("option '--ca-seed' needs a text") }
                state.caSeed = text
            },
            .value(
                "--revoke", "ROLE", .choices(OCSPResponder.Role.allCases.map(\.rawValue)), repeatable: true,
                "reported revoked from the start: leaf or intermediate (repeatable)"
            ) { (state: inout ParseState, text: String) throws(UsageError) in
                guard let role = OCSPResponder.Role(rawValue: text) else {
                    throw fail("option '--revoke': expected leaf or intermediate, found '\(text)'")
                }
                if !state.revoked.contains(role) { state.revoked.append(role) }
            },
        ],
        argument: { _, argument throws(UsageError) in
            throw fail("'certs ocsp' takes no folder or file; found '\(argument)'")
        },
        unknownOption: { name, hint in "'certs ocsp' has no option '\(name)'\(hint)" }
    )
    .described(
        HelpPage(
            required: ["--ocsp-url"],
            about: [
                .paragraph(
                    "serves the OCSP responder (RFC 6960) for the chain that 'simctl certs export --ocsp-url URL DIR' "
                        + "writes (the same --ca-seed): its intermediate and leaf name URL in an Authority Information "
                        + "Access extension, so verifiers with online checks on (Apple's SignedDataVerifier with "
                        + "enable_online_checks=True) ask it. It listens on URL's host and port, answers POST on URL's "
                        + "path, signs each answer with the issuer's key, and takes POST /simctl/ocsp/revoke/leaf (or "
                        + "/intermediate) to report that certificate revoked from then on. Times are the wall clock's. "
                        + "Runs until SIGINT or SIGTERM; prints URL.")
            ]))

    static func parse(_ arguments: [String]) throws(UsageError) -> OCSPServeOptions {
        var state = ParseState()
        try OptionParser.parse(arguments, command, into: &state)
        guard let url = state.url else {
            throw fail("'certs ocsp' needs --ocsp-url URL, the URL the chain's certificates name")
        }
        return OCSPServeOptions(url: url, caSeed: state.caSeed, revoked: state.revoked)
    }

    /// `--ocsp-url`'s value, checked by ``OCSPResponderURL`` (rule ocsp-url); shared with `certs export`.
    static func ocspURL(_ text: String) throws(UsageError) -> OCSPResponderURL {
        do throws(SigningChainError) { return try OCSPResponderURL(text) } catch {
            throw UsageError(message: "option '--ocsp-url': \(error.message)", topic: "certs")
        }
    }
}

/// The responder's state between requests: revocations change it (`POST /simctl/ocsp/revoke/ROLE`).
final class OCSPResponderBox: @unchecked Sendable {
    private let lock = NSLock()
    private var responder: OCSPResponder

    init(_ responder: OCSPResponder) { self.responder = responder }

    func answer(_ request: [UInt8], now: Instant) -> OCSPResponder.Answer {
        lock.withLock { responder }.answer(request, now: now)
    }

    func revoke(_ role: OCSPResponder.Role, at time: Instant) {
        lock.withLock { responder.revoke(role, at: time) }
    }
}

extension Simctl {
    /// The path under which a running responder takes revocations: `POST /simctl/ocsp/revoke/leaf` or
    /// `.../intermediate`.
    static let ocspRevokePath = "/simctl/ocsp/revoke/"

    /// Runs the responder until SIGINT or SIGTERM; the first line of standard output is the URL it answers on.
    /// `clock` gives `producedAt` and `thisUpdate` of each answer and the time of each revocation.
    static func certsOCSP(_ options: OCSPServeOptions, clock: @escaping @Sendable () -> Instant) -> CommandOutput {
        let generated = SigningChain.generate(
            caSeed: options.caSeed ?? SigningChain.defaultCASeed, ocspURL: options.url.text)
        var responder = OCSPResponder(generated)
        let started = clock()
        for role in options.revoked { responder.revoke(role, at: started) }
        let box = OCSPResponderBox(responder)
        let path = options.url.path
        ShutdownSignals.block()
        let http: HTTPServer
        do {
            http = try HTTPServer(
                configuration: HTTPServerConfiguration(host: options.url.host, port: options.url.port),
                handler: { request in
                    Simctl.ocspHandle(request, path: path, box: box, clock: clock)
                })
        } catch {
            return CommandOutput(stdout: "", stderr: "error: \(error)\n", exitCode: ExitCode.unavailable)
        }
        http.start()
        let line = Array("\(options.url.text)\n".utf8)
        if line.withUnsafeBytes({ OutputWrites.write($0, to: STDOUT_FILENO) }) != 0 {
            http.stop(graceSeconds: 0)
            return CommandOutput(
                stdout: "", stderr: "error: cannot write standard output\n", exitCode: ExitCode.ioError)
        }
        FileHandle.standardError.write(
            Data(
                ("OCSP responder for the chain of seed '\(options.caSeed ?? SigningChain.defaultCASeed)' at "
                    + "\(options.url.text) (listening on \(http.url)); revoked: "
                    + "\(options.revoked.isEmpty ? "none" : options.revoked.map(\.rawValue).joined(separator: ", "))\n")
                    .utf8))
        _ = ShutdownSignals.wait()
        http.stop(graceSeconds: 2)
        return CommandOutput(stdout: "", stderr: "", exitCode: ExitCode.success)
    }

    /// One request: POST on the URL's path is an OCSP request (RFC 6960 Appendix A.1; GET is not served);
    /// `POST /simctl/ocsp/revoke/ROLE` revokes; anything else is 404, another method on the path 405.
    static func ocspHandle(
        _ request: HTTPRequest, path: String, box: OCSPResponderBox, clock: @Sendable () -> Instant
    ) -> HTTPResponse {
        func text(_ status: Int, _ message: String, _ extra: [HTTPField] = []) -> HTTPResponse {
            HTTPResponse(
                status: status,
                headers: HTTPHeaders([HTTPField(name: "Content-Type", value: "text/plain; charset=utf-8")] + extra),
                body: Array((message + "\n").utf8))
        }
        if request.path.hasPrefix(ocspRevokePath) {
            guard request.method == "POST" else {
                return text(405, "use POST", [HTTPField(name: "Allow", value: "POST")])
            }
            let name = String(request.path.dropFirst(ocspRevokePath.count))
            guard let role = OCSPResponder.Role(rawValue: name) else {
                return text(404, "no certificate '\(name)': revoke leaf or intermediate")
            }
            box.revoke(role, at: clock())
            return text(200, "revoked \(role.rawValue)")
        }
        guard request.path == path else { return text(404, "no OCSP responder at \(request.path); POST to \(path)") }
        guard request.method == "POST" else {
            return text(
                405, "send the DER OCSP request with POST (RFC 6960 Appendix A.1); GET is not served",
                [HTTPField(name: "Allow", value: "POST")])
        }
        let answer = box.answer(request.body, now: clock())
        var fields = [HTTPField(name: "Content-Type", value: "application/ocsp-response")]
        if let problem = answer.problem {
            let clean = String(problem.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(300))
            fields.append(HTTPField(name: "Simctl-OCSP-Error", value: clean))
        }
        return HTTPResponse(status: answer.httpStatus, headers: HTTPHeaders(fields), body: answer.body)
    }
}
