import Foundation
import Testing
@testable import SubscriptionSimulator

/// Issue 50: `RESCIND_CONSENT` (rule rescind-consent) with `appData` and the customer's `AppTransaction` (rule
/// app-transaction-of-a-customer), the one `AppTransaction` writer shared with Get App Transaction Info, and the
/// commitment fields of expired and revoked subscriptions (rule commitment-fields-only-in-a-commitment).
@Suite struct RescindConsentTests {
    func decoded(_ n: SentNotification, _ store: SimulatedStore) -> JSONValue {
        NotificationEncoder.decodedView(of: n, app: store.app)
    }

    func keys(_ value: JSONValue?) -> [String] {
        guard case .object(let members)? = value else { return [] }
        return members.keys.sorted()
    }

    @Test func rescindConsentGoesToTheMemberOnlyWithAppDataAndChangesNothingElse() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("3d"))
        let before = store.notifications.count
        let entitlements = ["alice", "bob", "carol"].map { store.entitlements(for: $0) }
        store.rescindConsent(for: "bob")
        #expect(store.notifications.count == before + 1, "one notification: nobody else in the family gets one")
        let n = try #require(store.notifications.last)
        #expect(n.type == .rescindConsent && n.subtype == nil && n.recipient == "bob" && n.instant == at("3d"))
        #expect(n.transaction == nil && n.renewal == nil && n.status == nil && !n.isAboutTheApp)
        let view = decoded(n, store)
        #expect(keys(view) == ["appData", "notificationType", "notificationUUID", "signedDate", "version"])
        #expect(
            keys(view.value(at: "appData")) == ["appAppleId", "bundleId", "environment", "signedAppTransactionInfo"])
        let bobsTransaction = try #require(store.transactions(for: "bob").first)
        #expect(
            view.value(at: "appData.signedAppTransactionInfo.appTransactionId")?.stringValue
                == bobsTransaction.appTransactionId)
        #expect(
            view.value(at: "appData.signedAppTransactionInfo.originalPurchaseDate")?.integerValue
                == bobsTransaction.purchaseDate.millisecondsSince1970)
        #expect(
            view.value(at: "appData.signedAppTransactionInfo.receiptCreationDate")?.integerValue
                == at("3d").millisecondsSince1970)
        #expect(["alice", "bob", "carol"].map { store.entitlements(for: $0) } == entitlements)
        #expect(FamilyRules.memberNotification(for: .rescindConsent) == nil)
    }

    @Test func appDataFollowsTheEnvironment() throws {
        var store = makeStore()
        store.rescindConsent(for: "alice")
        let local = decoded(try #require(store.notifications.last), store)
        #expect(local.value(at: "appData.appAppleId") == .integer(1_234_567_890))
        #expect(
            local.value(at: "appData.signedAppTransactionInfo.appAppleId") == nil, "StoreKit: appID only in Production")
        #expect(
            local.value(at: "appData.signedAppTransactionInfo.originalPurchaseDate")?.integerValue
                == testStart.millisecondsSince1970, "no purchase: the store's start")
        store.app.environment = .sandbox
        store.rescindConsent(for: "alice")
        let sandbox = decoded(try #require(store.notifications.last), store)
        #expect(keys(sandbox.value(at: "appData")) == ["bundleId", "environment", "signedAppTransactionInfo"])
        #expect(sandbox.value(at: "appData.signedAppTransactionInfo.receiptType") == .string("Sandbox"))
        store.app.environment = .production
        store.app.originalPlatform = .visionOS
        store.app.versionExternalIdentifier = 871_234
        store.rescindConsent(for: "alice")
        let production = decoded(try #require(store.notifications.last), store)
        #expect(production.value(at: "appData.appAppleId") == .integer(1_234_567_890))
        #expect(production.value(at: "appData.signedAppTransactionInfo.appAppleId") == .integer(1_234_567_890))
        #expect(production.value(at: "appData.signedAppTransactionInfo.originalPlatform") == .string("visionOS"))
        #expect(production.value(at: "appData.signedAppTransactionInfo.versionExternalIdentifier") == .integer(871_234))
    }

    /// Get App Transaction Info and the notification sign the same payload, made by one writer.
    @Test func getAppTransactionInfoSignsTheSamePayloadAsTheNotification() throws {
        var store = makeStore()
        store.app.environment = .production
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("2d"))
        store.rescindConsent(for: "alice")
        let n = try #require(store.notifications.last)
        let id = try #require(store.transactions(for: "alice").first?.transactionId)
        let answer = try ServerAPI(store).appTransactionInfo(transactionId: id)
        let jws = try #require(answer.value(at: "signedAppTransactionInfo")?.stringValue)
        let fromAPI = try JWS.decodePayload(jws)
        let encoded = NotificationEncoder(app: store.app).encode(n)
        let fromNotification = try JWS.decodePayload(
            try #require(encoded.payload.value(at: "appData.signedAppTransactionInfo")?.stringValue))
        #expect(fromAPI == fromNotification)
        #expect(
            keys(fromAPI) == [
                "appAppleId", "appTransactionId", "applicationVersion", "bundleId", "originalApplicationVersion",
                "originalPlatform", "originalPurchaseDate", "receiptCreationDate", "receiptType",
            ])
        #expect(encoded.decodedPayload.value(at: "appData.signedAppTransactionInfo") == fromNotification)
    }

    /// docs/wire-format.md shows the decoded `RESCIND_CONSENT` of Scenarios/rescind-consent.yaml as it is.
    @Test func wireFormatDocsShowTheScenariosPayload() throws {
        let docs = try PackagePaths.read(PackagePaths.docs.appendingPathComponent("wire-format.md"))
        let block = try #require(
            docs.components(separatedBy: "```json\n").dropFirst().first?
                .components(separatedBy: "```").first)
        let url = PackagePaths.scenarios.appendingPathComponent("rescind-consent.yaml")
        let scenario = try ScenarioFilesTests.decoder("rescind-consent.yaml").decode(try PackagePaths.read(url))
        let run = try ScenarioRunner.run(scenario)
        let n = try #require(run.store.notifications.first { $0.type == .rescindConsent })
        let shown = try JSONSerialization.jsonObject(with: Data(block.utf8)) as? NSDictionary
        let actual =
            try JSONSerialization.jsonObject(
                with: Data(CanonicalJSON.string(decoded(n, run.store)).utf8)) as? NSDictionary
        #expect(shown != nil && shown == actual)
    }

    /// Rule commitment-fields-only-in-a-commitment, over every scenario: an expired or revoked subscription's renewal
    /// info carries no `commitmentInfo` (WWDC26 session 210; reference Appendix E P10).
    @Test func noExpiredOrRevokedRenewalInfoCarriesCommitmentFields() throws {
        var checked = 0
        for url in ScenarioFilesTests.files {
            let name = url.lastPathComponent
            let run = try ScenarioRunner.run(try ScenarioFilesTests.decoder(name).decode(try PackagePaths.read(url)))
            for n in run.store.notifications {
                guard let status = n.status, status == .expired || status == .revoked, let renewal = n.renewal else {
                    continue
                }
                checked += 1
                #expect(
                    renewal.commitment == nil, "\(name): \(n.type.rawValue) to \(n.recipient ?? "-") at \(n.instant)")
            }
        }
        #expect(checked > 10)
    }
}
