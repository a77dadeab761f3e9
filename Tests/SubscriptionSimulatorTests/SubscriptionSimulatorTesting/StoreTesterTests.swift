import Testing
@testable import SubscriptionSimulator
@testable import SubscriptionSimulatorTesting

/// The assertions for embedding code (issue 9), under Swift Testing. Failures are collected through an injected
/// reporter, except in the tests that check the automatic reporter really fails a Swift Testing test.
@Suite struct StoreTesterTests {
    typealias F = StoreTesterFixtures

    @Test func theAutomaticReporterUsesSwiftTestingInsideATest() {
        #expect(FailureReporter.currentFramework == .swiftTesting)
    }

    @Test func exhaustiveModeFailsListingTheNotificationsNotReceived() throws {
        let log = FailureLog()
        let tester = StoreTester(F.store(), reporter: .collecting(into: log))
        try tester.act { (store: inout SimulatedStore) throws(StoreError) in
            try store.purchase(F.monthly.id, by: "alice")
        }
        try tester.advance(by: .months(1))
        #expect(
            log.messages == [
                "1 notification was sent but not received before advancing the clock:\n"
                    + "  SUBSCRIBED / INITIAL_BUY to alice for com.example.monthly at 2026-03-01T09:00:00Z (status 1)",
                "2 changes of access or status were not asserted before advancing the clock:\n"
                    + "  alice's status for com.example.monthly became 1 (active), from none, at 2026-03-01T09:00:00Z\n"
                    + "  alice gained access to com.example.monthly at 2026-03-01T09:00:00Z",
            ])
        tester.receive(.didRenew, to: "alice", at: F.at("2026-04-01T09:00:00Z"), status: .active)
        tester.finish()
        #expect(log.messages.count == 2, "everything since the last check was received")
    }

    @Test func aMissingAssertionFailsTheSwiftTestingTest() throws {
        try withKnownIssue {
            let tester = StoreTester(F.store(), coverage: .notifications)
            try tester.act { (store: inout SimulatedStore) throws(StoreError) in
                try store.purchase(F.monthly.id, by: "alice")
            }
            tester.finish()
        } matching: { issue in
            issue.comments.contains {
                $0.rawValue.contains("1 notification was sent but not received before finish():")
                    && $0.rawValue.contains(
                        "SUBSCRIBED / INITIAL_BUY to alice for com.example.monthly at 2026-03-01T09:00:00Z (status 1)")
            }
        }
    }

    @Test func aTesterThatGoesAwayWithNotificationsNotReceivedFails() throws {
        let log = FailureLog()
        do {
            let tester = StoreTester(F.store(), reporter: .collecting(into: log))
            try tester.act { (store: inout SimulatedStore) throws(StoreError) in
                try store.purchase(F.monthly.id, by: "bob")
            }
        }
        #expect(
            log.messages.first?.hasPrefix("1 notification was sent but not received before the end of the test") == true
        )
    }

    @Test func advanceReturnsTheNotificationsItProducedInTheFailureTextForm() throws {
        let log = FailureLog()
        let tester = StoreTester(F.store(), reporter: .collecting(into: log))
        try tester.act { (store: inout SimulatedStore) throws(StoreError) in
            try store.purchase(F.monthly.id, by: "bob")
            store.failBilling(for: "bob")
        }
        tester.receive(.subscribed, .initialBuy, to: "bob", status: .active)
        tester.assertAccess(.gained, to: F.monthly.id, for: "bob")
        let produced = try tester.advance(by: .months(1))
        #expect(
            produced.map(\.description) == [
                "DID_FAIL_TO_RENEW / GRACE_PERIOD to bob for com.example.monthly at 2026-04-01T09:00:00Z (status 4)"
            ])
        tester.receive(.didFailToRenew, .gracePeriod, to: "bob", status: .gracePeriod)
        tester.finish()
        #expect(log.messages.isEmpty)
    }

    @Test func aWrongReceiveNamesWhatWasExpectedAndWhatCame() throws {
        let log = FailureLog()
        let tester = StoreTester(F.store(), coverage: .notifications, reporter: .collecting(into: log))
        try tester.act { (store: inout SimulatedStore) throws(StoreError) in
            try store.purchase(F.monthly.id, by: "bob")
            store.failBilling(for: "bob")
        }
        tester.receive(.subscribed, .initialBuy, to: "bob")
        try tester.advance(by: .months(1))
        tester.receive(.didFailToRenew, to: "bob", status: .billingRetry)
        tester.receive(.didRenew, to: "carol")
        #expect(
            log.messages == [
                "expected DID_FAIL_TO_RENEW to bob (status 3), but bob's next notification is "
                    + "DID_FAIL_TO_RENEW / GRACE_PERIOD to bob for com.example.monthly at 2026-04-01T09:00:00Z (status 4)",
                "expected DID_RENEW to carol, but carol has no notification not yet received",
            ])
    }

    @Test func nonExhaustiveModeSkipsEarlierNotificationsAndChecksNothingElse() throws {
        let log = FailureLog()
        let tester = StoreTester(F.store(), exhaustivity: .off, reporter: .collecting(into: log))
        try tester.act { (store: inout SimulatedStore) throws(StoreError) in
            try store.purchase(F.monthly.id, by: "alice")
        }
        try tester.advance(by: .months(3))
        let third = tester.receive(.didRenew, to: "alice", at: F.at("2026-06-01T09:00:00Z"))
        #expect(third?.transaction.purchaseDate == F.at("2026-06-01T09:00:00Z").millisecondsSince1970)
        tester.receive(.didRenew, to: "alice", at: F.at("2026-04-01T09:00:00Z"))
        tester.finish()
        #expect(log.messages.count == 1)
        #expect(log.messages.first?.hasPrefix("expected DID_RENEW to alice at 2026-04-01T09:00:00Z, but") == true)
    }

    @Test func typedAccessDecodesThePostBodyAndItsSignedStrings() throws {
        let tester = StoreTester(F.store(), coverage: .notifications, reporter: .collecting(into: FailureLog()))
        try tester.act { (store: inout SimulatedStore) throws(StoreError) in
            try store.purchase(F.monthly.id, by: "bob")
            store.failBilling(for: "bob")
        }
        tester.receive(.subscribed, .initialBuy, to: "bob")
        try tester.advance(by: .months(1))
        let n = try #require(tester.receive(.didFailToRenew, .gracePeriod, to: "bob"))
        let encoded = NotificationEncoder(app: tester.store.app).encode(n.notification)
        #expect(n.postBody == encoded.postBody && n.postBody == "{\"signedPayload\":\"\(n.signedPayload)\"}")
        #expect(try JWS.decodePayload(n.signedPayload) == encoded.payload)
        #expect(n.signedTransactionInfo.split(separator: ".").count == 3)
        #expect(n.payload.notificationType == "DID_FAIL_TO_RENEW" && n.payload.subtype == "GRACE_PERIOD")
        #expect(n.payload.data.status == 4 && n.payload.data.bundleId == "com.example.app")
        #expect(n.transaction.productId == F.monthly.id && n.transaction.inAppOwnershipType == "PURCHASED")
        #expect(n.transaction.expiresDate == F.at("2026-04-01T09:00:00Z").millisecondsSince1970)
        #expect(n.transaction.price == 4990 && n.transaction.currency == "USD")
        let renewal = try #require(n.renewalInfo)
        #expect(renewal.isInBillingRetryPeriod == true && renewal.expirationIntent == 2)
        #expect(renewal.gracePeriodExpiresDate == F.at("2026-04-17T09:00:00Z").millisecondsSince1970)
        #expect(try JWS.decodePayload(n.signedRenewalInfo!).value(at: "autoRenewStatus") == .integer(1))
    }

    /// `assertStatus` and the YAML `status:` expectation use the same codes: `.gracePeriod` is `status: 4`.
    @Test func assertStatusSpeaksTheSameLanguageAsTheYAMLStatusExpectation() throws {
        let yaml = """
            name: t
            start: 2026-03-01T09:00:00Z
            seed: 3
            app: { bundleId: com.example.app, gracePeriod: 16d }
            products:
              - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
            timeline:
              - at: 0
                purchase: { customer: bob, product: com.example.monthly }
              - at: 0
                failBilling: { customer: bob }
            until: P1M
            expect:
              - at: P1M
                status: { bob: { com.example.monthly: 4 } }
            """
        let run = try ScenarioRunner.run(try ScenarioDecoder(file: "s.yaml").decode(yaml))
        #expect(run.passed)
        let log = FailureLog()
        let tester = StoreTester(run.store, exhaustivity: .off, reporter: .collecting(into: log))
        tester.assertStatus(.gracePeriod, of: F.monthly.id, for: "bob", at: F.at("2026-04-01T09:00:00Z"))
        #expect(log.messages.isEmpty)
        tester.assertStatus(.billingRetry, of: F.monthly.id, for: "bob")
        tester.assertStatus(.active, of: F.monthly.id, for: "nobody")
        #expect(
            log.messages == [
                "bob's status for com.example.monthly at 2026-04-01T09:00:00Z is 4 (gracePeriod); expected 3 (billingRetry)",
                "nobody's status for com.example.monthly at 2026-04-01T09:00:00Z is none (never subscribed); expected 1 (active)",
            ])
    }
}
