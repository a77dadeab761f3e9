import Testing

@testable import SubscriptionSimulator

/// The StoreKit device view of a commitment (reference Appendix E O6): transactions carry `billingPlanType` and
/// `commitmentInfo`; a change of `RenewalInfo.renewalBillingPlanType` or `RenewalInfo.commitmentInfo` (cancel and
/// resume mid-commitment, a downgrade for after it, a billing-plan switch) is a `renewalBillingPlan` event (rule
/// commitment-renewal-on-device). Golden: Golden/Lifecycles/commitment-device-view.device.txt (RECORD=1 rewrites it).
@Suite struct CommitmentDeviceViewTests {
    static func price(_ text: String) -> Price { Price(decimal: text)! }

    static func product(_ id: String, level: Int, price: String, monthly: String) -> Product {
        var product = Product(
            id: id, type: .autoRenewable, group: "plus", level: level, period: .oneYear, price: Self.price(price),
            currency: "GBP")
        product.monthlyCommitment = CommitmentPlan(monthlyPrice: Self.price(monthly))
        return product
    }

    static let premium = product("premium.annual", level: 1, price: "109.99", monthly: "10.99")
    static let basic = product("basic.annual", level: 2, price: "59.99", monthly: "5.99")

    /// alice cancels the commitment's renewal, resumes it, then chooses the up-front plan for after it; bob chooses
    /// the lower product for after his; carol, on the up-front plan, switches to the monthly plan at her renewal.
    static func store() throws -> SimulatedStore {
        let app = AppConfiguration(
            bundleId: "com.example.app", appAppleId: 1, storefront: Storefronts.storefront(countryCode: "GBR")!)
        var store = SimulatedStore(
            app: app, catalog: try Catalog(products: [premium, basic]), start: testStart, seed: 1)
        try store.purchase(premium.id, by: "alice", plan: .monthly)
        try store.purchase(premium.id, by: "bob", plan: .monthly)
        try store.purchase(premium.id, by: "carol", plan: .upfront)
        try store.advance(to: at("5d"))
        try store.changePlan(to: premium.id, by: "carol", plan: .monthly)
        try store.advance(to: at("10d"))
        try store.cancel(premium.id, by: "alice")
        try store.advance(to: at("15d"))
        try store.changePlan(to: basic.id, by: "bob")
        try store.advance(to: at("20d"))
        try store.resume(premium.id, by: "alice")
        try store.advance(to: at("25d"))
        try store.changePlan(to: premium.id, by: "alice", plan: .upfront)
        try store.advance(to: at("P2M"))
        return store
    }

    static func planEvents(_ store: SimulatedStore, _ customer: String) -> [(Instant, DeviceRenewalPlan)] {
        store.deviceEvents(for: customer).compactMap { event in
            if case .renewalBillingPlan(_, let view) = event.kind { return (event.instant, view) }
            return nil
        }
    }

    @Test func cancelResumeAndAPlanSwitchEachChangeTheRenewalInfo() throws {
        let store = try Self.store()
        let alice = Self.planEvents(store, "alice")
        #expect(alice.map(\.0) == [at("10d"), at("20d"), at("25d")])
        #expect(alice.map { $0.1.commitmentInfo?.autoRenewOn } == [false, true, true])
        #expect(alice.map { $0.1.commitmentInfo?.renewalPlan } == [.monthly, .monthly, .upfront])
        #expect(alice.allSatisfy { $0.1.renewalBillingPlanType == .monthly })
        let bob = Self.planEvents(store, "bob")
        #expect(bob.map(\.0) == [at("15d")])
        #expect(bob.first?.1.commitmentInfo?.autoRenewProductId == Self.basic.id)
        // On the up-front plan the renewal info has no commitmentInfo; the switch shows as the next period's plan.
        let carol = Self.planEvents(store, "carol")
        #expect(carol.map(\.0) == [at("5d")])
        #expect(carol.first?.1 == DeviceRenewalPlan(renewalBillingPlanType: .monthly, commitmentInfo: nil))
    }

    @Test func theDeviceViewMatchesItsGolden() throws {
        let store = try Self.store()
        let device = store.customers.flatMap { store.deviceEvents(for: $0) }.map { "\($0)\n" }.joined()
        #expect(device.contains("billingPlanType monthly commitmentInfo 1/12 expirationDate"))
        if let problem = checkGolden(device, "Lifecycles/commitment-device-view.device.txt") {
            Issue.record("\(problem)")
        }
    }

    /// docs/family-sharing.md shows two lines of this device view: they are real output.
    @Test func theDocsLinesAreThisDeviceView() throws {
        let store = try Self.store()
        let device = Set(store.deviceEvents(for: "alice").map(\.description))
        let doc = try PackagePaths.read(PackagePaths.docs.appendingPathComponent("family-sharing.md"))
        let block = try #require(
            doc.components(separatedBy: "```text\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
                .first { $0.contains("commitmentInfo") })
        let lines = block.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        for line in lines { #expect(device.contains(line), "\(line)") }
    }
}
