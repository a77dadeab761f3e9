import Testing
@testable import SubscriptionSimulator

/// Exhaustive family goldens: every notification to every customer, in order, with times (decoded and as POST
/// bodies), and for three cases the members' device view (StoreKit transactions, renewal states, callbacks).
@Suite struct FamilyGoldenTests {
    typealias Script = @Sendable (inout SimulatedStore) throws -> Void

    static let cases: [(String, Bool, Script)] = [
        (
            "family-purchase-two-members-delay", false,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("P1M"))
            }
        ),
        (
            "sharing-off-at-30-minutes", false,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("30m"))
                try s.stopSharing(familyMonthly.id, by: "alice")
                try s.advance(to: at("P2M"))
            }
        ),
        (
            "sharing-on-for-existing-subscription", false,
            { s in
                try s.purchase(laterShareableMonthly.id, by: "alice")
                try s.advance(to: at("3d"))
                try s.makeFamilyShareable(laterShareableMonthly.id)
                try s.advance(to: at("4d"))
                try s.startSharing(laterShareableMonthly.id, by: "alice")
                try s.advance(to: at("P1M"))
            }
        ),
        (
            "stop-sharing-day-40", true,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("40d"))
                try s.stopSharing(familyMonthly.id, by: "alice")
                try s.advance(to: at("P2M"))
            }
        ),
        (
            "purchaser-leaves", false,
            { s in
                try s.purchase(familyMonthly.id, by: "bob")
                try s.advance(to: at("10d"))
                try s.leaveFamily("bob")
                try s.advance(to: at("P1M"))
            }
        ),
        (
            "member-leaves", false,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("10d"))
                try s.leaveFamily("carol")
                try s.advance(to: at("P1M"))
            }
        ),
        (
            "purchaser-refunded", true,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("5d"))
                try s.refund(familyMonthly.id, of: "alice", reason: 1)
                try s.advance(to: at("P1M"))
            }
        ),
        (
            "member-joins-with-active-subscription", false,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("3d"))
                try s.joinFamily("dave")
                try s.advance(to: at("P1M"))
            }
        ),
        (
            "renewals-billing-failure-grace-recovery", false,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("P1M"))
                s.failBilling(for: "alice")
                try s.advance(to: at("P2M20D"))
                try s.fixBilling(for: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
        (
            "retry-exhausted-seen-by-members", false,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                s.failBilling(for: "alice")
                try s.advance(to: at("P4M"))
            }
        ),
        (
            "member-with-own-purchase-keeps-access", false,
            { s in
                try s.purchase(familyMonthly.id, by: "alice")
                try s.advance(to: at("2h"))
                try s.purchase(familyMonthly.id, by: "bob")
                try s.advance(to: at("10d"))
                try s.stopSharing(familyMonthly.id, by: "alice")
                try s.advance(to: at("P1M"))
            }
        ),
        (
            "non-consumable-shared-at-purchase", false,
            { s in
                try s.purchase(familyLifetime.id, by: "alice")
                try s.advance(to: at("2h"))
                try s.stopSharing(familyLifetime.id, by: "alice")
            }
        ),
        (
            "non-consumable-made-shareable-later-restore", true,
            { s in
                try s.purchase(laterShareable.id, by: "alice")
                try s.advance(to: at("1d"))
                try s.makeFamilyShareable(laterShareable.id)
                try s.advance(to: at("2d"))
                try s.restorePurchases(for: "bob")
                try s.advance(to: at("3d"))
            }
        ),
    ]

    /// The cases as golden cases: the device view (alice first) for those that ask for it.
    static let goldenCases = cases.map { name, withDeviceView, script in
        GoldenCase(
            name, folder: "Family", extras: [.entitlements] + (withDeviceView ? [.deviceViewFirst("alice")] : []),
            store: { makeFamilyStore(grace: .sixteenDays) }, script)
    }

    @Test(arguments: goldenCases)
    func familyCaseMatchesItsGoldens(golden: GoldenCase) throws { try golden.check() }

    @Test func memberNotificationsNeverShareIdsWithThePurchaser() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("P3M"))
        let purchaser = Set(
            store.transactions(for: "alice").flatMap {
                [$0.transactionId, $0.originalTransactionId, $0.webOrderLineItemId!]
            })
        for member in ["bob", "carol"] {
            for n in store.notifications(for: member) {
                #expect(n.transaction?.ownership == .familyShared)
                #expect(
                    purchaser.isDisjoint(with: [
                        n.transaction!.transactionId, n.transaction!.originalTransactionId,
                        n.transaction!.webOrderLineItemId!,
                    ]))
            }
        }
    }
}
