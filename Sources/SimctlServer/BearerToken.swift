import Foundation
import SimctlCrypto
import SubscriptionSimulator

/// Rule server-api-bearer-token: every App Store Server API request carries `Authorization: Bearer <JWT>`, a
/// compact JWS whose header has `alg` `ES256`, a `kid` and `typ` `JWT`, and whose payload has `iss`, `iat`, `exp`,
/// `aud` `appstoreconnect-v1` and `bid` equal to the app's bundle id, times in seconds since 1970 (JWT NumericDate,
/// RFC 7519 §2), at most 60 minutes from `iat` to `exp`; anything else is answered 401 (Apple, "Generating JSON Web
/// Tokens for API requests"; reference §3.2; library `_generate_token`). The signature is ES256 as JWS writes it:
/// the raw 64 bytes r||s, not DER (RFC 7518 §3.4). Each 401 names the rule broken (docs/server.md, "Bearer tokens").
///
/// Where Apple is silent or its own client differs [assumed]:
/// - `iat` is optional: Apple's docs list it, but Apple's App Store Server Library (3.1.2) never sends it. When
///   present, `exp` must be after it and at most 60 minutes after it.
/// - A time above 10^11 is taken for milliseconds (10^11 seconds is the year 5138) and refused as such.
/// - Token time is real time, not the store's virtual clock: clients stamp `exp` from their own clock, and the
///   virtual clock may be months away. With a clock (`simctl serve` passes the wall clock), `exp` must be in the
///   future and at most 60 minutes (plus 60 s of clock skew) ahead, and `iat`, when present, not more than 60 s
///   ahead. Without a clock (tests), only the form, the units and the 60-minute span are checked.
/// - The signature's form (64 bytes) is always checked; whether it verifies only when a public key is configured
///   (`--api-key-pem`): simctl cannot know the key of a throwaway client otherwise.
package struct BearerTokenPolicy: Sendable {
    package var bundleId: String
    /// The key the tokens must be signed with; nil: the signature is not checked.
    package var publicKey: P256.PublicKey?
    /// Seconds since 1970 for the expiry checks; nil: no expiry checks.
    package var clock: (@Sendable () -> Int64)?

    /// Apple: tokens with an expiration more than 60 minutes after issue are rejected.
    package static let maximumLifetimeSeconds: Int64 = 3600
    /// Clock skew tolerated between client and server [assumed].
    package static let leewaySeconds: Int64 = 60
    /// Longest token accepted, in bytes [assumed].
    package static let maximumTokenLength = 4096
    /// A time at or above this is milliseconds, not seconds (10^11 s after 1970 is the year 5138) [assumed].
    package static let millisecondsThreshold: Int64 = 100_000_000_000
    /// The audience Apple requires.
    package static let audience = "appstoreconnect-v1"

    package init(bundleId: String, publicKey: P256.PublicKey? = nil, clock: (@Sendable () -> Int64)? = nil) {
        self.bundleId = bundleId
        self.publicKey = publicKey
        self.clock = clock
    }

    /// The 401 reason for a token whose `exp` has passed at `now`.
    package static func expired(exp: Int64, now: Int64) -> String {
        "the token has expired: its exp \(exp) is \(now - exp) s before this server's clock (\(now)); tokens live at "
            + "most 60 minutes, so make a new one"
    }

    /// nil when the header is acceptable; otherwise why not, naming the rule broken.
    package func problem(authorization: String?) -> String? {
        guard let authorization else { return "no Authorization header" }
        guard authorization.count <= Self.maximumTokenLength + 7 else {
            return "the Authorization header is too long (at most \(Self.maximumTokenLength) bytes of token)"
        }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return "the Authorization header is not 'Bearer <JWT>'"
        }
        let token = String(parts[1]).trimmingSpaces
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces.allSatisfy({ !$0.isEmpty }) else {
            return "the token is not a compact JWS (three base64url parts)"
        }
        guard let headerBytes = Base64URL.decode(String(pieces[0])),
            case .object(let header)? = try? CanonicalJSON.parse(String(decoding: headerBytes, as: UTF8.self))
        else { return "the token's header is not base64url JSON" }
        guard let payloadBytes = Base64URL.decode(String(pieces[1])),
            case .object(let payload)? = try? CanonicalJSON.parse(
                String(decoding: payloadBytes, as: UTF8.self), allowFractions: true)
        else { return "the token's payload is not base64url JSON" }
        guard header["alg"] == .string("ES256") else {
            return "the token's alg is \(Self.shown(header["alg"])), expected ES256"
        }
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else {
            return "the token has no kid (the key id of the App Store Connect API key)"
        }
        if let typ = header["typ"], typ != .string("JWT") {
            return "the token's typ is \(Self.shown(typ)), expected JWT"
        }
        guard let signatureBytes = Base64URL.decode(String(pieces[2])) else {
            return "the token's signature is not base64url"
        }
        if let problem = Self.signatureFormProblem(signatureBytes) { return problem }
        guard let iss = payload["iss"]?.stringValue, !iss.isEmpty else {
            return "the token has no iss (the issuer id)"
        }
        guard payload["aud"] == .string(Self.audience) else {
            return "the token's aud is \(Self.shown(payload["aud"])), expected \(Self.audience)"
        }
        guard let bid = payload["bid"]?.stringValue else { return "the token has no bid (the app's bundle id)" }
        guard bid == bundleId else { return "the token's bid '\(bid)' is not the app's bundle id '\(bundleId)'" }
        guard let expValue = payload["exp"] else { return "the token has no exp (seconds since 1970)" }
        let exp: Int64
        switch Self.seconds(expValue, "exp") {
        case .failure(let problem): return problem.message
        case .success(let value): exp = value
        }
        var iat: Int64?
        if let value = payload["iat"] {
            switch Self.seconds(value, "iat") {
            case .failure(let problem): return problem.message
            case .success(let seconds): iat = seconds
            }
        }
        if let now = clock?() {
            guard exp > now else { return Self.expired(exp: exp, now: now) }
            if let iat, iat > now + Self.leewaySeconds {
                return "the token is not yet valid: its iat \(iat) is \(iat - now) s after this server's clock "
                    + "(\(now)); the clock skew allowed is \(Self.leewaySeconds) s"
            }
            guard exp <= now + Self.maximumLifetimeSeconds + Self.leewaySeconds else {
                return "the token's exp \(exp) is \(exp - now) s after this server's clock (\(now)): more than "
                    + "60 minutes (plus \(Self.leewaySeconds) s of clock skew) ahead"
            }
        }
        if let iat {
            guard exp > iat else { return "the token's exp \(exp) is not after its iat \(iat)" }
            guard exp - iat <= Self.maximumLifetimeSeconds else {
                return "the token's exp is \(exp - iat) s after its iat: more than 60 minutes (3600 s)"
            }
        }
        if let publicKey {
            guard let signature = try? ECDSASignature(rawRepresentation: signatureBytes),
                publicKey.isValidSignature(signature, for: Array("\(pieces[0]).\(pieces[1])".utf8))
            else {
                return "the token's signature does not verify with the key of --api-key-pem (signed with another "
                    + "key, or over other bytes)"
            }
        }
        return nil
    }

    /// Why a JWS ES256 signature of these bytes has the wrong form, or nil when it is 64 bytes.
    static func signatureFormProblem(_ bytes: [UInt8]) -> String? {
        if bytes.count == 64 { return nil }
        // DER: SEQUENCE { INTEGER r, INTEGER s }, 8 to 72 bytes for P-256.
        if bytes.count >= 8, bytes.count <= 72, bytes[0] == 0x30, Int(bytes[1]) == bytes.count - 2, bytes[2] == 0x02 {
            return "the token's signature is in DER form (\(bytes.count) bytes, an ASN.1 SEQUENCE): ES256 in a JWS is "
                + "the raw 64 bytes r||s (RFC 7518 §3.4); in Node, sign with dsaEncoding: 'ieee-p1363'"
        }
        return "the token's signature is \(bytes.count) bytes: ES256 in a JWS is the raw 64 bytes r||s (RFC 7518 §3.4)"
    }

    struct TimeProblem: Error { var message: String }

    /// A JWT time member as whole seconds since 1970, or why it is not one.
    static func seconds(_ value: JSONValue, _ name: String) -> Result<Int64, TimeProblem> {
        guard let seconds = value.integerValue else {
            return .failure(
                TimeProblem(
                    message: "the token's \(name) is \(shown(value)), expected a whole number of seconds since 1970"))
        }
        if seconds >= millisecondsThreshold {
            return .failure(
                TimeProblem(
                    message: "the token's \(name) \(seconds) is in milliseconds: JWT times are seconds since 1970 "
                        + "(RFC 7519 NumericDate); in JavaScript, Math.floor(Date.now() / 1000)"))
        }
        guard seconds >= 0 else {
            return .failure(TimeProblem(message: "the token's \(name) \(seconds) is before 1970"))
        }
        return .success(seconds)
    }

    /// A claim's value for a message: its JSON, at most 60 characters; "missing" when absent.
    static func shown(_ value: JSONValue?) -> String {
        guard let value else { return "missing" }
        let text = CanonicalJSON.string(value)
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}

extension BearerTokenPolicy {
    /// The `exp` of an `Authorization: Bearer` token, read without checking anything else.
    static func expiry(of authorization: String) -> Int64? {
        guard let token = authorization.split(separator: " ", maxSplits: 1).last,
            let payload = token.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first,
            let bytes = Base64URL.decode(String(payload)),
            case .object(let members)? = try? CanonicalJSON.parse(String(decoding: bytes, as: UTF8.self))
        else { return nil }
        return members["exp"]?.integerValue
    }
}

/// Tokens already accepted, with their `exp`: at most 1,024, forgotten all at once when full [assumed].
final class AcceptedTokens: @unchecked Sendable {
    let lock = NSLock()
    var tokens: [String: Int64] = [:]

    func accepted(_ authorization: String) -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        return tokens[authorization]
    }

    func remember(_ authorization: String, exp: Int64) {
        lock.lock()
        defer { lock.unlock() }
        if tokens.count >= 1_024 { tokens.removeAll() }
        tokens[authorization] = exp
    }
}
