import Testing

@testable import SubscriptionSimulator

/// Rule extension-request-identifier-once [assumed]: a single renewal-date extension's `requestIdentifier` extends a
/// subscription once; repeating it answers the first extension again. Through the store, the Server API endpoint
/// and a scenario.
@Suite struct RenewalExtensionRequestIdentifierTests {
    func extensionNotifications(_ store: SimulatedStore) -> Int {
        store.notifications.filter { $0.type == .renewalExtended }.count
    }

    @Test func aRepeatedIdentifierDoesNotExtendTwice() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        let first = try store.extendRenewalDate(monthly.id, for: "alice", days: 7, requestIdentifier: "r-1")
        #expect(first.effectiveDate == at("P1M7D") && first.requestIdentifier == "r-1")
        #expect(first.originalTransactionId == store.transactions[0].originalTransactionId)
        try store.advance(to: at("11d"))
        let again = try store.extendRenewalDate(monthly.id, for: "alice", days: 7, requestIdentifier: "r-1")
        #expect(again == first)
        #expect(store.transactions[0].expiresDate == at("P1M7D"))
        #expect(extensionNotifications(store) == 1)
        // Another identifier is another request: it extends (the second of two a year).
        let second = try store.extendRenewalDate(monthly.id, for: "alice", days: 3, requestIdentifier: "r-2")
        #expect(second.effectiveDate == at("P1M10D"))
        #expect(extensionNotifications(store) == 2)
        // A repeat of the first is still answered as before, although a third extension would be refused now.
        #expect(try store.extendRenewalDate(monthly.id, for: "alice", days: 7, requestIdentifier: "r-1") == first)
        #expect(
            store.renewalExtension(
                originalTransactionId: first.originalTransactionId, requestIdentifier: "r-2") == second)
    }

    @Test func withoutAnIdentifierEveryCallExtendsAndNothingIsRecorded() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        let first = try store.extendRenewalDate(monthly.id, for: "alice", days: 2)
        let second = try store.extendRenewalDate(monthly.id, for: "alice", days: 2)
        #expect(first.requestIdentifier == nil && first.effectiveDate == at("P1M2D"))
        #expect(second.effectiveDate == at("P1M4D"))
        #expect(extensionNotifications(store) == 2)
    }

    @Test func theSameIdentifierOnAnotherSubscriptionIsItsOwnRequest() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.purchase(monthly.id, by: "bob")
        _ = try store.extendRenewalDate(monthly.id, for: "alice", days: 5, requestIdentifier: "same")
        let bob = try store.extendRenewalDate(monthly.id, for: "bob", days: 5, requestIdentifier: "same")
        #expect(bob.effectiveDate == at("P1M5D"))
        #expect(extensionNotifications(store) == 2)
    }

    @Test func aRefusedRequestIsNotRecordedSoItsRetryExtends() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        #expect(throws: StoreError.self) {
            try store.extendRenewalDate(monthly.id, for: "alice", days: 91, requestIdentifier: "r-1")
        }
        let retry = try store.extendRenewalDate(monthly.id, for: "alice", days: 9, requestIdentifier: "r-1")
        #expect(retry.effectiveDate == at("P1M9D"))
    }

    @Test func theEndpointAnswersARepeatedIdentifierAsTheFirstTime() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        let original = store.transactions[0].originalTransactionId
        func extend(_ days: Int, _ identifier: String) throws -> JSONValue {
            try ServerAPI.extendRenewalDate(
                in: &store, originalTransactionId: original,
                body: Array(
                    #"{"extendByDays": \#(days), "extendReasonCode": 1, "requestIdentifier": "\#(identifier)"}"#.utf8))
        }
        let first = try extend(6, "retry-me")
        #expect(first.value(at: "effectiveDate") == .integer(at("P1M6D").millisecondsSince1970))
        #expect(first.value(at: "success") == .bool(true))
        // The same request again (a client's retry), even with other days: the first answer, no second extension.
        #expect(try extend(6, "retry-me") == first)
        #expect(try extend(30, "retry-me") == first)
        #expect(extensionNotifications(store) == 1)
        let other = try extend(1, "another")
        #expect(other.value(at: "effectiveDate") == .integer(at("P1M7D").millisecondsSince1970))
    }

    @Test func aScenarioStatesTheIdentifierAndWritesItBack() throws {
        let yaml = """
            name: t
            start: 2026-06-08T09:41:00Z
            app: { bundleId: com.example.app }
            products:
              - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 9.99 }
            timeline:
              - at: 0
                purchase: { customer: alice, product: com.example.monthly }
              - at: 3d
                extendRenewalDate: { customer: alice, product: com.example.monthly, days: 5, requestIdentifier: r-1 }
              - at: 4d
                extendRenewalDate: { customer: alice, product: com.example.monthly, days: 5, requestIdentifier: r-1 }
            until: P1M10D
            expect:
              - notifications:
                  customer: alice
                  exactly:
                    - { at: 0, type: SUBSCRIBED, subtype: INITIAL_BUY }
                    - { at: 3d, type: RENEWAL_EXTENDED }
                    - { at: P1M5D, type: DID_RENEW }
            """
        let scenario = try ScenarioDecoder(file: "t.yaml").decode(yaml)
        #expect(
            scenario.timeline[1].action
                == .extendRenewalDate(
                    customer: "alice", product: "com.example.monthly", days: 5, reason: .undeclared,
                    requestIdentifier: "r-1"))
        let run = try ScenarioRunner.run(scenario)
        #expect(run.failures.isEmpty, "\(run.failures)")
        let written = ScenarioYAMLWriter.yaml(scenario)
        #expect(written.contains("requestIdentifier: r-1"))
        #expect(
            try ScenarioDecoder(file: "t.yaml").decode(written).timeline.map(\.action)
                == scenario.timeline.map(\.action))
    }
}

extension RenewalExtensionRequestIdentifierTests {
    @Test func aRepeatedMassRequestExtendsNothingInTheStore() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        let first = try store.extendRenewalDatesForAllActiveSubscribers(monthly.id, days: 4, requestIdentifier: "m-1")
        let sent = store.notifications.count
        let again = try store.extendRenewalDatesForAllActiveSubscribers(monthly.id, days: 4, requestIdentifier: "m-1")
        #expect(again == first && first.succeededCount == 1)
        #expect(store.notifications.count == sent)
        #expect(store.transactions[0].expiresDate == at("P1M4D"))
        _ = try store.extendRenewalDatesForAllActiveSubscribers(monthly.id, days: 1, requestIdentifier: "m-2")
        #expect(store.transactions[0].expiresDate == at("P1M5D"))
    }
}
