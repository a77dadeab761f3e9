/// Apple's decoded payloads, built from the store's records. Field names, JSON types and units are Apple's
/// (reference §2.3–§2.7; library models `JWSTransactionDecodedPayload`, `JWSRenewalInfoDecodedPayload`, `Data`,
/// `ResponseBodyV2DecodedPayload`). Dates are integer milliseconds; ids are strings; enum codes are integers;
/// optional fields are omitted, never `null`.
public enum Payloads {
    /// `JWSTransactionDecodedPayload`.
    public static func transaction(_ t: TransactionRecord, app: AppConfiguration, signedDate: Instant) -> JSONValue {
        var o = JSONObjectBuilder()
        transaction(t, app: app, signedDate: signedDate, into: &o)
        return o.value
    }

    /// `JWSRenewalInfoDecodedPayload`.
    public static func renewalInfo(_ r: RenewalSnapshot, app: AppConfiguration, signedDate: Instant) -> JSONValue {
        var o = JSONObjectBuilder()
        renewalInfo(r, app: app, signedDate: signedDate, into: &o)
        return o.value
    }

    /// `JWSTransactionDecodedPayload`'s members, in canonical (sorted) order.
    static func transaction<S: JSONMemberSink>(
        _ t: TransactionRecord, app: AppConfiguration, signedDate: Instant, into o: inout S
    ) {
        o.member("appAccountToken", t.appAccountToken)
        o.member("appTransactionId", t.appTransactionId.isEmpty ? nil : t.appTransactionId)
        o.member("billingPlanType", WireValues.billingPlanType(of: t))
        o.member("bundleId", app.bundleId)
        if let commitment = t.commitment {
            // TransactionCommitmentInfo (reference Appendix E.2; library model TransactionCommitmentInfo).
            o.member("commitmentInfo") { c in
                c.member("billingPeriodNumber", Int64(commitment.billingPeriodNumber))
                c.member("commitmentExpiresDate", commitment.expiresDate)
                c.member("commitmentPrice", commitment.price.milliunits)
                c.member("totalBillingPeriods", Int64(commitment.totalBillingPeriods))
            }
        }
        o.member("currency", t.currency)
        o.member("environment", app.environment.rawValue)
        o.member("expiresDate", t.expiresDate)
        o.member("inAppOwnershipType", WireValues.ownership(t.ownership))
        o.member("isUpgraded", t.isUpgraded ? true : nil)
        if let offer = t.offer { offerMembers(offer, into: &o) }
        o.member("originalPurchaseDate", t.originalPurchaseDate)
        o.member("originalTransactionId", t.originalTransactionId)
        o.member("price", t.price.milliunits)
        o.member("productId", t.productId)
        o.member("purchaseDate", t.purchaseDate)
        o.member("quantity", Int64(1))
        if let revocation = t.revocation {
            o.member("revocationDate", revocation.date)
            o.member("revocationPercentage", revocation.percentage.map(Int64.init))
            o.member("revocationReason", Int64(revocation.reason))
            o.member("revocationType", WireValues.revocationType(revocation.kind))
        }
        o.member("signedDate", signedDate)
        o.member("storefront", t.storefront.countryCode)
        o.member("storefrontId", t.storefront.id)
        o.member("subscriptionGroupIdentifier", t.subscriptionGroupIdentifier)
        o.member("transactionId", t.transactionId)
        o.member("transactionReason", WireValues.transactionReason(t.reason))
        o.member("type", WireValues.productType(t.productType))
        o.member("webOrderLineItemId", t.webOrderLineItemId)
    }

    /// `offerDiscountType`, `offerIdentifier`, `offerPeriod`, `offerType` (a transaction's offer, or renewal info's
    /// upcoming one).
    static func offerMembers<S: JSONMemberSink>(_ offer: IntroductoryOffer, into o: inout S) {
        o.member("offerDiscountType", WireValues.offerDiscountType(offer.mode))
        o.member("offerIdentifier", offer.identifier)
        o.member("offerPeriod", WireValues.offerPeriod(offer))
        o.member("offerType", WireValues.offerType(offer.type))
    }

    /// `JWSRenewalInfoDecodedPayload`'s members, in canonical (sorted) order.
    static func renewalInfo<S: JSONMemberSink>(
        _ r: RenewalSnapshot, app: AppConfiguration, signedDate: Instant, into o: inout S
    ) {
        o.member("appAccountToken", r.appAccountToken)
        o.member("appTransactionId", r.appTransactionId.isEmpty ? nil : r.appTransactionId)
        o.member("autoRenewProductId", r.autoRenewProductId)
        o.member("autoRenewStatus", WireValues.autoRenewStatus(r.autoRenewOn))
        if let commitment = r.commitment {
            // RenewalCommitmentInfo (reference Appendix E.2; library model RenewalCommitmentInfo).
            o.member("commitmentInfo") { c in
                c.member("commitmentAutoRenewProductId", commitment.autoRenewProductId)
                c.member("commitmentAutoRenewStatus", WireValues.autoRenewStatus(commitment.autoRenewOn))
                c.member("commitmentRenewalBillingPlanType", WireValues.billingPlanType(commitment.renewalPlan))
                c.member("commitmentRenewalDate", commitment.renewalDate)
                c.member("commitmentRenewalPrice", commitment.renewalPrice.milliunits)
            }
        }
        // `currency` goes with `renewalPrice`: both or neither.
        o.member("currency", r.renewalPrice == nil ? nil : r.currency)
        if !r.eligibleWinBackOfferIds.isEmpty {
            o.member("eligibleWinBackOfferIds", strings: r.eligibleWinBackOfferIds)
        } else {
            o.member("eligibleWinBackOfferIds", nil as String?)
        }
        o.member("environment", app.environment.rawValue)
        o.member("expirationIntent", r.expirationIntent.map(WireValues.expirationIntent))
        o.member("gracePeriodExpiresDate", r.gracePeriodExpiresDate)
        o.member("isInBillingRetryPeriod", r.isInBillingRetryPeriod)
        if let offer = r.upcomingOffer { offerMembers(offer, into: &o) }
        o.member("originalTransactionId", r.originalTransactionId)
        o.member("priceIncreaseStatus", r.priceIncreaseStatus.map(WireValues.priceIncreaseStatus))
        o.member("productId", r.productId)
        o.member("recentSubscriptionStartDate", r.recentSubscriptionStartDate)
        o.member(
            "renewalBillingPlanType",
            r.renewalBillingPlan.map { WireValues.billingPlanType($0) })
        o.member("renewalDate", r.renewalDate)
        o.member("renewalPrice", r.renewalPrice?.milliunits)
        o.member("signedDate", signedDate)
    }
}

extension Payloads {
    /// The `summary` object of `RENEWAL_EXTENSION` / `SUMMARY` (reference §2.4; library model `Summary`):
    /// `requestIdentifier`, `environment`, `appAppleId`, `bundleId`, `productId`, `storefrontCountryCodes`,
    /// `failedCount`, `succeededCount`. `appAppleId` follows `data`'s rule, absent in `Sandbox` [assumed: Apple
    /// documents the sandbox omission for `data` only]; `storefrontCountryCodes` lists the storefronts the request
    /// was limited to and is absent when the request named none (rule summary-omits-unrequested-storefronts: Apple's
    /// `summary` page, appstoreservernotifications/summary, describes it as the codes "you provide to limit the
    /// storefronts", and a request may not name an empty list, `InvalidEmptyStorefrontCountryCodeListError` 4000027).
    public static func summary(_ s: RenewalExtensionSummary, app: AppConfiguration) -> JSONValue {
        var o = JSONObjectBuilder()
        summary(s, app: app, into: &o)
        return o.value
    }

    /// The `summary` object's members, in canonical (sorted) order.
    static func summary<S: JSONMemberSink>(_ s: RenewalExtensionSummary, app: AppConfiguration, into o: inout S) {
        o.member("appAppleId", NotificationEncoder.dataAppAppleId(app))
        o.member("bundleId", app.bundleId)
        o.member("environment", app.environment.rawValue)
        o.member("failedCount", s.failedCount)
        o.member("productId", s.productId)
        o.member("requestIdentifier", s.requestIdentifier)
        if !s.storefrontCountryCodes.isEmpty { o.member("storefrontCountryCodes", strings: s.storefrontCountryCodes) }
        o.member("succeededCount", s.succeededCount)
    }

    /// What a notification's `data` carries signed: the transaction (`signedTransactionInfo`) or the renewal info
    /// (`signedRenewalInfo`).
    enum Nested {
        case transaction(TransactionRecord)
        case renewal(RenewalSnapshot)
        /// `appData.signedAppTransactionInfo` of `RESCIND_CONSENT`.
        case appTransaction(AppTransactionRecord)

        /// The decoded payload's members.
        func describe<S: JSONMemberSink>(app: AppConfiguration, signedDate: Instant, into o: inout S) {
            switch self {
            case .transaction(let t): Payloads.transaction(t, app: app, signedDate: signedDate, into: &o)
            case .renewal(let r): Payloads.renewalInfo(r, app: app, signedDate: signedDate, into: &o)
            case .appTransaction(let a): Payloads.appTransaction(a, app: app, into: &o)
            }
        }
    }

    /// The `AppTransaction` payload (JWSAppTransactionDecodedPayload; Apple's library model `AppTransaction`), one
    /// writer for Get App Transaction Info and `RESCIND_CONSENT`: `receiptType` (the environment), `appAppleId`
    /// (Production only: StoreKit's `appID` "is nil" in the sandbox; the notification's `appData.appAppleId` follows
    /// its own rule), `bundleId`, `applicationVersion` and `originalApplicationVersion` (the app's `bundleVersion`),
    /// `versionExternalIdentifier` (when configured), `receiptCreationDate`, `originalPurchaseDate`,
    /// `appTransactionId`, `originalPlatform`.
    public static func appTransaction(_ a: AppTransactionRecord, app: AppConfiguration) -> JSONValue {
        var o = JSONObjectBuilder()
        appTransaction(a, app: app, into: &o)
        return o.value
    }

    /// The `AppTransaction` members, in canonical (sorted) order.
    static func appTransaction<S: JSONMemberSink>(_ a: AppTransactionRecord, app: AppConfiguration, into o: inout S) {
        o.member("appAppleId", app.environment == .production ? app.appAppleId : nil)
        o.member("appTransactionId", a.appTransactionId)
        o.member("applicationVersion", app.bundleVersion)
        o.member("bundleId", app.bundleId)
        o.member("originalApplicationVersion", app.bundleVersion)
        o.member("originalPlatform", a.originalPlatform.rawValue)
        o.member("originalPurchaseDate", a.originalPurchaseDate)
        o.member("receiptCreationDate", a.receiptCreationDate)
        o.member("receiptType", app.environment.rawValue)
        o.member("versionExternalIdentifier", app.versionExternalIdentifier)
    }

    /// `responseBodyV2DecodedPayload`'s members, in canonical (sorted) order (reference §2.3, §2.4). `nested`
    /// writes `signedRenewalInfo` and `signedTransactionInfo`: as compact JWS for the payload Apple signs, as
    /// objects for the decoded view.
    static func notification<S: JSONMemberSink>(
        _ n: SentNotification, app: AppConfiguration, into o: inout S,
        nested: (inout S, StaticString, Nested) -> Void
    ) {
        if let appTransaction = n.appTransaction {
            // RESCIND_CONSENT: `appData` instead of `data` (rule rescind-consent; Apple's `appData` object).
            o.member("appData") { appData in
                appData.member("appAppleId", NotificationEncoder.dataAppAppleId(app))
                appData.member("bundleId", app.bundleId)
                appData.member("environment", app.environment.rawValue)
                nested(&appData, "signedAppTransactionInfo", .appTransaction(appTransaction))
            }
        } else if n.summary == nil {
            o.member("data") { data in
                data.member("appAppleId", NotificationEncoder.dataAppAppleId(app))
                data.member("bundleId", app.bundleId)
                // A TEST notification's data holds only the app's id, bundle id and environment (reference §6.3).
                data.member("bundleVersion", n.isAboutTheApp ? nil : app.bundleVersion)
                data.member("consumptionRequestReason", n.consumptionRequestReason?.rawValue)
                data.member("environment", app.environment.rawValue)
                if let r = n.renewal { nested(&data, "signedRenewalInfo", .renewal(r)) }
                if let t = n.transaction { nested(&data, "signedTransactionInfo", .transaction(t)) }
                data.member("status", n.status.map { Int64($0.statusCode) })
            }
        }
        o.member("notificationType", n.type.rawValue)
        o.member("notificationUUID", n.notificationUUID)
        o.member("signedDate", n.instant)
        o.member("subtype", n.subtype?.rawValue)
        if let counts = n.summary { o.member("summary") { Payloads.summary(counts, app: app, into: &$0) } }
        o.member("version", WireValues.notificationVersion)
    }
}

/// One notification in its three forms: the App Store's POST body, and the decoded payload for people and checks.
public struct EncodedNotification: Sendable {
    public var notification: SentNotification
    /// `responseBodyV2DecodedPayload` with the nested JWS strings.
    public var payload: JSONValue
    /// The same payload with `signedTransactionInfo` and `signedRenewalInfo` replaced by their decoded objects.
    public var decodedPayload: JSONValue
    /// The compact JWS of ``payload``: what the POST body carries as `signedPayload`.
    public var signedPayload: String

    /// The HTTP body the App Store POSTs: `{"signedPayload":"<JWS>"}`, canonical JSON (a JWS needs no escaping).
    public var postBody: String { #"{"signedPayload":""# + signedPayload + #""}"# }
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

    /// The notification in its three forms, each object built once: the nested payloads and the notification's payload
    /// as ``JSONValue``s, each signed from its canonical bytes (the same bytes the sinks write directly,
    /// ``appendPostBody(of:signing:to:buffers:)``); the decoded view is the payload with the nested objects in place
    /// of their JWS.
    public func encode(_ n: SentNotification) -> EncodedNotification {
        let signing = JWSSigning(signer)
        func signed(_ object: JSONValue) -> String {
            var jws: [UInt8] = []
            var json: [UInt8] = []
            CanonicalJSON.write(object, into: &json, indent: nil, depth: 0)
            JWS.append(payloadJSON: json, signing: signing, to: &jws)
            return String(decoding: jws, as: UTF8.self)
        }
        var nestedObjects: [(key: String, object: JSONValue)] = []
        var builder = JSONObjectBuilder()
        Payloads.notification(n, app: app, into: &builder) { o, key, nested in
            var object = JSONObjectBuilder()
            nested.describe(app: app, signedDate: n.instant, into: &object)
            nestedObjects.append((key.description, object.value))
            o.member(key, signed(object.value))
        }
        var decoded = builder.members
        let container = n.appTransaction == nil ? "data" : "appData"
        if case .object(var data) = decoded[container], !nestedObjects.isEmpty {
            for nested in nestedObjects { data[nested.key] = nested.object }
            decoded[container] = .object(data)
        }
        return EncodedNotification(
            notification: n, payload: builder.value, decodedPayload: .object(decoded),
            signedPayload: signed(builder.value))
    }

    /// Buffers reused from one notification to the next by ``appendPostBody(of:signing:to:buffers:)``.
    struct Buffers {
        var payload: [UInt8] = []
        var nested: [UInt8] = []
    }

    /// Appends the notification's POST body (``EncodedNotification/postBody``, the same bytes) to `out`, writing
    /// every JSON object straight to bytes and every JWS in place: no ``JSONValue``, no intermediate strings.
    func appendPostBody(of n: SentNotification, signing: JWSSigning, to out: inout [UInt8], buffers: inout Buffers) {
        var json = CanonicalJSONBytes()
        swap(&json.bytes, &buffers.payload)
        json.bytes.removeAll(keepingCapacity: true)
        json.object { o in
            Payloads.notification(n, app: app, into: &o) { o, key, nested in
                o.signedMember(key, signing: signing, scratch: &buffers.nested) {
                    nested.describe(app: app, signedDate: n.instant, into: &$0)
                }
            }
        }
        Self.appendPostBody(payloadJSON: json.bytes, signing: signing, to: &out)
        swap(&json.bytes, &buffers.payload)
    }

    /// The notification's POST body alone (``EncodedNotification/postBody``, the same bytes, written by the same
    /// writer as the `jsonl` format), without building the decoded views.
    public func postBody(of n: SentNotification) -> String {
        var buffers = Buffers()
        var body: [UInt8] = []
        appendPostBody(of: n, signing: JWSSigning(signer), to: &body, buffers: &buffers)
        return String(decoding: body, as: UTF8.self)
    }

    /// `{"signedPayload":"<JWS>"}`: a JWS needs no escaping, so this is the canonical JSON of that object.
    static func appendPostBody(payloadJSON: [UInt8], signing: JWSSigning, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"signedPayload":""#.utf8)
        JWS.append(payloadJSON: payloadJSON, signing: signing, to: &out)
        out.append(contentsOf: #""}"#.utf8)
    }

    /// The decoded view's members (nested JWS as objects) written to `o`.
    static func describeDecoded<S: JSONMemberSink>(of n: SentNotification, app: AppConfiguration, into o: inout S) {
        Payloads.notification(n, app: app, into: &o) { o, key, nested in
            o.member(key) { nested.describe(app: app, signedDate: n.instant, into: &$0) }
        }
    }

    /// `data.appAppleId`: the configured id, except in `Sandbox`, where Apple omits it (reference §1.2, S-DATA:
    /// "absent in the sandbox environment").
    public static func dataAppAppleId(_ app: AppConfiguration) -> Int64? {
        app.environment == .sandbox ? nil : app.appAppleId
    }

    /// The decoded payload of a notification (nested JWS decoded), for expectations and the `decoded` format.
    public static func decodedView(of n: SentNotification, app: AppConfiguration) -> JSONValue {
        var o = JSONObjectBuilder()
        describeDecoded(of: n, app: app, into: &o)
        return o.value
    }
}
