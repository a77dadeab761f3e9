// The Swift examples of docs/embedding.md, compiled and run. DocExamplesTests checks that every ```swift block of
// the guide appears verbatim between a `docs:begin` and `docs:end` marker here.
import SubscriptionSimulator
import SubscriptionSimulatorTesting
import Testing
import XCTest

// docs:begin swift-testing
@Test func familyMembersGetTheSubscriptionAnHourLater() throws {
    let monthly = Product(
        id: "com.example.family.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
        price: Price(decimal: "9.99")!, familyShareable: true)
    let start = CalendarDurationSyntax.parseInstant("2026-03-01T09:00:00Z")!
    var store = SimulatedStore(
        app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [monthly]),
        start: start, seed: 1)
    try store.createFamily(organizer: "alice", members: ["bob"])

    try store.purchase(monthly.id, by: "alice")
    try store.advance(by: .minutes(59))
    #expect(store.entitlements(for: "bob").isEmpty)

    try store.advance(by: .minutes(1))
    #expect(store.entitlements(for: "bob") == [monthly.id])
    let received = store.notifications(for: "bob")
    #expect(received.map(\.type) == [.subscribed] && received[0].subtype == .initialBuy)
    #expect(received[0].transaction?.ownership == .familyShared)
}
// docs:end

// docs:begin xctest
final class BillingRetryTests: XCTestCase {
    func testGracePeriodKeepsAccessThenRetryRemovesIt() throws {
        let monthly = Product(
            id: "com.example.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
            price: Price(decimal: "4.99")!)
        var store = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app", gracePeriod: .sixteenDays),
            catalog: try Catalog(products: [monthly]), start: Instant(millisecondsSince1970: 1_772_355_600_000))

        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(by: .months(1))
        XCTAssertEqual(store.notifications.last?.type, .didFailToRenew)
        XCTAssertEqual(store.notifications.last?.subtype, .gracePeriod)
        XCTAssertEqual(store.entitlements(for: "alice"), [monthly.id])

        try store.advance(by: .days(16))
        XCTAssertEqual(store.notifications.last?.type, .gracePeriodExpired)
        XCTAssertEqual(store.entitlements(for: "alice"), [])

        var whatIf = store  // a copy is a what-if branch
        try whatIf.fixBilling(for: "alice")
        XCTAssertEqual(whatIf.notifications.last?.subtype, .billingRecovery)
        XCTAssertEqual(store.entitlements(for: "alice"), [], "the original is unchanged")
    }
}
// docs:end

// docs:begin payloads
@Test func sendTheNotificationsToYourServerHandler() throws {
    let monthly = Product(
        id: "com.example.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
        price: Price(decimal: "4.99")!)
    var store = SimulatedStore(
        app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [monthly]),
        start: Instant(millisecondsSince1970: 1_772_355_600_000))
    try store.purchase(monthly.id, by: "alice")
    try store.advance(by: .months(2))

    let encoder = NotificationEncoder(app: store.app)
    for notification in store.notifications {
        let body = encoder.encode(notification).postBody  // {"signedPayload":"..."}, as Apple POSTs it
        #expect(body.hasPrefix("{\"signedPayload\":\""))
        // e.g. try await myServer.handleAppStoreNotification(body)
    }
    let status = ServerAPI(store).allSubscriptionStatuses(for: "alice")  // Get All Subscription Statuses
    #expect(status.value(at: "bundleId") == .string("com.example.app"))
}
// docs:end

// docs:begin scenario
@Test func runAScenarioFileFromATest() throws {
    let text = """
        name: Trial converts
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99, introOffer: { mode: freeTrial, period: P1W } }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.monthly }
        until: 1w
        expect:
          - notifications:
              customer: alice
              exactly:
                - { at: 0, type: SUBSCRIBED, subtype: INITIAL_BUY, fields: { transaction.offerDiscountType: FREE_TRIAL } }
                - { at: 1w, type: DID_RENEW, fields: { transaction.price: 4990 } }
        """
    let run = try ScenarioRunner.run(try ScenarioDecoder(file: "inline.yaml").decode(text))
    #expect(run.failures.isEmpty, "\(run.failures)")
}
// docs:end

// docs:begin tester-swift-testing
@Test func graceKeepsAccessUntilBillingRecovers() throws {
    let monthly = Product(
        id: "com.example.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
        price: Price(decimal: "4.99")!)
    let tester = StoreTester(
        SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app", gracePeriod: .sixteenDays),
            catalog: try Catalog(products: [monthly]),
            start: CalendarDurationSyntax.parseInstant("2026-03-01T09:00:00Z")!))

    try tester.act {
        try $0.purchase(monthly.id, by: "bob")
        $0.failBilling(for: "bob")
    }
    tester.receive(.subscribed, .initialBuy, to: "bob", status: .active)

    let produced = try tester.advance(by: .months(1))
    #expect(
        produced.map(\.description) == [
            "DID_FAIL_TO_RENEW / GRACE_PERIOD to bob at 2026-04-01T09:00:00Z (status 4)"
        ])
    let failed = tester.receive(.didFailToRenew, .gracePeriod, to: "bob", status: .gracePeriod)
    #expect(failed?.renewalInfo?.isInBillingRetryPeriod == true)
    tester.assertStatus(.gracePeriod, of: monthly.id, for: "bob")

    try tester.act { try $0.fixBilling(for: "bob") }
    tester.receive(.didRenew, .billingRecovery, to: "bob", status: .active)
    tester.finish()
}
// docs:end

// docs:begin tester-xctest
final class RefundTests: XCTestCase {
    func testARefundRevokesAccess() throws {
        let monthly = Product(
            id: "com.example.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
            price: Price(decimal: "4.99")!)
        let tester = StoreTester(
            SimulatedStore(
                app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [monthly]),
                start: Instant(millisecondsSince1970: 1_772_355_600_000)))

        try tester.act { try $0.purchase(monthly.id, by: "alice") }
        tester.receive(.subscribed, .initialBuy, to: "alice")
        try tester.advance(by: .days(5))
        try tester.act { try $0.refund(monthly.id, of: "alice", reason: 1) }
        let refund = tester.receive(.refund, to: "alice", status: .revoked)
        XCTAssertEqual(refund?.transaction.revocationReason, 1)
        XCTAssertEqual(refund?.transaction.revocationType, "REFUND_FULL")
        XCTAssertEqual(tester.store.entitlements(for: "alice"), [])
        tester.finish()
    }
}
// docs:end

// docs:begin tester-payloads
@Test func feedTheThirdRenewalToYourHandler() throws {
    let monthly = Product(
        id: "com.example.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
        price: Price(decimal: "4.99")!)
    let tester = StoreTester(
        SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [monthly]),
            start: CalendarDurationSyntax.parseInstant("2026-03-01T09:00:00Z")!),
        exhaustivity: .off)
    try tester.act { try $0.purchase(monthly.id, by: "alice") }
    try tester.advance(by: .months(3))

    let renewal = try #require(
        tester.receive(.didRenew, to: "alice", at: CalendarDurationSyntax.parseInstant("2026-06-01T09:00:00Z")!))
    #expect(renewal.postBody == "{\"signedPayload\":\"\(renewal.signedPayload)\"}")
    // e.g. try await myServer.handleAppStoreNotification(renewal.postBody)
    #expect(renewal.payload.data.status == 1)
    #expect(renewal.transaction.transactionReason == "RENEWAL")
    #expect(
        renewal.transaction.expiresDate
            == CalendarDurationSyntax.parseInstant("2026-07-01T09:00:00Z")!.millisecondsSince1970)
    #expect(renewal.renewalInfo?.autoRenewStatus == 1)
}
// docs:end

// The library example of docs/signing.md.
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

// docs:begin timeline-driver
@Test func stepThroughATimelineWithTheDriver() throws {
    let text = """
        name: Renews, then the card fails
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.monthly }
          - at: P1M
            failBilling: { customer: alice }
        until: P2M
        """
    let scenario = try ScenarioDecoder(file: "inline.yaml").decode(text)
    var store = try TimelineDriver.prepare(scenario)  // customers, storefronts, family
    var driver = TimelineDriver(scenario)
    // Store events at an instant run before the entries at it: the renewal at P1M still succeeds.
    #expect(driver.advance(&store, to: scenario.start.adding(.months(1))) == nil)
    #expect(store.notifications(for: "alice").map(\.type) == [.subscribed, .didRenew])
    #expect(driver.run(&store) == nil)  // the rest of the timeline, then the clock to `until`
    #expect(store.notifications(for: "alice").last?.type == .didFailToRenew)
    #expect(store.entitlements(for: "alice").isEmpty)  // billing retry without a grace period
}
// docs:end
