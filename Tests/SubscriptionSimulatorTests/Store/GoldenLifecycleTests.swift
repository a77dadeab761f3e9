import Testing
@testable import SubscriptionSimulator

/// Exhaustive golden streams: every notification a lifecycle emits, decoded (readable, reviewed) and as POST bodies
/// (decoded by Apple's library in CI). Regenerate with RECORD=1 and review the diff.
@Suite struct GoldenLifecycleTests {
    typealias Script = @Sendable (inout SimulatedStore) throws -> Void

    static func goldenCheck(
        _ name: String, _ store: SimulatedStore, _ extra: [(String, String)] = [], folder: String = "Lifecycles"
    ) {
        let encoder = NotificationEncoder(app: store.app)
        let encoded = store.notifications.map(encoder.encode)
        let decoded = encoded.map {
            var fields: [String: JSONValue] = [
                "at": .string($0.notification.instant.description), "payload": $0.decodedPayload,
            ]
            // A notification about the app (TEST, RENEWAL_EXTENSION/SUMMARY) has no recipient.
            if let recipient = $0.notification.recipient { fields["recipient"] = .string(recipient) }
            return CanonicalJSON.pretty(.object(fields)) + "\n"
        }.joined()
        let bodies = encoded.map { $0.postBody + "\n" }.joined()
        for (suffix, text) in [("decoded.json", decoded), ("jsonl", bodies)] + extra {
            if let problem = checkGolden(text, "\(folder)/\(name).\(suffix)") { Issue.record("\(problem)") }
        }
    }

    static let lifecycles: [(String, GracePeriodSetting, GraceEligibility, Script)] = [
        (
            "monthly-two-renewals-cancel-voluntary-expiry", .off, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.advance(to: at("P2M10D"))
                try s.cancel(monthly.id, by: "alice")
                try s.advance(to: at("P4M"))
            }
        ),
        (
            "resubscribe-after-expiry", .off, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.cancel(monthly.id, by: "alice")
                try s.advance(to: at("P1M20D"))
                try s.purchase(monthly.id, by: "alice")
                try s.advance(to: at("P2M20D"))
            }
        ),
        (
            "billing-failure-no-grace-recovery-day-10", .off, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                s.failBilling(for: "alice")
                try s.advance(to: at("P1M10D"))
                try s.fixBilling(for: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
        (
            "grace-16d-recovery-day-14", .sixteenDays, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                s.failBilling(for: "alice")
                try s.advance(to: at("P1M14D"))
                try s.fixBilling(for: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
        (
            "grace-3d-expires-recovery-day-40", .threeDays, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                s.failBilling(for: "alice")
                try s.advance(to: at("P1M40D"))
                try s.fixBilling(for: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
        ("retry-exhausted-grace-off", .off, .allRenewals, Self.failForever),
        ("retry-exhausted-grace-3d", .threeDays, .allRenewals, Self.failForever),
        ("retry-exhausted-grace-16d", .sixteenDays, .allRenewals, Self.failForever),
        ("retry-exhausted-grace-28d", .twentyEightDays, .allRenewals, Self.failForever),
        (
            "cancel-during-retry", .off, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                s.failBilling(for: "alice")
                try s.advance(to: at("P1M20D"))
                try s.cancel(monthly.id, by: "alice")
                try s.advance(to: at("P4M"))
            }
        ),
        (
            "product-removed-not-restored", .sixteenDays, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.advance(to: at("10d"))
                try s.removeFromSale(monthly.id)
                try s.advance(to: at("P4M"))
            }
        ),
        (
            "product-removed-restored-day-25", .sixteenDays, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.advance(to: at("10d"))
                try s.removeFromSale(monthly.id)
                try s.advance(to: at("P1M25D"))
                try s.restoreToSale(monthly.id)
                try s.advance(to: at("P3M"))
            }
        ),
        (
            "free-trial-paid-only-grace-failed-conversion", .sixteenDays, .paidToPaidOnly,
            { s in
                try s.purchase(trialMonthly.id, by: "alice")
                s.failBilling(for: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
        (
            "refund", .off, .allRenewals,
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.advance(to: at("P1M5D"))
                try s.refund(monthly.id, of: "alice", reason: 1)
                try s.advance(to: at("P3M"))
            }
        ),
        (
            "weekly-16d-grace", .sixteenDays, .allRenewals,
            { s in
                try s.purchase(weekly.id, by: "alice")
                try s.advance(to: at("1w"))
                s.failBilling(for: "alice")
                try s.advance(to: at("P3M"))
            }
        ),
    ]

    @Sendable static func failForever(_ s: inout SimulatedStore) throws {
        try s.purchase(monthly.id, by: "alice")
        s.failBilling(for: "alice")
        try s.advance(to: at("P4M"))
    }

    @Test(
        arguments: lifecycles.map { name, grace, eligibility, script in
            GoldenCase(name, folder: "Lifecycles", store: { makeStore(grace: grace, eligibility: eligibility) }, script)
        })
    func lifecycleMatchesItsGoldenStream(golden: GoldenCase) throws { try golden.check() }

    /// Get All Subscription Statuses and Get Transaction History at chosen instants of three lifecycles: after the
    /// cancel (active, auto-renew off), inside a 16-day grace period, and after a refund.
    static let snapshots: [(String, GracePeriodSetting, Script)] = [
        (
            "monthly-cancelled-at-P2M15D", .off,
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.advance(to: at("P2M10D"))
                try s.cancel(monthly.id, by: "alice")
                try s.advance(to: at("P2M15D"))
            }
        ),
        (
            "grace-16d-at-P1M5D", .sixteenDays,
            { s in
                try s.purchase(monthly.id, by: "alice")
                s.failBilling(for: "alice")
                try s.advance(to: at("P1M5D"))
            }
        ),
        (
            "refund-at-P1M5D", .off,
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.advance(to: at("P1M5D"))
                try s.refund(monthly.id, of: "alice", reason: 1)
            }
        ),
    ]

    @Test(arguments: snapshots.map(\.0))
    func serverAPIResponsesMatchTheirGoldens(name: String) throws {
        let (_, grace, script) = Self.snapshots.first { $0.0 == name }!
        var store = makeStore(grace: grace)
        try script(&store)
        let statuses = CanonicalJSON.pretty(decodeNested(ServerAPI(store).allSubscriptionStatuses(for: "alice"))) + "\n"
        let history = CanonicalJSON.pretty(decodeNested(ServerAPI(store).transactionHistory(for: "alice"))) + "\n"
        if let problem = checkGolden(statuses, "Lifecycles/\(name).statuses.json") { Issue.record("\(problem)") }
        if let problem = checkGolden(history, "Lifecycles/\(name).history.json") { Issue.record("\(problem)") }
    }

    /// Replaces every JWS string in a response by its decoded payload, for readable goldens.
    func decodeNested(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text) where text.split(separator: ".").count == 3 && text.hasPrefix("eyJ"):
            return (try? JWS.decodePayload(text)).map(decodeNested) ?? value
        case .array(let items): return .array(items.map(decodeNested))
        case .object(let members): return .object(members.mapValues(decodeNested))
        case .null, .bool, .integer, .decimal, .string: return value
        }
    }
}
