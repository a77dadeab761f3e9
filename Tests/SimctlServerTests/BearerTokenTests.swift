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
            clocked.problem(authorization: "Bearer \(key.token(exp: 1_900_000_000 - 301))") == "the token has expired")
        #expect(clocked.problem(authorization: "Bearer \(key.token(exp: 1_900_000_000 + 3600))") != nil)
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
