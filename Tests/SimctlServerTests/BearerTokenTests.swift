import SimctlCrypto
import SimctlServer
import SubscriptionSimulator
import Testing

@Suite struct BearerTokenTests {
    let key = TestAPIKey()
    let policy = BearerTokenPolicy(bundleId: "com.example.nightsky")

    @Test func aWellFormedTokenIsAccepted() {
        #expect(policy.problem(authorization: "Bearer \(key.token())") == nil)
        #expect(policy.problem(authorization: "Bearer \(key.token(iat: 1_900_000_000 - 1200))") == nil)
    }

    @Test func everyMissingOrWrongPartIs401() {
        let good: [String: JSONValue] = [
            "iss": .string("issuer"), "aud": .string("appstoreconnect-v1"), "bid": .string("com.example.nightsky"),
            "exp": .integer(1_900_000_000),
        ]
        func without(_ name: String) -> [String: JSONValue] { good.filter { $0.key != name } }
        var wrongAud = good
        wrongAud["aud"] = .string("appstoreconnect-v2")
        var textExp = good
        textExp["exp"] = .string("soon")
        let tokens: [String?] = [
            nil, "", "Bearer", "Basic abc", "Bearer a.b", "Bearer a.b.c.d", "Bearer !!!.???.###",
            "Bearer " + key.token(header: ["alg": .string("HS256"), "kid": .string("K")]),
            "Bearer " + key.token(header: ["alg": .string("ES256")]),
            "Bearer " + key.token(header: ["alg": .string("ES256"), "kid": .string("K"), "typ": .string("JWE")]),
            "Bearer " + key.token(payload: without("iss")), "Bearer " + key.token(payload: without("aud")),
            "Bearer " + key.token(payload: without("bid")), "Bearer " + key.token(payload: without("exp")),
            "Bearer " + key.token(payload: wrongAud), "Bearer " + key.token(payload: textExp),
            "Bearer " + key.token(bundleId: "com.example.other"),
            "Bearer " + key.token(iat: 1_900_000_000 - 3601),
            "Bearer " + key.token(iat: 1_900_000_001),
        ]
        for token in tokens {
            #expect(policy.problem(authorization: token) != nil, "\(token ?? "nil")")
        }
    }

    @Test func withAClockExpiredAndFarFutureTokensAre401() {
        let clocked = BearerTokenPolicy(bundleId: "com.example.nightsky", clock: { 1_900_000_000 - 300 })
        #expect(clocked.problem(authorization: "Bearer \(key.token())") == nil)
        #expect(
            clocked.problem(authorization: "Bearer \(key.token(exp: 1_900_000_000 - 301))")
                == "the token has expired: its exp 1899999699 is 1 s before this server's clock (1899999700); tokens "
                + "live at most 60 minutes, so make a new one")
        #expect(
            clocked.problem(authorization: "Bearer \(key.token(exp: 1_900_000_000 + 3600))")
                == "the token's exp 1900003600 is 3900 s after this server's clock (1899999700): more than 60 minutes "
                + "(plus 60 s of clock skew) ahead")
    }

    /// Each rule broken is named in the 401's reason (docs/server.md, "Bearer tokens").
    @Test func eachRuleBrokenIsNamed() {
        let now: Int64 = 1_900_000_000 - 300
        let clocked = BearerTokenPolicy(bundleId: "com.example.nightsky", clock: { now })
        func reason(_ token: String, _ policy: BearerTokenPolicy? = nil) -> String {
            (policy ?? clocked).problem(authorization: "Bearer \(token)") ?? "accepted"
        }
        // Times in milliseconds (JavaScript's Date.now()), exp and iat.
        #expect(
            reason(key.token(exp: 1_900_000_000_000))
                == "the token's exp 1900000000000 is in milliseconds: JWT times are seconds since 1970 (RFC 7519 "
                + "NumericDate); in JavaScript, Math.floor(Date.now() / 1000)")
        #expect(
            reason(key.token(exp: 1_900_000_000, iat: 1_899_999_000_000)).hasPrefix(
                "the token's iat 1899999000000 is in milliseconds"))
        // A token that carries iat and has expired says it expired, not how exp and iat relate.
        #expect(reason(key.token(exp: now - 10, iat: now - 600)).hasPrefix("the token has expired: its exp"))
        #expect(reason(key.token(exp: now - 10, iat: now)).hasPrefix("the token has expired: its exp"))
        // Not yet valid: iat beyond the clock skew.
        #expect(
            reason(key.token(exp: now + 600, iat: now + 61))
                == "the token is not yet valid: its iat 1899999761 is 61 s after this server's clock (1899999700); "
                + "the clock skew allowed is 60 s")
        #expect(reason(key.token(exp: now + 600, iat: now + 60)) == "accepted")
        // Lifetime and order, checked without a clock too.
        #expect(
            reason(key.token(exp: 1_900_000_000, iat: 1_900_000_000 - 3601), policy)
                == "the token's exp is 3601 s after its iat: more than 60 minutes (3600 s)")
        #expect(
            reason(key.token(exp: 1_900_000_000, iat: 1_900_000_000), policy)
                == "the token's exp 1900000000 is not after its iat 1900000000")
        // Audience and bundle id, with what was found.
        var claims: [String: JSONValue] = [
            "iss": .string("issuer"), "aud": .string("appstoreconnect-v2"), "bid": .string("com.example.nightsky"),
            "exp": .integer(now + 600),
        ]
        #expect(
            reason(key.token(payload: claims))
                == "the token's aud is \"appstoreconnect-v2\", expected appstoreconnect-v1")
        claims["aud"] = .string("appstoreconnect-v1")
        claims["exp"] = .decimal("1899999700.5")
        #expect(
            reason(key.token(payload: claims))
                == "the token's exp is 1899999700.5, expected a whole number of seconds since 1970")
        #expect(
            reason(key.token(bundleId: "com.example.other"))
                == "the token's bid 'com.example.other' is not the app's bundle id 'com.example.nightsky'")
        #expect(
            reason(key.token(header: ["alg": .string("RS256"), "kid": .string("K")]))
                == "the token's alg is \"RS256\", expected ES256")
    }

    /// A DER signature (Node's default for ECDSA) is named as such, with or without a configured key.
    @Test func aDERSignatureIsNamed() {
        let token = key.token()
        let pieces = token.split(separator: ".")
        let raw = Base64URL.decode(String(pieces[2]))!
        let der = (try! ECDSASignature(rawRepresentation: raw)).derRepresentation
        let derToken = "\(pieces[0]).\(pieces[1]).\(Base64URL.encode(der))"
        let expected =
            "the token's signature is in DER form (\(der.count) bytes, an ASN.1 SEQUENCE): ES256 in a JWS is the raw "
            + "64 bytes r||s (RFC 7518 §3.4); in Node, sign with dsaEncoding: 'ieee-p1363'"
        #expect(policy.problem(authorization: "Bearer \(derToken)") == expected)
        let signed = BearerTokenPolicy(bundleId: "com.example.nightsky", publicKey: key.key.publicKey)
        #expect(signed.problem(authorization: "Bearer \(derToken)") == expected)
        #expect(
            policy.problem(authorization: "Bearer \(pieces[0]).\(pieces[1]).AAAA")
                == "the token's signature is 3 bytes: ES256 in a JWS is the raw 64 bytes r||s (RFC 7518 §3.4)")
        let other = P256.PrivateKey(derivedFrom: Array("another".utf8), label: "key")
        let foreign = BearerTokenPolicy(bundleId: "com.example.nightsky", publicKey: other.publicKey)
        #expect(
            foreign.problem(authorization: "Bearer \(token)")
                == "the token's signature does not verify with the key of --api-key-pem (signed with another key, or "
                + "over other bytes)")
    }

    @Test func withAKeyTheSignatureMustVerify() {
        let signed = BearerTokenPolicy(bundleId: "com.example.nightsky", publicKey: key.key.publicKey)
        #expect(signed.problem(authorization: "Bearer \(key.token())") == nil)
        let other = P256.PrivateKey(derivedFrom: Array("another".utf8), label: "key")
        let foreign = BearerTokenPolicy(bundleId: "com.example.nightsky", publicKey: other.publicKey)
        #expect(foreign.problem(authorization: "Bearer \(key.token())") != nil)
        var token = key.token()
        token.removeLast(2)
        #expect(signed.problem(authorization: "Bearer \(token)AA") != nil)
    }

    @Test func appleRoutesAnswer401WithoutABodyAndControlRoutesNeedNoToken() throws {
        let server = try makeServer()
        let response = server.get("/inApps/v1/subscriptions/1", token: nil)
        #expect(response.status == 401)
        #expect(response.body.isEmpty)
        #expect(server.get("/inApps/v1/unknown", token: nil).status == 401)
        #expect(server.get("/simctl/v1/state", token: nil).status == 200)
    }
}

/// docs/server.md's "Bearer tokens" table: every reason it shows is one the policy gives for a token breaking that
/// rule (`…` stands for any text).
@Suite struct BearerTokenDocsTests {
    static func documentedReasons() throws -> [String] {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/server.md", encoding: .utf8)
        let start = try #require(text.range(of: "### Bearer tokens\n"))
        let section = text[start.upperBound...].components(separatedBy: "\n#")[0]
        var reasons: [String] = []
        for line in section.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| Rule") {
            let unescaped = line.replacingOccurrences(of: "\\|", with: "\u{1}")
            let cells = unescaped.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count >= 3 else { continue }
            let spans = cells[2].components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }
            reasons += spans.map { $0.element.replacingOccurrences(of: "\u{1}", with: "|") }
        }
        return reasons
    }

    /// Whether `message` is `pattern` with each `…` standing for any text.
    static func matches(_ message: String, _ pattern: String) -> Bool {
        let pieces = pattern.components(separatedBy: "…")
        guard message.hasPrefix(pieces[0]), message.hasSuffix(pieces[pieces.count - 1]) else { return false }
        var rest = Substring(message.dropFirst(pieces[0].count))
        for piece in pieces.dropFirst() where !piece.isEmpty {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    @Test func everyDocumentedReasonIsGiven() throws {
        let key = TestAPIKey()
        let now: Int64 = 1_764_650_125
        let policy = BearerTokenPolicy(bundleId: "com.example.nightsky", clock: { now })
        func claims(_ changes: [String: JSONValue]) -> [String: JSONValue] {
            var payload: [String: JSONValue] = [
                "iss": .string("issuer"), "aud": .string("appstoreconnect-v1"), "bid": .string("com.example.nightsky"),
                "exp": .integer(now + 600),
            ]
            for (name, value) in changes { payload[name] = value }
            return payload.filter { $0.value != .null }
        }
        // A token whose DER signature is 71 bytes, as the table shows.
        var derToken = ""
        for exp in (now + 300)...(now + 400) {
            let pieces = key.token(exp: exp).split(separator: ".")
            let der = try ECDSASignature(rawRepresentation: Base64URL.decode(String(pieces[2]))!).derRepresentation
            if der.count == 71 {
                derToken = "\(pieces[0]).\(pieces[1]).\(Base64URL.encode(der))"
                break
            }
        }
        let tokens = [
            "a.b", key.token(header: ["alg": .string("RS256"), "kid": .string("K")]),
            key.token(header: ["alg": .string("ES256")]), derToken, key.token(payload: claims(["iss": .null])),
            key.token(payload: claims(["aud": .string("appstoreconnect-v2")])),
            key.token(bundleId: "com.example.other"), key.token(exp: 1_764_650_000_000),
            key.token(payload: claims(["exp": .decimal("1764650000.5")])), key.token(exp: 1_764_650_000),
            key.token(exp: 1_764_650_000, iat: 1_764_649_500), key.token(exp: now + 600, iat: now + 61),
            key.token(exp: now + 3900), key.token(exp: now + 600, iat: now + 600 - 3601),
            key.token(exp: now + 30, iat: now + 30),
        ]
        var given = tokens.compactMap { policy.problem(authorization: "Bearer \($0)") }
        let other = P256.PrivateKey(derivedFrom: Array("another".utf8), label: "key")
        let signed = BearerTokenPolicy(bundleId: "com.example.nightsky", publicKey: other.publicKey, clock: { now })
        given += [signed.problem(authorization: "Bearer \(key.token(exp: now + 600))")].compactMap { $0 }
        #expect(given.count == tokens.count + 1, "every token is refused")
        let documented = try Self.documentedReasons()
        #expect(documented.count >= 15)
        for reason in documented {
            #expect(given.contains { Self.matches($0, reason) }, "no token gives the documented reason '\(reason)'")
        }
        // Also the other way: each rule's reason is in the table.
        for message in given {
            #expect(documented.contains { Self.matches(message, $0) }, "'\(message)' is not in the table")
        }
    }
}
