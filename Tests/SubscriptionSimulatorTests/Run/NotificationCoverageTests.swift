import Foundation
import Testing
@testable import SubscriptionSimulator

/// Across the files directly in Scenarios/, every notification kind a subscription server handles occurs at least
/// once (issue 29): the 31 (type, subtype) pairs below (RESCIND_CONSENT since issue 50). EXTERNAL_PURCHASE_TOKEN and
/// the Advanced Commerce types are not required. A scenario that stops showing one makes this test fail.
@Suite struct NotificationCoverageTests {
    static let required: [String] = [
        "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/RESUBSCRIBE",
        "DID_RENEW/-", "DID_RENEW/BILLING_RECOVERY",
        "DID_FAIL_TO_RENEW/-", "DID_FAIL_TO_RENEW/GRACE_PERIOD",
        "GRACE_PERIOD_EXPIRED/-",
        "EXPIRED/VOLUNTARY", "EXPIRED/BILLING_RETRY", "EXPIRED/PRICE_INCREASE", "EXPIRED/PRODUCT_NOT_FOR_SALE",
        "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
        "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_CHANGE_RENEWAL_PREF/-",
        "OFFER_REDEEMED/UPGRADE", "OFFER_REDEEMED/-",
        "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED",
        "REFUND/-", "REFUND_DECLINED/-", "REFUND_REVERSED/-", "CONSUMPTION_REQUEST/-",
        "RENEWAL_EXTENDED/-", "RENEWAL_EXTENSION/SUMMARY", "RENEWAL_EXTENSION/FAILURE",
        "REVOKE/-", "ONE_TIME_CHARGE/-", "TEST/-", "RESCIND_CONSENT/-",
    ]

    @Test func theListHasThirtyOneKinds() {
        #expect(Set(Self.required).count == 31)
    }

    @Test func everyNotificationKindOccursInScenarios() throws {
        var seen: [String: String] = [:]
        for url in ScenarioFilesTests.files {
            let name = url.lastPathComponent
            let scenario = try ScenarioFilesTests.decoder(name).decode(try PackagePaths.read(url))
            let run = try ScenarioRunner.run(scenario)
            for n in run.store.notifications {
                let kind = "\(n.type.rawValue)/\(n.subtype?.rawValue ?? "-")"
                if seen[kind] == nil { seen[kind] = name }
            }
        }
        let missing = Self.required.filter { seen[$0] == nil }
        #expect(missing.isEmpty, "notification kinds no scenario in Scenarios/ shows: \(missing)")
    }
}
