import SubscriptionSimulator

/// One notification as your server receives it: the POST body, the signed strings inside it, and their decoded
/// fields, typed. The typed values are decoded from the signed strings (not taken from the simulator's records), so
/// they show exactly what is on the wire.
public struct ReceivedNotification: Hashable, Sendable, CustomStringConvertible {
    /// The simulator's record of it (recipient, instant, type, subtype, status).
    public let notification: SentNotification
    /// The HTTP body the App Store POSTs: `{"signedPayload":"<JWS>"}`.
    public let postBody: String
    /// The JWS in the body (`signedPayload`).
    public let signedPayload: String
    /// `data.signedTransactionInfo`: a JWS.
    public let signedTransactionInfo: String
    /// `data.signedRenewalInfo`: a JWS; nil for products that do not renew.
    public let signedRenewalInfo: String?
    /// `signedPayload` decoded.
    public let payload: ResponseBodyV2DecodedPayload
    /// `signedTransactionInfo` decoded.
    public let transaction: JWSTransactionDecodedPayload
    /// `signedRenewalInfo` decoded.
    public let renewalInfo: JWSRenewalInfoDecodedPayload?

    public init(_ notification: SentNotification, app: AppConfiguration) {
        let encoded = NotificationEncoder(app: app).encode(notification)
        self.notification = notification
        postBody = encoded.postBody
        signedPayload = encoded.signedPayload
        // The simulator's own output always decodes; an empty object would make every typed field nil.
        let payloadJSON = (try? JWS.decodePayload(signedPayload)) ?? .object([:])
        signedTransactionInfo = payloadJSON.value(at: "data.signedTransactionInfo")?.stringValue ?? ""
        signedRenewalInfo = payloadJSON.value(at: "data.signedRenewalInfo")?.stringValue
        payload = ResponseBodyV2DecodedPayload(payloadJSON)
        transaction = JWSTransactionDecodedPayload((try? JWS.decodePayload(signedTransactionInfo)) ?? .object([:]))
        renewalInfo = signedRenewalInfo.map {
            JWSRenewalInfoDecodedPayload((try? JWS.decodePayload($0)) ?? .object([:]))
        }
    }

    /// `DID_FAIL_TO_RENEW / GRACE_PERIOD to bob for com.example.monthly at 2026-04-01T09:00:00Z (status 4)`.
    public var description: String { Self.describe(notification) }

    static func describe(_ n: SentNotification) -> String {
        let subtype = n.subtype.map { " / \($0.rawValue)" } ?? ""
        let product = n.transaction.map { " for \($0.productId)" } ?? ""
        let status = n.status.map { " (status \($0.statusCode))" } ?? ""
        return "\(n.type.rawValue)\(subtype) to \(n.recipient ?? "the app")\(product) at \(n.instant)\(status)"
    }

    // MARK: - In Apple's words, typed and not optional where Apple always sends the field

    /// `notificationType`, typed (prints Apple's string, `DID_RENEW`).
    public var type: NotificationType { notification.type }
    /// `subtype`, typed; nil exactly when Apple sends none (`DID_RENEW` after a successful charge, `REFUND`, ...).
    public var subtype: NotificationSubtype? { notification.subtype }
    /// The customer the notification is about (the `customer` of a scenario's actions); empty for the two
    /// notifications about the app, which name no customer (`TEST`, `RENEWAL_EXTENSION` / `SUMMARY`:
    /// ``isAboutTheApp``).
    public var recipient: String { notification.recipient ?? "" }
    /// The transaction's `productId`; empty for the notifications about the app.
    public var productId: String { notification.transaction?.productId ?? "" }
    /// `data.status` as Apple's status enum (``SubscriptionPhase``: `.active` is 1, `.gracePeriod` 4, ...): present
    /// for every notification about an auto-renewable subscription; nil for one-time products and the notifications
    /// about the app, for which Apple sends no status (`statusCode` gives the wire code).
    public var status: SubscriptionPhase? { notification.status }
    /// `TEST` and `RENEWAL_EXTENSION` / `SUMMARY`: no customer, transaction or status.
    public var isAboutTheApp: Bool { notification.isAboutTheApp }
    /// The virtual instant it was sent (the payload's `signedDate`).
    public var instant: Instant { notification.instant }
}

/// A scenario run's notifications, decoded and typed (``ReceivedNotification``).
extension ScenarioRun {
    /// Every notification the run sent, in order, with its POST body and decoded fields.
    public var received: [ReceivedNotification] {
        store.notifications.map { ReceivedNotification($0, app: store.app) }
    }

    /// The notifications sent to one customer, in order, with their POST bodies and decoded fields.
    public func received(for customer: String) -> [ReceivedNotification] {
        store.notifications(for: customer).map { ReceivedNotification($0, app: store.app) }
    }
}

/// Apple's `responseBodyV2DecodedPayload` with its `data` (names and JSON types as in Apple's App Store Server
/// Library; dates are milliseconds since 1970).
public struct ResponseBodyV2DecodedPayload: Hashable, Sendable {
    public var notificationType: String?
    public var subtype: String?
    public var notificationUUID: String?
    public var version: String?
    public var signedDate: Int64?
    public var data: NotificationData

    public struct NotificationData: Hashable, Sendable {
        public var appAppleId: Int64?
        public var bundleId: String?
        public var bundleVersion: String?
        public var environment: String?
        /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked: ``SubscriptionPhase/statusCode``.
        public var status: Int32?
    }

    init(_ json: JSONValue) {
        let fields = DecodedFields(json)
        notificationType = fields.string("notificationType")
        subtype = fields.string("subtype")
        notificationUUID = fields.string("notificationUUID")
        version = fields.string("version")
        signedDate = fields.integer("signedDate")
        let data = DecodedFields(json.value(at: "data") ?? .object([:]))
        self.data = NotificationData(
            appAppleId: data.integer("appAppleId"), bundleId: data.string("bundleId"),
            bundleVersion: data.string("bundleVersion"), environment: data.string("environment"),
            status: data.integer("status").flatMap { Int32(exactly: $0) })
    }
}

/// Apple's `JWSTransactionDecodedPayload`: the decoded `signedTransactionInfo` (reference §2.5).
public struct JWSTransactionDecodedPayload: Hashable, Sendable {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Int64?
    public var originalPurchaseDate: Int64?
    public var expiresDate: Int64?
    public var quantity: Int32?
    /// `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable` or `Non-Renewing Subscription`.
    public var type: String?
    public var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    public var signedDate: Int64?
    public var revocationDate: Int64?
    public var revocationReason: Int32?
    public var revocationType: String?
    public var revocationPercentage: Int32?
    public var isUpgraded: Bool?
    public var offerType: Int32?
    public var offerIdentifier: String?
    public var offerDiscountType: String?
    public var offerPeriod: String?
    public var environment: String?
    public var storefront: String?
    public var storefrontId: String?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    /// Milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    public var appTransactionId: String?

    init(_ json: JSONValue) {
        let f = DecodedFields(json)
        transactionId = f.string("transactionId")
        originalTransactionId = f.string("originalTransactionId")
        webOrderLineItemId = f.string("webOrderLineItemId")
        bundleId = f.string("bundleId")
        productId = f.string("productId")
        subscriptionGroupIdentifier = f.string("subscriptionGroupIdentifier")
        purchaseDate = f.integer("purchaseDate")
        originalPurchaseDate = f.integer("originalPurchaseDate")
        expiresDate = f.integer("expiresDate")
        quantity = f.int32("quantity")
        type = f.string("type")
        appAccountToken = f.string("appAccountToken")
        inAppOwnershipType = f.string("inAppOwnershipType")
        signedDate = f.integer("signedDate")
        revocationDate = f.integer("revocationDate")
        revocationReason = f.int32("revocationReason")
        revocationType = f.string("revocationType")
        revocationPercentage = f.int32("revocationPercentage")
        isUpgraded = f.bool("isUpgraded")
        offerType = f.int32("offerType")
        offerIdentifier = f.string("offerIdentifier")
        offerDiscountType = f.string("offerDiscountType")
        offerPeriod = f.string("offerPeriod")
        environment = f.string("environment")
        storefront = f.string("storefront")
        storefrontId = f.string("storefrontId")
        transactionReason = f.string("transactionReason")
        price = f.integer("price")
        currency = f.string("currency")
        appTransactionId = f.string("appTransactionId")
    }
}

/// Apple's `JWSRenewalInfoDecodedPayload`: the decoded `signedRenewalInfo` (reference §2.6).
public struct JWSRenewalInfoDecodedPayload: Hashable, Sendable {
    public var originalTransactionId: String?
    public var productId: String?
    public var autoRenewProductId: String?
    /// 0 off, 1 on.
    public var autoRenewStatus: Int32?
    /// 1 customer cancelled, 2 billing error, 3 no price-increase consent, 4 product unavailable, 5 other.
    public var expirationIntent: Int32?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Int64?
    public var priceIncreaseStatus: Int32?
    public var offerType: Int32?
    public var offerIdentifier: String?
    public var offerDiscountType: String?
    public var offerPeriod: String?
    public var renewalPrice: Int64?
    public var currency: String?
    public var renewalDate: Int64?
    public var recentSubscriptionStartDate: Int64?
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var signedDate: Int64?
    public var environment: String?

    init(_ json: JSONValue) {
        let f = DecodedFields(json)
        originalTransactionId = f.string("originalTransactionId")
        productId = f.string("productId")
        autoRenewProductId = f.string("autoRenewProductId")
        autoRenewStatus = f.int32("autoRenewStatus")
        expirationIntent = f.int32("expirationIntent")
        isInBillingRetryPeriod = f.bool("isInBillingRetryPeriod")
        gracePeriodExpiresDate = f.integer("gracePeriodExpiresDate")
        priceIncreaseStatus = f.int32("priceIncreaseStatus")
        offerType = f.int32("offerType")
        offerIdentifier = f.string("offerIdentifier")
        offerDiscountType = f.string("offerDiscountType")
        offerPeriod = f.string("offerPeriod")
        renewalPrice = f.integer("renewalPrice")
        currency = f.string("currency")
        renewalDate = f.integer("renewalDate")
        recentSubscriptionStartDate = f.integer("recentSubscriptionStartDate")
        if case .array(let items) = json.value(at: "eligibleWinBackOfferIds") {
            eligibleWinBackOfferIds = items.compactMap(\.stringValue)
        }
        appAccountToken = f.string("appAccountToken")
        appTransactionId = f.string("appTransactionId")
        signedDate = f.integer("signedDate")
        environment = f.string("environment")
    }
}

/// Typed reads of one decoded JSON object's members.
struct DecodedFields {
    let json: JSONValue
    init(_ json: JSONValue) { self.json = json }
    func member(_ key: String) -> JSONValue? {
        if case .object(let members) = json { return members[key] }
        return nil
    }
    func string(_ key: String) -> String? { member(key)?.stringValue }
    func integer(_ key: String) -> Int64? { member(key)?.integerValue }
    func int32(_ key: String) -> Int32? { integer(key).flatMap { Int32(exactly: $0) } }
    func bool(_ key: String) -> Bool? {
        if case .bool(let flag) = member(key) { return flag }
        return nil
    }
}
