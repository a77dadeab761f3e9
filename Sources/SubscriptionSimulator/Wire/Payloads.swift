/// Apple's decoded payloads, built from the store's records. Field names, JSON types and units are Apple's
/// (reference §2.3–§2.7; library models `JWSTransactionDecodedPayload`, `JWSRenewalInfoDecodedPayload`, `Data`,
/// `ResponseBodyV2DecodedPayload`). Dates are integer milliseconds; ids are strings; enum codes are integers;
/// optional fields are omitted, never `null`.
public enum Payloads {
    /// `JWSTransactionDecodedPayload`.
    public static func transaction(_ t: TransactionRecord, app: AppConfiguration, signedDate: Instant) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("transactionId", t.transactionId)
        o.set("originalTransactionId", t.originalTransactionId)
        o.set("webOrderLineItemId", t.webOrderLineItemId)
        o.set("bundleId", app.bundleId)
        o.set("productId", t.productId)
        o.set("subscriptionGroupIdentifier", t.subscriptionGroupIdentifier)
        o.set("purchaseDate", t.purchaseDate)
        o.set("originalPurchaseDate", t.originalPurchaseDate)
        o.set("expiresDate", t.expiresDate)
        o.set("quantity", Int64(1))
        o.set("type", WireValues.productType(t.productType))
        o.set("inAppOwnershipType", WireValues.ownership(t.ownership))
        o.set("appAccountToken", t.appAccountToken)
        o.set("signedDate", signedDate)
        if let revocation = t.revocation {
            o.set("revocationDate", revocation.date)
            o.set("revocationReason", Int64(revocation.reason))
            o.set("revocationType", WireValues.revocationType(revocation.kind))
            o.set("revocationPercentage", revocation.percentage.map(Int64.init))
        }
        o.set("isUpgraded", t.isUpgraded ? true : nil)
        if let offer = t.offer {
            o.set("offerType", WireValues.offerType(offer.type))
            o.set("offerIdentifier", offer.identifier)
            o.set("offerDiscountType", WireValues.offerDiscountType(offer.mode))
            o.set("offerPeriod", WireValues.offerPeriod(offer))
        }
        o.set("environment", app.environment.rawValue)
        o.set("storefront", t.storefront.countryCode)
        o.set("storefrontId", t.storefront.id)
        o.set("transactionReason", WireValues.transactionReason(t.reason))
        o.set("price", t.price.milliunits)
        o.set("currency", t.currency)
        o.set("appTransactionId", t.appTransactionId.isEmpty ? nil : t.appTransactionId)
        return o.value
    }

    /// `JWSRenewalInfoDecodedPayload`.
    public static func renewalInfo(_ r: RenewalSnapshot, app: AppConfiguration, signedDate: Instant) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("originalTransactionId", r.originalTransactionId)
        o.set("productId", r.productId)
        o.set("autoRenewProductId", r.autoRenewProductId)
        o.set("autoRenewStatus", WireValues.autoRenewStatus(r.autoRenewOn))
        o.set("expirationIntent", r.expirationIntent.map(WireValues.expirationIntent))
        o.set("isInBillingRetryPeriod", r.isInBillingRetryPeriod)
        o.set("gracePeriodExpiresDate", r.gracePeriodExpiresDate)
        if let offer = r.upcomingOffer {
            o.set("offerType", WireValues.offerType(offer.type))
            o.set("offerIdentifier", offer.identifier)
            o.set("offerDiscountType", WireValues.offerDiscountType(offer.mode))
            o.set("offerPeriod", WireValues.offerPeriod(offer))
        }
        o.set("priceIncreaseStatus", r.priceIncreaseStatus.map(WireValues.priceIncreaseStatus))
        if let price = r.renewalPrice {
            o.set("renewalPrice", price.milliunits)
            o.set("currency", r.currency)
        }
        o.set("renewalDate", r.renewalDate)
        o.set("recentSubscriptionStartDate", r.recentSubscriptionStartDate)
        if !r.eligibleWinBackOfferIds.isEmpty {
            o.set("eligibleWinBackOfferIds", JSONValue.array(r.eligibleWinBackOfferIds.map(JSONValue.string)))
        }
        o.set("signedDate", signedDate)
        o.set("environment", app.environment.rawValue)
        o.set("appAccountToken", r.appAccountToken)
        o.set("appTransactionId", r.appTransactionId.isEmpty ? nil : r.appTransactionId)
        return o.value
    }
}

extension Payloads {
    /// The `summary` object of `RENEWAL_EXTENSION` / `SUMMARY` (reference §2.4; library model `Summary`):
    /// `requestIdentifier`, `environment`, `appAppleId`, `bundleId`, `productId`, `storefrontCountryCodes`,
    /// `failedCount`, `succeededCount`. `appAppleId` follows `data`'s rule, absent in `Sandbox` [assumed: Apple
    /// documents the sandbox omission for `data` only]; `storefrontCountryCodes` lists the storefronts the request
    /// was limited to, empty when it covered all [assumed: Apple's example lists the codes the request gave].
    public static func summary(_ s: RenewalExtensionSummary, app: AppConfiguration) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("requestIdentifier", s.requestIdentifier)
        o.set("environment", app.environment.rawValue)
        o.set("appAppleId", NotificationEncoder.dataAppAppleId(app))
        o.set("bundleId", app.bundleId)
        o.set("productId", s.productId)
        o.set("storefrontCountryCodes", JSONValue.array(s.storefrontCountryCodes.map(JSONValue.string)))
        o.set("failedCount", s.failedCount)
        o.set("succeededCount", s.succeededCount)
        return o.value
    }
}

/// One notification in its three forms: the App Store's POST body, and the decoded payload for people and checks.
public struct EncodedNotification: Sendable {
    public var notification: SentNotification
    /// `responseBodyV2DecodedPayload` with the nested JWS strings.
    public var payload: JSONValue
    /// The same payload with `signedTransactionInfo` and `signedRenewalInfo` replaced by their decoded objects.
    public var decodedPayload: JSONValue
    /// The HTTP body the App Store POSTs: `{"signedPayload":"<JWS>"}`, canonical JSON.
    public var postBody: String
}

/// Encodes notifications for one app and signs them with any ``PayloadSigner``. Deterministic: the same
/// notification gives the same bytes.
public struct NotificationEncoder: Sendable {
    public var app: AppConfiguration
    public var signer: any PayloadSigner

    /// `signer` defaults to the environment's (``SimulatedEnvironment/defaultSigner``): ES256 with the default
    /// chain for `Sandbox` and `Production`, the placeholder for `LocalTesting` and `Xcode`.
    public init(app: AppConfiguration, signer: (any PayloadSigner)? = nil) {
        self.app = app
        self.signer = signer ?? app.environment.defaultSigner
    }

    public func encode(_ n: SentNotification) -> EncodedNotification {
        let transaction = n.transaction.map { Payloads.transaction($0, app: app, signedDate: n.instant) }
        let renewal = n.renewal.map { Payloads.renewalInfo($0, app: app, signedDate: n.instant) }
        let signedTransaction = transaction.map { JWS.compact(payload: $0, signer: signer) }
        let signedRenewal = renewal.map { JWS.compact(payload: $0, signer: signer) }
        func payload(_ transactionValue: JSONValue?, _ renewalValue: JSONValue?) -> JSONValue {
            var o = JSONObjectBuilder()
            o.set("notificationType", n.type.rawValue)
            o.set("subtype", n.subtype?.rawValue)
            o.set("notificationUUID", n.notificationUUID)
            if let summary = n.summary {
                o.set("summary", Payloads.summary(summary, app: app))
            } else {
                var data = JSONObjectBuilder()
                data.set("appAppleId", Self.dataAppAppleId(app))
                data.set("bundleId", app.bundleId)
                // A TEST notification's data holds only the app's id, bundle id and environment (reference §6.3).
                data.set("bundleVersion", n.isAboutTheApp ? nil : app.bundleVersion)
                data.set("environment", app.environment.rawValue)
                data.set("signedTransactionInfo", transactionValue)
                data.set("signedRenewalInfo", renewalValue)
                data.set("status", n.status.map { Int64($0.statusCode) })
                data.set("consumptionRequestReason", n.consumptionRequestReason?.rawValue)
                o.set("data", data.value)
            }
            o.set("version", WireValues.notificationVersion)
            o.set("signedDate", n.instant)
            return o.value
        }
        let signedPayload = payload(signedTransaction.map(JSONValue.string), signedRenewal.map(JSONValue.string))
        let decoded = payload(transaction, renewal)
        let body = CanonicalJSON.string(
            .object(["signedPayload": .string(JWS.compact(payload: signedPayload, signer: signer))]))
        return EncodedNotification(notification: n, payload: signedPayload, decodedPayload: decoded, postBody: body)
    }

    /// `data.appAppleId`: the configured id, except in `Sandbox`, where Apple omits it (reference §1.2, S-DATA:
    /// "absent in the sandbox environment").
    public static func dataAppAppleId(_ app: AppConfiguration) -> Int64? {
        app.environment == .sandbox ? nil : app.appAppleId
    }

    /// The decoded payload of a notification (nested JWS decoded), for expectations and the `decoded` format.
    public static func decodedView(of n: SentNotification, app: AppConfiguration) -> JSONValue {
        NotificationEncoder(app: app, signer: UnsignedTestSigner()).encode(n).decodedPayload
    }
}

/// Paths into a decoded notification as scenario files write them: `data.X`, `transaction.X` (the decoded
/// `signedTransactionInfo`), `renewal.X` (the decoded `signedRenewalInfo`), or a top-level field.
public enum FieldPath {
    public static func lookup(_ path: String, in decoded: JSONValue) -> JSONValue? {
        if path.hasPrefix("transaction.") {
            return decoded.value(at: "data.signedTransactionInfo." + path.dropFirst("transaction.".count))
        }
        if path.hasPrefix("renewal.") {
            return decoded.value(at: "data.signedRenewalInfo." + path.dropFirst("renewal.".count))
        }
        return decoded.value(at: path)
    }

    /// Whether `value` equals the expected text. Date fields (names ending in `Date`) are compared as times: the
    /// expected text is an offset from the scenario's start or an ISO instant. A list of strings is its items joined
    /// by commas (`a,b`).
    public static func matches(_ value: JSONValue, expected: String, path: String, start: Instant) -> Bool {
        switch value {
        case .integer(let number):
            if path.hasSuffix("Date") {
                let instant =
                    CalendarDurationSyntax.parse(expected).map { start.adding($0) }
                    ?? CalendarDurationSyntax.parseInstant(expected)
                return instant?.millisecondsSince1970 == number
            }
            return Int64(expected) == number
        case .string(let text): return text == expected
        case .bool(let flag): return (flag ? "true" : "false") == expected
        case .decimal(let text): return text == expected
        case .array(let items):
            // A list of strings (`eligibleWinBackOfferIds`) is written as its items separated by commas.
            let texts = items.compactMap(\.stringValue)
            return texts.count == items.count && texts.joined(separator: ",") == expected
        case .null, .object: return false
        }
    }

    /// How a found value is shown in a failure message (dates also as ISO instants).
    public static func render(_ value: JSONValue, path: String) -> String {
        if path.hasSuffix("Date"), let ms = value.integerValue {
            return "\(ms) (\(Instant(millisecondsSince1970: ms)))"
        }
        return CanonicalJSON.string(value)
    }
}
