import SimctlCrypto
import Testing

@testable import SubscriptionSimulator

@Suite struct CanonicalJSONTests {
    @Test func keysAreSortedByUTF8BytesAndOutputIsCompact() {
        let value: JSONValue = .object([
            "b": .integer(1), "a": .array([.bool(true), .null]), "é": .string("x"), "Z": .integer(-5),
        ])
        #expect(CanonicalJSON.string(value) == #"{"Z":-5,"a":[true,null],"b":1,"é":"x"}"#)
    }

    @Test func escapingIsFixed() {
        let text = "q\" b\\ \u{08}\u{0C}\n\r\t \u{01} / é"
        #expect(CanonicalJSON.string(.string(text)) == #""q\" b\\ \b\f\n\r\t \u0001 / é""#)
    }

    @Test func prettyFormIsStable() {
        let value: JSONValue = .object(["b": .array([.integer(1)]), "a": .object([:])])
        #expect(CanonicalJSON.pretty(value) == "{\n  \"a\": {},\n  \"b\": [\n    1\n  ]\n}")
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func parseWriteRoundTripsRandomTrees(seed: UInt64) throws {
        var random = RandomSource(seed: seed)
        func tree(_ depth: Int) -> JSONValue {
            switch random.nextInt(in: 0...(depth > 3 ? 3 : 5)) {
            case 0: return .integer(Int64(random.nextInt(in: -1_000_000...1_000_000)))
            case 1:
                return .string(
                    String(
                        (0..<random.nextInt(in: 0...8)).map { _ in
                            Character(Unicode.Scalar(UInt8(random.nextInt(in: 1...126))))
                        }))
            case 2: return .bool(random.nextInt(in: 0...1) == 1)
            case 3: return .null
            case 4: return .array((0..<random.nextInt(in: 0...4)).map { _ in tree(depth + 1) })
            default:
                var members: [String: JSONValue] = [:]
                for k in 0..<random.nextInt(in: 0...4) {
                    members["k\(k)\(random.nextInt(in: 0...9))"] = tree(depth + 1)
                }
                return .object(members)
            }
        }
        for _ in 0..<200 {
            let value = tree(0)
            #expect(try CanonicalJSON.parse(CanonicalJSON.string(value)) == value, "seed \(seed)")
            #expect(try CanonicalJSON.parse(CanonicalJSON.pretty(value)) == value, "seed \(seed)")
        }
    }

    @Test(arguments: [
        ("{", "1:2: expected a quoted key"), ("[1,]", "1:4: expected a JSON value"),
        ("01", "1:3: numbers must not have leading zeros"),
        ("1.5", "1:2: only whole numbers are supported; found a fraction or exponent"),
        ("{\"a\":1,\"a\":2}", "1:8: duplicate key 'a'"),
        ("\"\\x\"", "1:4: unknown escape '\\x'"), ("[1] 2", "1:5: unexpected text after the JSON value"),
    ])
    func parserRejects(text: String, message: String) {
        #expect(throws: (any Error).self) { try CanonicalJSON.parse(text) }
        do { _ = try CanonicalJSON.parse(text) } catch { #expect(error.description == message) }
    }

    @Test func lenientParserKeepsFractionsAsText() throws {
        #expect(try CanonicalJSON.parse("717674197.509135", allowFractions: true) == .decimal("717674197.509135"))
    }
}

@Suite struct JWSTests {
    @Test func compactJWSHasApplesHeaderShapeAndRoundTrips() throws {
        let payload: JSONValue = .object(["a": .integer(1)])
        let jws = JWS.compact(payload: payload, signer: UnsignedTestSigner())
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && !jws.contains("=") && !jws.contains("+") && !jws.contains("/"))
        #expect(try JWS.decodePayload(jws) == payload)
        let header = try JWS.decodeHeader(jws)
        #expect(header.value(at: "alg") == .string("ES256"))
        guard case .array(let chain) = header.value(at: "x5c") else { Issue.record("x5c missing"); return }
        #expect(chain.count == 3)
        #expect(JWS.compact(payload: payload, signer: UnsignedTestSigner()) == jws, "deterministic")
        #expect(Base64URL.decode(String(parts[2]))?.count == 64)
    }
}

@Suite struct WireValueTests {
    @Test func notificationTypesAreApplesStrings() {
        let expected = [
            "SUBSCRIBED", "DID_RENEW", "DID_FAIL_TO_RENEW", "GRACE_PERIOD_EXPIRED", "EXPIRED",
            "DID_CHANGE_RENEWAL_STATUS",
            "DID_CHANGE_RENEWAL_PREF", "OFFER_REDEEMED", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED",
            "REFUND_REVERSED",
            "CONSUMPTION_REQUEST", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION", "REVOKE", "ONE_TIME_CHARGE", "TEST",
            "EXTERNAL_PURCHASE_TOKEN", "RESCIND_CONSENT", "METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE",
        ]
        #expect(NotificationType.allCases.map(\.rawValue) == expected)
        #expect(
            NotificationSubtype.billingRecovery.rawValue == "BILLING_RECOVERY"
                && NotificationSubtype.gracePeriod.rawValue == "GRACE_PERIOD")
    }

    @Test func enumCodesAreApples() {
        #expect(SubscriptionPhase.allCases.map(\.statusCode) == [1, 2, 3, 4, 2 + 3])
        #expect(
            [EndReason.customerCancelled, .billingError, .productNotForSale].map(WireValues.expirationIntent) == [
                1, 2, 4,
            ])
        #expect(
            ProductType.allCases.map(WireValues.productType) == [
                "Auto-Renewable Subscription", "Non-Consumable", "Consumable", "Non-Renewing Subscription",
            ])
        #expect(
            WireValues.ownership(.familyShared) == "FAMILY_SHARED" && WireValues.ownership(.purchased) == "PURCHASED")
        #expect(
            WireValues.revocationType(.refundFull) == "REFUND_FULL"
                && WireValues.revocationType(.familyRevoke) == "FAMILY_REVOKE")
        #expect(
            IntroductoryOfferMode.allCases.map(WireValues.offerDiscountType) == [
                "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME",
            ])
        #expect(OfferType.allCases.map(WireValues.offerType) == [1, 2, 3, 4])
        #expect(WireValues.priceIncreaseStatus(.pending) == 0 && WireValues.priceIncreaseStatus(.accepted) == 1)
        #expect(WireValues.expirationIntent(.priceIncreaseNotConsented) == 3)
    }

    func containsNull(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return true
        case .array(let items): return items.contains(where: containsNull)
        case .object(let members): return members.values.contains(where: containsNull)
        case .bool, .integer, .decimal, .string: return false
        }
    }

    @Test func payloadsOmitAbsentFieldsAndUseApplesTypes() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.purchase(coins.id, by: "alice")
        let encoder = NotificationEncoder(app: store.app)
        for n in store.notifications {
            let decoded = encoder.encode(n).decodedPayload
            #expect(!containsNull(decoded))
            #expect(decoded.value(at: "version") == .string("2.0"))
            #expect(decoded.value(at: "signedDate") == .integer(n.instant.millisecondsSince1970))
            #expect(decoded.value(at: "data.appAppleId") == .integer(1_234_567_890))
            #expect(decoded.value(at: "data.bundleVersion") == .string("1.0"))
            #expect(decoded.value(at: "data.signedTransactionInfo.storefrontId") == .string("143441"))
            #expect(decoded.value(at: "data.signedTransactionInfo.price")?.integerValue != nil)
        }
        let subscription = encoder.encode(store.notifications[0]).decodedPayload
        #expect(subscription.value(at: "data.status") == .integer(1))
        #expect(
            subscription.value(at: "data.signedRenewalInfo.renewalDate") == .integer(at("P1M").millisecondsSince1970))
        #expect(subscription.value(at: "data.signedRenewalInfo.expirationIntent") == nil)
        let consumable = encoder.encode(store.notifications[1]).decodedPayload
        #expect(consumable.value(at: "data.status") == nil && consumable.value(at: "data.signedRenewalInfo") == nil)
        #expect(consumable.value(at: "data.signedTransactionInfo.expiresDate") == nil)
    }

    /// `offerPeriod` is the offer's whole duration: a pay-as-you-go offer of three monthly periods is `P3M`, in the
    /// transaction of every discounted period and in the renewal info while a discounted renewal is upcoming.
    @Test func offerPeriodIsTheWholeOffer() throws {
        let discounted = Product(
            id: "com.example.discounted", type: .autoRenewable, group: "discounted", period: .oneMonth,
            price: Price(decimal: "9.99")!,
            introOffer: IntroductoryOffer(
                mode: .payAsYouGo, period: .months(1), periods: 3, price: Price(decimal: "2.49")!))
        var store = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app"),
            catalog: try Catalog(products: [discounted, trialMonthly]), start: testStart)
        try store.purchase(discounted.id, by: "alice")
        try store.purchase(trialMonthly.id, by: "bob")
        try store.advance(to: at("P3M"))
        let encoder = NotificationEncoder(app: store.app)
        let alice = store.notifications(for: "alice").map { encoder.encode($0).decodedPayload }
        let offerPeriods = alice.map { $0.value(at: "data.signedTransactionInfo.offerPeriod") }
        let upcoming = alice.map { $0.value(at: "data.signedRenewalInfo.offerPeriod") }
        // Purchase, two discounted renewals, then the first full-price renewal.
        #expect(offerPeriods == [.string("P3M"), .string("P3M"), .string("P3M"), nil])
        #expect(upcoming == [.string("P3M"), .string("P3M"), nil, nil])
        let trial = encoder.encode(store.notifications(for: "bob")[0]).decodedPayload
        #expect(trial.value(at: "data.signedTransactionInfo.offerPeriod") == .string("P1W"))
    }

    @Test func postBodyCarriesTheSignedPayloadOnly() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        let encoded = NotificationEncoder(app: store.app).encode(store.notifications[0])
        let body = try CanonicalJSON.parse(encoded.postBody)
        guard case .object(let members) = body, case .string(let jws)? = members["signedPayload"], members.count == 1
        else {
            Issue.record("body is not {\"signedPayload\": ...}"); return
        }
        let payload = try JWS.decodePayload(jws)
        guard case .string(let transactionJWS)? = payload.value(at: "data.signedTransactionInfo") else {
            Issue.record("signedTransactionInfo is not a JWS string"); return
        }
        #expect(try JWS.decodePayload(transactionJWS) == encoded.decodedPayload.value(at: "data.signedTransactionInfo"))
    }
}
