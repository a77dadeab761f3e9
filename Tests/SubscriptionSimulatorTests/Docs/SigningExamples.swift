// The Swift example of docs/signing.md, compiled and run. DocExamplesTests checks that the guide's ```swift block
// appears verbatim between the `docs:begin` and `docs:end` markers here (docs/embedding.md's examples are built
// from outside the package: Tests/Layers/check_embedding_docs.sh).
import SubscriptionSimulator
import Testing

// docs:begin signing
@Test func notificationsSignedByMyTeamsChain() throws {
    let monthly = Product(
        id: "com.example.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
        price: Price(decimal: "9.99")!)
    let app = AppConfiguration(bundleId: "com.example.app", appAppleId: 1234567890, environment: .production)
    let start = CalendarDurationSyntax.parseInstant("2026-03-01T09:00:00Z")!
    var store = SimulatedStore(app: app, catalog: try Catalog(products: [monthly]), start: start, seed: 1)
    try store.purchase(monthly.id, by: "alice")

    let chain = SigningChain.generate(caSeed: "my-team-ca").chain
    let encoder = NotificationEncoder(app: store.app, signer: ES256Signer(chain: chain))
    let body = encoder.encode(store.notifications[0]).postBody  // {"signedPayload":"<ES256 JWS>"}
    let rootPEM = chain.root.pemRepresentation  // give this to the verifier
    #expect(body.hasPrefix(#"{"signedPayload":"ey"#) && rootPEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
}
// docs:end
