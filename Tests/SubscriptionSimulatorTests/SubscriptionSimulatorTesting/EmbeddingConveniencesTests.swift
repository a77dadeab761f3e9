import Foundation
import Testing
@testable import SubscriptionSimulator
@testable import SubscriptionSimulatorTesting

/// Issue 51: the library's conveniences for tests that embed it, in Apple's words.
@Suite struct EmbeddingConveniencesTests {
    typealias F = StoreTesterFixtures

    @Test func aReceivedNotificationHasTypedFieldsBesideItsPayload() throws {
        let tester = StoreTester(F.store(), exhaustivity: .off(showSkippedAssertions: false))
        try tester.act { (store: inout SimulatedStore) throws(StoreError) in
            try store.purchase(F.monthly.id, by: "bob")
            store.failBilling(for: "bob")
        }
        try tester.advance(by: .months(1))
        let n = try #require(tester.receive(.didFailToRenew, .gracePeriod, to: "bob"))
        let type: NotificationType = n.type
        let recipient: String = n.recipient
        let productId: String = n.productId
        #expect(type == .didFailToRenew && n.subtype == .gracePeriod)
        #expect(recipient == "bob" && productId == F.monthly.id && n.status == .gracePeriod)
        #expect(n.payload.data.status == Int32(n.status!.statusCode) && !n.isAboutTheApp)
        #expect(n.instant == F.at("2026-04-01T09:00:00Z"))
    }

    @Test func theNotificationsAboutTheAppHaveNoCustomerProductOrStatus() throws {
        var store = F.store()
        _ = store.requestTestNotification()
        let n = ReceivedNotification(store.notifications[0], app: store.app)
        #expect(n.type == .test && n.isAboutTheApp && n.recipient.isEmpty && n.productId.isEmpty && n.status == nil)
        #expect(n.description == "TEST to the app at 2026-03-01T09:00:00Z")
    }

    @Test func theSimulatorsEnumsPrintApplesValuesInTestOutput() {
        #expect("\(NotificationType.didRenew)" == "DID_RENEW")
        #expect(String(describing: NotificationSubtype.gracePeriod) == "GRACE_PERIOD")
        #expect(String(describingForTest: NotificationType.didFailToRenew) == "DID_FAIL_TO_RENEW")
        #expect(String(describingForTest: SubscriptionPhase.gracePeriod) == "4 (gracePeriod)")
        #expect(String(describingForTest: Ownership.familyShared) == "FAMILY_SHARED")
        #expect(String(describingForTest: ProductType.autoRenewable) == "Auto-Renewable Subscription")
        #expect("\(RevocationReason.refundedDueToIssue)" == "1")
    }

    @Test func aTypedRefundReasonIsTheWireCode() throws {
        var store = F.store()
        try store.purchase(F.monthly.id, by: "alice")
        try store.refund(F.monthly.id, of: "alice", reason: .refundedDueToIssue)
        let refund = ReceivedNotification(store.notifications.last!, app: store.app)
        #expect(refund.type == .refund && refund.transaction.revocationReason == 1)
        #expect(RevocationReason(rawValue: refund.transaction.revocationReason!) == .refundedDueToIssue)
    }

    /// A scenario file and a `.storekit` beside it, in a folder of its own (as a test target's resources are).
    static func scenarioFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "issue51-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: PackagePaths.scenarios.appendingPathComponent("StoreKit/NightSky.storekit"),
            to: folder.appendingPathComponent("NightSky.storekit"))
        let yaml = """
            name: Trial converts, from a file beside a .storekit
            start: 2026-03-01T09:00:00Z
            app: { bundleId: com.example.nightsky }
            storekit: NightSky.storekit
            timeline:
              - at: 0
                purchase: { customer: alice, product: com.example.nightsky.family.monthly }
            until: 1w
            expect:
              - notifications:
                  customer: alice
                  exactly:
                    - { at: 0, type: SUBSCRIBED, subtype: INITIAL_BUY }
                    - { at: 1w, type: DID_RENEW }

            """
        try yaml.write(to: folder.appendingPathComponent("trial.yaml"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test func aScenarioFileIsReadByURLWithItsStoreKitPathResolvedAgainstIt() throws {
        let folder = try Self.scenarioFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("trial.yaml")
        let run = try ScenarioRunner.run(contentsOf: url)
        #expect(run.passed)
        #expect(run.notifications.map(\.type) == [.subscribed, .didRenew])
        #expect(run.notifications(for: "alice") == run.notifications)
        #expect(
            run.received.map(\.productId) == [
                "com.example.nightsky.family.monthly", "com.example.nightsky.family.monthly",
            ])
        #expect(run.received(for: "alice").last?.transaction.price == 4990)
        #expect(run.postBodies.count == 2 && run.postBodies[0] == run.received[0].postBody)
        let scenario = try ScenarioDecoder.decode(contentsOf: url)
        #expect(scenario.file == url.path && scenario.app.gracePeriod == .sixteenDays)
    }

    @Test func aFileThatCannotBeReadIsAnErrorNamingIt() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("issue51-no-such.yaml")
        #expect(throws: ScenarioError.self) { try ScenarioRunner.run(contentsOf: missing) }
        do {
            _ = try ScenarioDecoder.decode(contentsOf: missing)
        } catch {
            #expect(error.description == "\(missing.path):1:1: error: cannot read the file: no such file or directory")
        }
    }

    @Test func aStoreIsBuiltFromAStoreKitFileInOneCall() throws {
        let url = PackagePaths.scenarios.appendingPathComponent("StoreKit/NightSky.storekit")
        var store = try SimulatedStore(storeKitFile: url, bundleId: "com.example.nightsky", start: F.start)
        #expect(
            store.catalog.products.map(\.id).sorted() == [
                "com.example.nightsky.family.monthly", "com.example.nightsky.stardust",
            ])
        #expect(store.app.gracePeriod == .sixteenDays && store.app.storefront.countryCode == "GBR")
        try store.purchase("com.example.nightsky.family.monthly", by: "alice")
        #expect(store.entitlements(for: "alice") == ["com.example.nightsky.family.monthly"])
        #expect(throws: StoreKitImportError.self) {
            try SimulatedStore(storeKitFile: url.appendingPathExtension("missing"), bundleId: "x", start: F.start)
        }
    }
}
