import Foundation
import Testing
@testable import SubscriptionSimulator

/// The payloads are described once (``Payloads``) and written two ways: as ``JSONValue`` (decoded format, server API,
/// tests) and straight to canonical bytes (jsonl, fixtures). Both must give the same bytes for every payload.
@Suite struct CanonicalBytesTests {
    static func bytes(_ describe: (inout CanonicalJSONBytes) -> Void) -> String {
        var json = CanonicalJSONBytes()
        json.object(describe)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// Every way the byte path writes `n` against the ``JSONValue`` path and ``CanonicalJSON``.
    static func checkBothPathsAgree(_ n: SentNotification, app: AppConfiguration, signer: any PayloadSigner) {
        if let t = n.transaction {
            let value = Payloads.transaction(t, app: app, signedDate: n.instant)
            let direct = bytes { Payloads.transaction(t, app: app, signedDate: n.instant, into: &$0) }
            #expect(direct == CanonicalJSON.string(value), "transaction of \(n.type.rawValue)")
        }
        if let r = n.renewal {
            let value = Payloads.renewalInfo(r, app: app, signedDate: n.instant)
            let direct = bytes { Payloads.renewalInfo(r, app: app, signedDate: n.instant, into: &$0) }
            #expect(direct == CanonicalJSON.string(value), "renewal info of \(n.type.rawValue)")
        }
        let decoded = NotificationEncoder.decodedView(of: n, app: app)
        let decodedBytes = bytes { NotificationEncoder.describeDecoded(of: n, app: app, into: &$0) }
        #expect(decodedBytes == CanonicalJSON.string(decoded), "decoded \(n.type.rawValue)")

        // The POST body written in place equals the JSONValue route: each payload built as a JSONValue, written by
        // CanonicalJSON, signed by JWS.compact.
        let encoder = NotificationEncoder(app: app, signer: signer)
        let encoded = encoder.encode(n)
        var reference = decoded
        if case .object(var members) = decoded, case .object(var data)? = members["data"] {
            if let t = n.transaction {
                data["signedTransactionInfo"] = .string(
                    JWS.compact(payload: Payloads.transaction(t, app: app, signedDate: n.instant), signer: signer))
            }
            if let r = n.renewal {
                data["signedRenewalInfo"] = .string(
                    JWS.compact(payload: Payloads.renewalInfo(r, app: app, signedDate: n.instant), signer: signer))
            }
            members["data"] = .object(data)
            reference = .object(members)
        }
        // RESCIND_CONSENT: appData's signedAppTransactionInfo (issue 50).
        if case .object(var members) = decoded, case .object(var appData)? = members["appData"],
            let a = n.appTransaction
        {
            appData["signedAppTransactionInfo"] = .string(
                JWS.compact(payload: Payloads.appTransaction(a, app: app), signer: signer))
            members["appData"] = .object(appData)
            reference = .object(members)
        }
        #expect(encoded.payload == reference, "payload of \(n.type.rawValue)")
        let body = CanonicalJSON.string(
            .object(["signedPayload": .string(JWS.compact(payload: reference, signer: signer))]))
        #expect(encoded.postBody == body, "POST body of \(n.type.rawValue)")
        #expect(encoded.signedPayload == JWS.compact(payload: reference, signer: signer), "JWS of \(n.type.rawValue)")
        #expect(encoded.decodedPayload == decoded, "decoded payload of \(n.type.rawValue)")
        var buffers = NotificationEncoder.Buffers()
        var streamed: [UInt8] = []
        for _ in 0..<2 {  // the reused buffers give the same bytes again
            streamed.removeAll()
            encoder.appendPostBody(of: n, signing: JWSSigning(signer), to: &streamed, buffers: &buffers)
            #expect(String(decoding: streamed, as: UTF8.self) == body, "streamed POST body of \(n.type.rawValue)")
        }
    }

    @Test(arguments: ScenarioFilesTests.files.map(\.lastPathComponent))
    func bytePathEqualsJSONValuePathForEveryScenarioPayload(name: String) throws {
        let url = PackagePaths.scenarios.appendingPathComponent(name)
        let scenario = try ScenarioFilesTests.decoder(name).decode(try PackagePaths.read(url))
        let run = try ScenarioRunner.run(scenario)
        for n in run.store.notifications {
            Self.checkBothPathsAgree(n, app: scenario.app, signer: UnsignedTestSigner())
        }
    }

    /// ES256 signatures are deterministic (RFC 6979), so the streamed body equals `encode`'s with that signer too.
    @Test func bytePathEqualsJSONValuePathWithES256() throws {
        let url = PackagePaths.scenarios.appendingPathComponent(ScenarioFilesTests.files[0].lastPathComponent)
        let scenario = try ScenarioFilesTests.decoder(url.lastPathComponent).decode(try PackagePaths.read(url))
        var app = scenario.app
        app.environment = .sandbox
        let run = try ScenarioRunner.run(scenario)
        for n in run.store.notifications.prefix(2) {
            Self.checkBothPathsAgree(n, app: app, signer: ES256Signer.defaultSigner)
        }
    }

    static let start = Instant(millisecondsSince1970: 1_767_225_600_000)

    static func transaction(
        offer: IntroductoryOffer?, revocation: Revocation?, ownership: Ownership, token: String?, upgraded: Bool,
        grouped: Bool
    ) -> TransactionRecord {
        TransactionRecord(
            transactionId: "2000000000000002", originalTransactionId: "2000000000000001",
            webOrderLineItemId: grouped ? "3000000000000001" : nil, customer: "alice",
            productId: "com.example.\"quoted\"\\é", productType: grouped ? .autoRenewable : .consumable,
            subscriptionGroupIdentifier: grouped ? "21000001" : nil, purchaseDate: start,
            originalPurchaseDate: start, expiresDate: grouped ? start.adding(.months(1)) : nil, ownership: ownership,
            reason: .renewal, offer: offer, price: Price(milliunits: -10), currency: "EUR", revocation: revocation,
            lastModified: start, appTransactionId: token == nil ? "" : "704000000000001", appAccountToken: token,
            storefront: Storefront(countryCode: "FRA", id: "143442"), isUpgraded: upgraded)
    }

    static var offers: [IntroductoryOffer?] {
        var promotional = IntroductoryOffer(
            mode: .payAsYouGo, period: .months(1), periods: 3, price: Price(decimal: "2.49")!)
        promotional.type = .promotional
        promotional.identifier = "spring\n\"sale\"\u{01}"
        var winBack = IntroductoryOffer(mode: .freeTrial, period: .weeks(1))
        winBack.type = .winBack
        winBack.identifier = "come-back"
        return [
            nil, IntroductoryOffer(mode: .payUpFront, period: .months(3), price: Price(decimal: "8.99")!),
            promotional, winBack,
        ]
    }

    static var revocations: [Revocation?] {
        [
            nil, Revocation(date: start.adding(.days(3)), reason: 1, kind: .refundFull),
            Revocation(date: start.adding(.days(3)), reason: 0, kind: .refundProrated, proratedPercentage: 45_000),
            Revocation(date: start.adding(.days(3)), reason: 0, kind: .familyRevoke),
        ]
    }

    static func renewal(
        full: Bool, offer: IntroductoryOffer?, consent: PriceIncreaseConsent?, winBack: [String]
    ) -> RenewalSnapshot {
        RenewalSnapshot(
            originalTransactionId: "2000000000000001", productId: "com.example.monthly",
            autoRenewProductId: "com.example.yearly", autoRenewOn: !full, expirationIntent: full ? .billingError : nil,
            isInBillingRetryPeriod: full ? true : nil,
            gracePeriodExpiresDate: full ? start.adding(.days(16)) : nil, renewalDate: start.adding(.months(1)),
            recentSubscriptionStartDate: start, renewalPrice: full ? Price(decimal: "12.99")! : nil,
            currency: "USD", upcomingOffer: offer, appTransactionId: full ? "704000000000001" : "",
            appAccountToken: full ? "7e3fb20b-4cdb-47cc-936d-99d65f608138" : nil, priceIncreaseStatus: consent,
            eligibleWinBackOfferIds: winBack)
    }

    /// Hand-made records exercising every optional member (offers of each type, each revocation, family sharing,
    /// upgrades, price increases, win-back ids, summaries, strings that need escaping), in every environment.
    @Test func bytePathEqualsJSONValuePathForEveryOptionalMember() {
        var notifications: [SentNotification] = []
        var sequence: UInt64 = 0
        func notification(
            _ type: NotificationType, _ subtype: NotificationSubtype?, _ t: TransactionRecord?, _ r: RenewalSnapshot?
        ) -> SentNotification {
            sequence += 1
            return SentNotification(
                recipient: t == nil ? nil : "alice", instant: Self.start.adding(.days(Int(sequence))), type: type,
                subtype: subtype, uuid: NotificationUUID(high: sequence, low: ~sequence), transaction: t, renewal: r,
                status: t == nil ? nil : .billingRetry)
        }
        for (i, offer) in Self.offers.enumerated() {
            for (j, revocation) in Self.revocations.enumerated() {
                let t = Self.transaction(
                    offer: offer, revocation: revocation, ownership: j % 2 == 0 ? .purchased : .familyShared,
                    token: i % 2 == 0 ? "tok\"en\u{7F}ü" : nil, upgraded: j == 1, grouped: i != 3)
                let r = Self.renewal(
                    full: (i + j) % 2 == 0, offer: offer, consent: [nil, .pending, .accepted][j % 3],
                    winBack: [[], ["wb1"], ["wb1", "wb\"2"]][i % 3])
                notifications.append(notification(.didRenew, nil, t, r))
                notifications.append(notification(.refund, nil, t, nil))
            }
        }
        var consumption = notification(
            .consumptionRequest, nil,
            Self.transaction(
                offer: nil, revocation: nil, ownership: .purchased, token: nil, upgraded: false, grouped: false), nil)
        consumption.consumptionRequestReason = .unintendedPurchase
        notifications.append(consumption)
        notifications.append(notification(.test, nil, nil, nil))
        for codes in [[], ["USA", "FRA"]] {
            var summary = notification(.renewalExtension, .summary, nil, nil)
            summary.summary = RenewalExtensionSummary(
                requestIdentifier: "req-\"1\"", productId: "com.example.monthly", storefrontCountryCodes: codes,
                succeededCount: 12, failedCount: -1)
            notifications.append(summary)
        }
        for environment in [SimulatedEnvironment.localTesting, .xcode, .sandbox, .production] {
            let app = AppConfiguration(
                bundleId: "com.example.app", bundleVersion: "2.0 \"beta\"", appAppleId: 1_234_567_890,
                environment: environment)
            for n in notifications { Self.checkBothPathsAgree(n, app: app, signer: UnsignedTestSigner()) }
        }
    }

    @Test func canonicalOrderRequiresStrictlyIncreasingKeys() {
        #expect(isCanonicalNextKey("b", after: "a"))
        #expect(isCanonicalNextKey("storefrontId", after: "storefront"))
        #expect(isCanonicalNextKey("Z", after: nil))
        #expect(!isCanonicalNextKey("a", after: "a"))
        #expect(!isCanonicalNextKey("Z", after: "a"))  // uppercase sorts first
        #expect(!isCanonicalNextKey("a\"b", after: nil))  // a key that would need escaping
    }

    @Test func integersAreWrittenAsStringDoes() {
        for value in [Int64.min, Int64.min + 1, -1_000, -1, 0, 1, 9, 10, 1_767_225_600_000, Int64.max] {
            var out: [UInt8] = [UInt8(ascii: "x")]
            CanonicalJSONBytes.appendDecimal(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == "x" + String(value))
        }
    }
}

/// The placeholder signature of `LocalTesting` and `Xcode` payloads.
@Suite struct PlaceholderSignatureTests {
    static func signature(_ bytes: [UInt8]) -> [UInt8] { UnsignedTestSigner().signature(for: bytes) }

    @Test func isSixtyFourDeterministicBytes() {
        let input = Array("eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ".utf8)
        #expect(Self.signature(input).count == 64)
        #expect(Self.signature(input) == Self.signature(input))
        #expect(
            input.withUnsafeBytes { UnsignedTestSigner().signature(forSigningInputIn: $0) } == Self.signature(input))
    }

    /// Every byte of the input counts, in every position (each lane, the tail), and so does the length.
    @Test func changesWithEveryByteAndTheLength() {
        var random = RandomSource(seed: 7)
        for length in [0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100] {
            let input = (0..<length).map { _ in UInt8(random.nextInt(in: 0...255)) }
            let original = Self.signature(input)
            for index in 0..<length {
                var changed = input
                changed[index] ^= 1
                #expect(Self.signature(changed) != original, "length \(length), byte \(index)")
            }
            #expect(Self.signature(input + [0]) != original, "length \(length) and a zero byte more")
        }
    }
}
