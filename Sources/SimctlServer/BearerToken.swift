import Foundation
import SimctlCrypto
import SubscriptionSimulator

/// Rule server-api-bearer-token: every App Store Server API request carries `Authorization: Bearer <JWT>`, a
/// compact JWS whose header has `alg` `ES256`, a `kid` and `typ` `JWT`, and whose payload has `iss`, `exp`, `aud`
/// `appstoreconnect-v1` and `bid` equal to the app's bundle id; anything else is answered 401 (Apple, "Generating
/// JSON Web Tokens for API requests"; reference §3.2; library `_generate_token`).
///
/// Where Apple is silent or its own client differs [assumed]:
/// - `iat` is optional: Apple's docs list it, but Apple's App Store Server Library (3.1.2) never sends it. When
///   present, `exp` may be at most 60 minutes after it.
/// - Token time is real time, not the store's virtual clock: clients stamp `exp` from their own clock, and the
///   virtual clock may be months away. With a clock (`simctl serve` passes the wall clock), `exp` must be in the
///   future and at most 60 minutes (plus 60 s of leeway) ahead, and `iat`, when present, not more than 60 s ahead.
///   Without a clock (tests), only the form and the 60-minute span are checked.
/// - The signature is checked only when a public key is configured (`--api-key-pem`): simctl cannot know the key
///   of a throwaway client otherwise.
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

    package init(bundleId: String, publicKey: P256.PublicKey? = nil, clock: (@Sendable () -> Int64)? = nil) {
        self.bundleId = bundleId
        self.publicKey = publicKey
        self.clock = clock
    }

    /// nil when the header is acceptable; otherwise why not.
    package func problem(authorization: String?) -> String? {
        guard let authorization else { return "no Authorization header" }
        guard authorization.count <= Self.maximumTokenLength + 7 else { return "the Authorization header is too long" }
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
            case .object(let payload)? = try? CanonicalJSON.parse(String(decoding: payloadBytes, as: UTF8.self))
        else { return "the token's payload is not base64url JSON" }
        guard header["alg"] == .string("ES256") else { return "the token's alg is not ES256" }
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else { return "the token has no kid" }
        if let typ = header["typ"], typ != .string("JWT") { return "the token's typ is not JWT" }
        guard let iss = payload["iss"]?.stringValue, !iss.isEmpty else { return "the token has no iss" }
        guard payload["aud"] == .string("appstoreconnect-v1") else {
            return "the token's aud is not appstoreconnect-v1"
        }
        guard let bid = payload["bid"]?.stringValue else { return "the token has no bid" }
        guard bid == bundleId else { return "the token's bid '\(bid)' is not the app's bundle id '\(bundleId)'" }
        guard let exp = payload["exp"]?.integerValue else { return "the token has no exp (seconds since 1970)" }
        var iat: Int64?
        if let value = payload["iat"] {
            guard let seconds = value.integerValue else { return "the token's iat is not a whole number of seconds" }
            iat = seconds
            guard exp > seconds else { return "the token's exp is not after its iat" }
            guard exp - seconds <= Self.maximumLifetimeSeconds else {
                return "the token's exp is more than 60 minutes after its iat"
            }
        }
        if let now = clock?() {
            guard exp > now else { return "the token has expired" }
            guard exp <= now + Self.maximumLifetimeSeconds + Self.leewaySeconds else {
                return "the token's exp is more than 60 minutes ahead"
            }
            if let iat, iat > now + Self.leewaySeconds { return "the token's iat is in the future" }
        }
        if let publicKey {
            guard let signatureBytes = Base64URL.decode(String(pieces[2])), signatureBytes.count == 64,
                let signature = try? ECDSASignature(rawRepresentation: signatureBytes),
                publicKey.isValidSignature(signature, for: Array("\(pieces[0]).\(pieces[1])".utf8))
            else { return "the token's signature does not verify with the configured key" }
        }
        return nil
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
