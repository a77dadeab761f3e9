import Testing
@testable import SubscriptionSimulator

/// The one timeline driver's rule: store events at an instant first, then the entries at it in file order; a refused
/// entry changes nothing, leaves the clock at its instant and stops the driver with one error text.
@Suite struct TimelineDriverTests {
    static let scenario = """
        name: driver
        start: 2026-03-01T09:00:00Z
        seed: 3
        app: { bundleId: com.example.app }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 9.99 }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.monthly }
          - at: P1M
            cancel: { customer: alice, product: com.example.monthly }
          - at: P1M
            resume: { customer: alice, product: com.example.monthly }
          - at: P2M
            cancel: { customer: bob, product: com.example.monthly }
          - at: P3M
            cancel: { customer: alice, product: com.example.monthly }
        until: P4M

        """

    static func decoded() throws -> Scenario { try ScenarioDecoder(file: "driver.yaml").decode(scenario) }

    @Test func storeEventsAtAnInstantRunBeforeTheEntriesAtIt() throws {
        let scenario = try Self.decoded()
        var store = try TimelineDriver.prepare(scenario)
        var driver = TimelineDriver(scenario)
        let renewal = scenario.start.adding(.months(1))
        #expect(driver.advance(&store, to: renewal) == nil)
        // The renewal at P1M ran first (DID_RENEW), then the cancel and the resume, in file order.
        let kinds = store.notifications(for: "alice").map { "\($0.type.rawValue)/\($0.subtype?.rawValue ?? "-")" }
        #expect(
            kinds == [
                "SUBSCRIBED/INITIAL_BUY", "DID_RENEW/-", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED",
            ])
        #expect(driver.nextEntry == 3 && store.now == renewal)
    }

    @Test func aRefusedEntryStopsWithItsLocationAndLeavesTheClockAtItsInstant() throws {
        let scenario = try Self.decoded()
        var store = try TimelineDriver.prepare(scenario)
        var driver = TimelineDriver(scenario)
        let stop = driver.advance(&store, to: scenario.until)
        guard case .refused(let error) = stop else {
            Issue.record("expected a refused entry, got \(String(describing: stop))")
            return
        }
        #expect(error.location.line == 15)
        #expect(error.message.hasPrefix("cancel at 2026-05-01T09:00:00Z cannot happen: "))
        #expect(store.now == scenario.start.adding(.months(2)))
        #expect(driver.nextEntry == 4, "the refused entry is used up; a server goes on with the next one")
        // Going on applies the rest by the same rule.
        #expect(driver.advance(&store, to: scenario.until) == nil)
        #expect(store.now == scenario.until && driver.remainingEntries == 0)
    }

    @Test func runAndSteppedRunsGiveTheSameStore() throws {
        let scenario = try Self.decoded()
        var byEntries = try TimelineDriver.prepare(scenario)
        var first = TimelineDriver(scenario)
        let stopped = first.run(&byEntries)
        var byInstants = try TimelineDriver.prepare(scenario)
        var second = TimelineDriver(scenario)
        var steps = 0
        let stoppedToo = second.run(&byInstants, stepping: .instants) { _ in steps += 1 }
        #expect(stopped == stoppedToo)
        #expect(byEntries.notifications == byInstants.notifications)
        #expect(steps > scenario.timeline.count, "stepping by instants also steps at the renewals")
    }

    @Test func theRunnerReportsTheDriversErrorText() throws {
        let run = ScenarioRunner.execute(try Self.decoded())
        #expect(run.stoppedBy?.description.hasPrefix("driver.yaml:15:") == true)
        #expect(run.stoppedBy?.message.hasPrefix("cancel at 2026-05-01T09:00:00Z cannot happen: ") == true)
    }

    @Test func preparingGivesTheStoreAtTheStartWithItsCustomers() throws {
        let scenario = try Self.decoded()
        let store = try TimelineDriver.prepare(scenario, retention: .liveState)
        #expect(store.now == scenario.start && store.customers == ["alice", "bob"])
        #expect(store.limits == .streaming, "a live-state store is bounded by time, not by what it keeps")
        #expect(try TimelineDriver.prepare(scenario).limits == .standard)
    }

    /// Every action says whether it reads history (an exhaustive switch, no `default:`); these are the ones that do.
    @Test func theActionsThatReadHistory() {
        let reading: [ScenarioAction] = [
            .refundTransaction(customer: "a", product: "p", transaction: 1, amount: .full, reason: 0),
            .restorePurchases(customer: "a"), .reverseRefund(customer: "a", product: "p", transaction: nil),
        ]
        let notReading: [ScenarioAction] = [
            .purchase(customer: "a", product: "p"), .cancel(customer: "a", product: "p"),
            .refund(customer: "a", product: "p", reason: 0), .requestTestNotification,
        ]
        #expect(reading.allSatisfy(ScenarioRunner.readsHistory))
        #expect(!notReading.contains(where: ScenarioRunner.readsHistory))
    }
}
