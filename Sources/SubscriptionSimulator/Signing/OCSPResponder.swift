import SimctlCrypto

/// The OCSP responder (RFC 6960) for a generated chain: it answers for the intermediate (issued by the root) and the
/// leaf (issued by the intermediate), each response signed by that issuer's own key (RFC 6960 §2.6 lets the CA sign;
/// Apple's `SignedDataVerifier` trusts a response signed by the issuer without further checks). docs/signing.md,
/// "Online certificate checks (OCSP)".
///
/// - A request that does not parse gets HTTP 400 with the `malformedRequest` response (§2.3).
/// - A request whose first `CertID` names neither CA as issuer, or that mixes issuers, gets `unauthorized` (§2.3:
///   the responder is not authoritative for it); one response is signed by one key.
/// - Each `CertID` of a known issuer gets `good`, `revoked` (see ``revoke(_:at:reason:)``) or `unknown` (a serial
///   number that CA did not issue here), the `CertID` echoed byte for byte, whatever its hash algorithm (SHA-1 or
///   SHA-256).
/// - `producedAt` and `thisUpdate` are the `now` the caller passes (whole seconds), `nextUpdate` ``validity``
///   later, the request's nonce echoed. The library reads no clock: `simctl certs ocsp` passes the wall clock, since
///   verifiers compare these times with theirs. Same inputs, same bytes (RFC 6979 signatures).
package struct OCSPResponder: Sendable {
    /// The certificates the responder answers for.
    package enum Role: String, Hashable, Sendable, CaseIterable {
        case leaf
        case intermediate
    }

    /// `nextUpdate - thisUpdate`: one hour, in milliseconds. [assumed] Apple does not document its responders'
    /// window; RFC 6960 leaves it to the responder, and Apple's verifier only needs `nextUpdate` present and not
    /// past (with 60 s of skew).
    package static let validity: Int64 = 3_600_000

    package let generated: SigningChain.Generated
    /// The revoked certificates, with when and why.
    package private(set) var revocations: [Role: (time: Instant, reason: OCSP.RevocationReason?)] = [:]

    package init(_ generated: SigningChain.Generated) { self.generated = generated }

    /// Marks `role`'s certificate revoked since `time` (whole seconds are written), with an optional CRL reason.
    package mutating func revoke(_ role: Role, at time: Instant, reason: OCSP.RevocationReason? = nil) {
        revocations[role] = (time, reason)
    }

    /// An answer: the HTTP status, the DER `OCSPResponse` (`application/ocsp-response`), and for a malformed request
    /// what is wrong with it.
    package struct Answer: Sendable {
        package var httpStatus: Int
        package var body: [UInt8]
        package var problem: String?
    }

    /// The answer to the DER `OCSPRequest` `request` at `now`.
    package func answer(_ request: [UInt8], now: Instant) -> Answer {
        let parsed: OCSP.Request
        do throws(OCSPError) { parsed = try OCSP.Request(derRepresentation: request) } catch {
            return Answer(httpStatus: 400, body: OCSP.unsuccessfulResponse(.malformedRequest), problem: error.message)
        }
        let chain = generated.chain
        let issuers: [(issuer: X509Certificate, key: P256.PrivateKey, issued: X509Certificate, role: Role)] = [
            (chain.root.x509, generated.rootKey, chain.intermediate.x509, .intermediate),
            (chain.intermediate.x509, generated.intermediateKey, chain.leaf.x509, .leaf),
        ]
        guard let first = parsed.certIDs.first, let authority = issuers.first(where: { first.isIssued(by: $0.issuer) }),
            parsed.certIDs.allSatisfy({ $0.isIssued(by: authority.issuer) })
        else {
            return Answer(httpStatus: 200, body: OCSP.unsuccessfulResponse(.unauthorized), problem: nil)
        }
        let whole = Instant(millisecondsSince1970: now.millisecondsSince1970 / 1000 * 1000)
        let thisUpdate = ASN1Time(whole)
        let nextUpdate = ASN1Time(Instant(millisecondsSince1970: whole.millisecondsSince1970 + Self.validity))
        let responses = parsed.certIDs.map { id -> OCSP.SingleResponse in
            let status: OCSP.CertStatus
            if id.serialNumber != authority.issued.serialNumber {
                status = .unknown
            } else if let revocation = revocations[authority.role] {
                status = .revoked(time: ASN1Time(revocation.time), reason: revocation.reason)
            } else {
                status = .good
            }
            return OCSP.SingleResponse(certID: id, status: status, thisUpdate: thisUpdate, nextUpdate: nextUpdate)
        }
        let body = OCSP.basicResponse(
            producedAt: thisUpdate, responses: responses, nonce: parsed.nonce, signer: authority.key)
        return Answer(httpStatus: 200, body: body, problem: nil)
    }
}

/// Where a responder answers: an `http://` URL as a certificate's Authority Information Access names it, and the
/// address and path a server listens on for it. The rule for the URL, written once (rule ocsp-url): `http://`
/// (RFC 6960 Appendix A: OCSP over HTTP; no TLS here), a host (a name, an IPv4 address or a bracketed IPv6
/// address), an optional port (default 80), an optional path starting with `/` (default `/`), no query, fragment or
/// user information; visible ASCII, at most 200 characters.
package struct OCSPResponderURL: Hashable, Sendable {
    package var text: String
    package var host: String
    package var port: UInt16
    package var path: String

    package init(_ text: String) throws(SigningChainError) {
        func fail(_ why: String) -> SigningChainError {
            SigningChainError("'\(text)' is not an OCSP responder URL: \(why) (expected http://HOST:PORT/PATH)")
        }
        guard !text.isEmpty, text.utf8.count <= 200 else { throw fail("it must have 1 to 200 characters") }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw fail("it must be visible ASCII, without spaces")
        }
        guard text.hasPrefix("http://") else { throw fail("only http:// is served (RFC 6960 Appendix A)") }
        let rest = text.dropFirst("http://".count)
        guard !rest.contains("?"), !rest.contains("#"), !rest.contains("@") else {
            throw fail("a query, fragment or user information is not allowed")
        }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        var host = Substring(authority)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("an IPv6 address lacks its ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw fail("the host is missing") }
        var port: UInt16 = 80
        if let portText {
            guard let number = UInt16(portText), number > 0, portText.allSatisfy(\.isASCII) else {
                throw fail("the port must be a number from 1 to 65535")
            }
            port = number
        }
        self.text = text
        self.host = String(host)
        self.port = port
        self.path = path.isEmpty ? "/" : String(path)
    }
}
