import Foundation
import SimctlCrypto
import SimctlServer
import SubscriptionSimulator
import Testing

/// The family billing story of Scenarios/family-billing-grace-recovery.yaml with an empty timeline: the tests drive
/// it through the control API.
let familyServeScenario = """
    name: Family billing, driven by the control API
    start: 2026-03-01T09:00:00Z
    app:
      bundleId: com.example.nightsky
      appAppleId: 1234567890
      gracePeriod: 16d
    products:
      - id: com.example.nightsky.family.monthly
        type: autoRenewable
        group: nightsky.pro
        period: P1M
        price: 9.99
        familyShareable: true
    family:
      organizer: alice
      members: [bob]
    timeline: []
    """

let familyProduct = "com.example.nightsky.family.monthly"

/// The repository's root (Tests/SimctlServerTests/ is two folders down).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

func decodeScenario(_ text: String, file: String = "serve.yaml") throws -> Scenario {
    try ScenarioDecoder(file: file).decode(text)
}

/// A throwaway API key and the tokens Apple's clients make with it: header {alg ES256, kid, typ JWT}, payload
/// {iss, aud, bid, exp[, iat]}, raw r||s signature.
struct TestAPIKey {
    let key = P256.PrivateKey(derivedFrom: Array("simctl serve tests".utf8), label: "api key")

    func token(
        bundleId: String = "com.example.nightsky", header: [String: JSONValue]? = nil,
        payload: [String: JSONValue]? = nil, exp: Int64 = 1_900_000_000, iat: Int64? = nil
    ) -> String {
        let h: JSONValue = .object(
            header ?? ["alg": .string("ES256"), "kid": .string("ABC123DEFG"), "typ": .string("JWT")])
        var p: [String: JSONValue] =
            payload ?? [
                "iss": .string("57246542-96fe-1a63-e053-0824d011072a"), "aud": .string("appstoreconnect-v1"),
                "bid": .string(bundleId), "exp": .integer(exp),
            ]
        if let iat { p["iat"] = .integer(iat) }
        let input =
            Base64URL.encode(Array(CanonicalJSON.string(h).utf8)) + "."
            + Base64URL.encode(Array(CanonicalJSON.string(.object(p)).utf8))
        return input + "." + Base64URL.encode(key.signature(for: Array(input.utf8)).rawRepresentation)
    }
}

extension SimulatorServer {
    /// A request with a valid bearer token.
    func get(_ path: String, query: [(name: String, value: String)] = [], token: String? = TestAPIKey().token())
        -> ServerResponse
    {
        handle(
            ServerRequest(
                method: "GET", path: path, query: query,
                headers: token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []))
    }

    func post(_ path: String, _ body: String, token: String? = TestAPIKey().token()) -> ServerResponse {
        handle(
            ServerRequest(
                method: "POST", path: path,
                headers: token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? [], body: Array(body.utf8)))
    }

    func control(_ path: String, _ body: String = "") -> ServerResponse {
        handle(ServerRequest(method: path == "/simctl/v1/state" ? "GET" : "POST", path: path, body: Array(body.utf8)))
    }

    func stateJSON() -> JSONValue {
        (try? CanonicalJSON.parse(get("/simctl/v1/state", token: nil).bodyText)) ?? .null
    }
}

extension ServerResponse {
    var json: JSONValue { (try? CanonicalJSON.parse(bodyText)) ?? .null }
}

/// A transport that accepts every attempt and keeps the bodies, or fails the ones `fail` picks.
final class RecordingTransport: DeliveryTransport, @unchecked Sendable {
    let connections = 1
    let destination = "recording"
    private let lock = NSLock()
    private var received: [DeliveryRequest] = []
    let fail: @Sendable (DeliveryRequest) -> Bool

    init(fail: @escaping @Sendable (DeliveryRequest) -> Bool = { _ in false }) { self.fail = fail }

    func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome] {
        lock.lock()
        defer { lock.unlock() }
        received += requests
        return requests.map { fail($0) ? .status(500) : .status(200) }
    }

    var requests: [DeliveryRequest] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }
}

/// A server as `simctl serve` runs it: its start-up deliveries made (as once it listens).
func makeServer(transport: DeliveryTransport? = RecordingTransport(), scenario: String = familyServeScenario)
    throws -> SimulatorServer
{
    let server = try SimulatorServer(
        configuration: ServerConfiguration(scenario: try decodeScenario(scenario)), transport: transport)
    server.deliverStartUp()
    return server
}
