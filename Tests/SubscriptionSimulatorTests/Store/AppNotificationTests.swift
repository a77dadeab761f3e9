import Testing
@testable import SubscriptionSimulator

/// Notifications about the app, not a customer (rule notification-about-the-app): `TEST` from Request a Test
/// Notification (reference §6.3) and `RENEWAL_EXTENSION` / `SUMMARY` after a mass extension (§2.4).
@Suite struct AppNotificationTests {
    func decoded(_ n: SentNotification, _ store: SimulatedStore) -> JSONValue {
        NotificationEncoder.decodedView(of: n, app: store.app)
    }

    func keys(_ value: JSONValue?) -> [String] {
        guard case .object(let members)? = value else { return [] }
        return members.keys.sorted()
    }

    @Test func testNotificationCarriesOnlyTheAppsData() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("3d"))
        let request = store.requestTestNotification()
        let n = request.notification
        #expect(n.type == .test && n.subtype == nil && n.instant == at("3d"))
        #expect(n.recipient == nil && n.transaction == nil && n.renewal == nil && n.status == nil)
        #expect(n.isAboutTheApp)
        let view = decoded(n, store)
        #expect(keys(view) == ["data", "notificationType", "notificationUUID", "signedDate", "version"])
        #expect(keys(view.value(at: "data")) == ["appAppleId", "bundleId", "environment"])
        #expect(view.value(at: "data.appAppleId") == .integer(1_234_567_890))
        #expect(store.notifications.last == n)
        #expect(store.notifications(for: "alice").map(\.type) == [.subscribed])
        #expect(store.entitlements(for: "alice") == [monthly.id])
    }

    @Test func testNotificationInTheSandboxHasNoAppAppleId() throws {
        var store = makeStore()
        store.app.environment = .sandbox
        let n = store.requestTestNotification().notification
        #expect(keys(decoded(n, store).value(at: "data")) == ["bundleId", "environment"])
    }

    @Test func testNotificationTokenIsTheUUIDAndSignedDateAndFindsItsNotification() throws {
        var store = makeStore()
        try store.advance(to: at("1d"))
        let first = store.requestTestNotification()
        let second = store.requestTestNotification()
        #expect(first.testNotificationToken == "\(first.notificationUUID)_\(at("1d").millisecondsSince1970)")
        #expect(first.testNotificationToken != second.testNotificationToken)
        #expect(store.testNotification(token: first.testNotificationToken) == first.notification)
        #expect(store.testNotification(token: second.testNotificationToken) == second.notification)
        #expect(store.testNotification(token: "\(first.notificationUUID)_0") == nil)
    }

    @Test func testNotificationIsSignedLikeEveryOther() throws {
        var store = makeStore()
        let n = store.requestTestNotification().notification
        let encoded = NotificationEncoder(app: store.app).encode(n)
        #expect(encoded.postBody.hasPrefix(#"{"signedPayload":"ey"#))
        #expect(encoded.payload == encoded.decodedPayload, "nothing nested to sign: no transaction, no renewal info")
    }

    @Test func scenarioActionRequestsATestNotificationAndAppExpectationsSeeIt() throws {
        let text = """
            name: Test notification
            start: 2026-03-01T09:00:00Z
            app: { bundleId: com.example.app, appAppleId: 1234567890 }
            products:
              - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
            timeline:
              - { at: 0, purchase: { customer: alice, product: com.example.monthly } }
              - { at: 2h, requestTestNotification: {} }
            until: 1d
            expect:
              - notifications:
                  app: true
                  exactly:
                    - { at: 2h, type: TEST, fields: { data.appAppleId: 1234567890, data.bundleId: com.example.app } }
              - notifications:
                  customer: alice
                  exactly:
                    - { at: 0, type: SUBSCRIBED, subtype: INITIAL_BUY }
            """
        let run = try ScenarioRunner.run(try ScenarioDecoder(file: "inline.yaml").decode(text))
        #expect(run.failures.isEmpty, "\(run.failures)")
        let wrong = text.replacingOccurrences(of: "at: 2h, type: TEST", with: "at: 3h, type: TEST")
        let failed = try ScenarioRunner.run(try ScenarioDecoder(file: "inline.yaml").decode(wrong))
        #expect(
            failed.failures.map(\.message) == [
                "the app's notification #1: expected TEST at 2026-03-01T12:00:00Z, found TEST at 2026-03-01T11:00:00Z"
            ])
    }

    @Test func appExpectationNamesAppOrCustomerNotBoth() throws {
        let text = """
            name: Both
            start: 2026-03-01T09:00:00Z
            app: { bundleId: com.example.app }
            products:
              - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
            timeline:
              - { at: 0, requestTestNotification: {} }
              - { at: 0, purchase: { customer: alice, product: com.example.monthly } }
            expect:
              - notifications: { app: true, customer: alice, exactly: [] }
            """
        #expect(throws: ScenarioError.self) { try ScenarioDecoder(file: "both.yaml").decode(text) }
        do {
            _ = try ScenarioDecoder(file: "both.yaml").decode(text)
        } catch {
            #expect(error.description.contains("names one `customer` or `app: true`, not both"))
        }
    }
}
