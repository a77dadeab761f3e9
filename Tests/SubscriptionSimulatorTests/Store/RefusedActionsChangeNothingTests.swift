@testable import SubscriptionSimulator
import Testing

/// The rule every store action keeps (docs/scenario-format.md, "Timeline"): an action the rules refuse (it throws a
/// ``StoreError``) changes nothing. Checked over generated sequences: at many states (families with shares, grace,
/// billing retry, refunds, plan changes, offers), every action drawn from the scenario vocabulary
/// (``ActionVocabulary``) is applied to a copy of the store; when it is refused, the copy must equal the original in
/// everything observable now (notifications, transactions, entitlement changes, each customer's status,
/// entitlements, subscriptions and Server API read views) and in its future (a year of the store's own events on
/// both copies sends the same notifications: scheduled events and internal state are the same too).
@Suite struct RefusedActionsChangeNothingTests {
    /// Something for every action: a group of a shareable and a non-shareable plan with offers and an introductory
    /// offer (plan changes that move shares, redemptions), a second shareable group, a shareable non-consumable, a
    /// consumable, a non-renewing product, a 16-day grace period, a family of three and a customer outside it.
    static let header = """
        name: Refused actions change nothing
        start: 2026-03-01T09:00:00Z
        seed: 9
        app: { bundleId: com.example.app, appAppleId: 1234567890, gracePeriod: 16d }
        products:
          - id: com.example.family.monthly
            type: autoRenewable
            group: pro
            level: 1
            period: P1M
            price: 14.99
            familyShareable: true
            introOffer: { mode: freeTrial, period: P1W }
            offers:
              - { id: retain.half, type: promotional, mode: payAsYouGo, period: P1M, periods: 2, price: 7.49 }
              - { id: code.free, type: offerCode, mode: freeTrial, period: P1M }
              - { id: winback.free, type: winBack, mode: freeTrial, period: P1M }
          - { id: com.example.solo.monthly, type: autoRenewable, group: pro, level: 2, period: P1M, price: 9.99 }
          - { id: com.example.solo.yearly, type: autoRenewable, group: pro, level: 2, period: P1Y, price: 99.99 }
          - { id: com.example.extra, type: autoRenewable, group: extra, period: P1M, price: 2.99, familyShareable: true }
          - { id: com.example.lifetime, type: nonConsumable, price: 19.99, familyShareable: true }
          - { id: com.example.album, type: nonConsumable, price: 4.99 }
          - { id: com.example.coins, type: consumable, price: 0.99 }
          - { id: com.example.season, type: nonRenewing, price: 5.99, duration: P3M }
        family: { organizer: alice, members: [bob, carol] }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.family.monthly }
        """

    /// Generated sequences and actions per sequence: enough to reach shares in every phase, grace, retry, refunds
    /// and plan changes, and still a few seconds in a debug build.
    static let sequences = 40
    static let steps = 14

    @Test func aRefusedActionChangesNothingNowOrLater() throws {
        let scenario = try ScenarioDecoder(file: "refused-actions.yaml").decode(Self.header)
        // dave is outside the family (he may join it).
        let vocabulary = ActionVocabulary(
            catalog: scenario.catalog, people: ["alice", "bob", "carol", "dave"], family: scenario.family)
        var refused = 0
        var applied = 0
        /// "action: observable" a refusal of that action changed → the first example.
        var changed: [String: String] = [:]
        for sequence in 0..<Self.sequences {
            var random = RandomSource(seed: 0x7265_6675_7361_6C00 &+ UInt64(sequence))
            var store = try TimelineDriver.prepare(scenario)
            var driver = TimelineDriver(scenario)
            #expect(driver.advance(&store, to: scenario.start) == nil)
            var previous: String? = "alice"
            for _ in 0..<Self.steps {
                if random.nextDouble() < 0.7 {
                    let target = store.now.adding(Waits.draw(&random))
                    guard (try? store.advance(to: target)) != nil else { break }
                }
                // Every draw is tried; the first one the rules allow moves the sequence on.
                for _ in 0..<8 {
                    let action = vocabulary.draw(&random, store: store, previous: previous)
                    var trial = store
                    do throws(StoreError) {
                        try TimelineDriver.perform(action, on: &trial)
                        applied += 1
                        store = trial
                        previous = action.customer ?? previous
                        break
                    } catch {
                        refused += 1
                        for field in Self.differences(store, trial) where changed["\(action.name): \(field)"] == nil {
                            changed["\(action.name): \(field)"] =
                                "sequence \(sequence) at \(store.now): \(action) refused: \(error)"
                        }
                    }
                }
            }
        }
        let report = changed.keys.sorted().map { "\($0) changed, e.g. \(changed[$0]!)" }
        #expect(report.isEmpty, "\(report.joined(separator: "\n"))")
        // The sequences reach both outcomes often (the check is not vacuous).
        #expect(refused > 200)
        #expect(applied > 300)
    }

    /// The observables in which `after` (the store after a refused action) differs from `before`: empty when the
    /// refusal changed nothing now and nothing in the year that follows.
    static func differences(_ before: SimulatedStore, _ after: SimulatedStore) -> Set<String> {
        var fields: Set<String> = []
        if after.now != before.now { fields.insert("now") }
        if after.notifications != before.notifications { fields.insert("notifications") }
        if Array(after.transactions) != Array(before.transactions) { fields.insert("transactions") }
        if after.entitlementChanges != before.entitlementChanges { fields.insert("entitlementChanges") }
        if after.customers != before.customers { fields.insert("customers") }
        if after.catalog != before.catalog { fields.insert("catalog") }
        let beforeAPI = ServerAPI(before, signer: nil)
        let afterAPI = ServerAPI(after, signer: nil)
        for customer in before.customers {
            if after.entitlements(for: customer) != before.entitlements(for: customer) {
                fields.insert("entitlements")
            }
            if after.subscriptions(for: customer) != before.subscriptions(for: customer) {
                fields.insert("subscriptions (state, renewal info)")
            }
            for product in before.catalog.products
            where after.status(of: product.id, for: customer) != before.status(of: product.id, for: customer) {
                fields.insert("status")
            }
            if afterAPI.allSubscriptionStatuses(for: customer) != beforeAPI.allSubscriptionStatuses(for: customer) {
                fields.insert("Server API statuses")
            }
            if afterAPI.transactionHistory(for: customer) != beforeAPI.transactionHistory(for: customer) {
                fields.insert("Server API history")
            }
            if (try? afterAPI.refundHistory(for: customer)) != (try? beforeAPI.refundHistory(for: customer)) {
                fields.insert("Server API refund history")
            }
        }
        guard fields.isEmpty else { return fields }
        // The future: scheduled events and internal state show in what a year of the store's own events sends.
        var laterBefore = before
        var laterAfter = after
        let year = before.now.adding(CalendarDuration(years: 1))
        let endBefore = Result { () throws(StoreError) in try laterBefore.advance(to: year) }.map { true }
        let endAfter = Result { () throws(StoreError) in try laterAfter.advance(to: year) }.map { true }
        if (try? endBefore.get()) != (try? endAfter.get()) { fields.insert("future (run limits)") }
        if laterAfter.notifications != laterBefore.notifications { fields.insert("future notifications") }
        if laterAfter.entitlementChanges != laterBefore.entitlementChanges { fields.insert("future entitlements") }
        for customer in before.customers
        where laterAfter.subscriptions(for: customer) != laterBefore.subscriptions(for: customer) {
            fields.insert("future subscriptions")
        }
        return fields
    }
}
