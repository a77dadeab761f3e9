/// Who owns a transaction: the purchaser, or a family member through Family Sharing (`inAppOwnershipType`).
public enum Ownership: Hashable, Sendable {
    case purchased
    case familyShared
}

/// Why a transaction was revoked (`revocationType`, reference §2.7, S-RT).
public enum RevocationKind: Hashable, Sendable {
    case refundFull
    case familyRevoke
    /// `REFUND_PRORATED`: part of the price refunded; `revocationPercentage` says how much (reference §5.14, S-RT).
    case refundProrated
}

/// A refund or a Family Sharing revocation applied to a transaction.
public struct Revocation: Hashable, Sendable {
    public var date: Instant
    /// `revocationReason`: 0 other, 1 an issue in the app (reference §2.7, S-RR).
    public var reason: Int32
    public var kind: RevocationKind
    /// For ``RevocationKind/refundProrated``: the refunded share in milliunits (1 to 99999).
    public var proratedPercentage: Int32? = nil
    /// `revocationPercentage` in milliunits: 100000 for a full refund, the refunded share for a prorated one; absent
    /// for family revocations (§5.14, S-RP).
    public var percentage: Int32? {
        switch kind {
        case .refundFull: return 100_000
        case .refundProrated: return proratedPercentage
        case .familyRevoke: return nil
        }
    }
    /// Whether the App Store refunded money (a refund, full or prorated), as opposed to a Family Sharing revocation.
    public var isRefund: Bool { kind != .familyRevoke }
}

/// `commitmentInfo` of a transaction of the monthly plan with a 12-month commitment (Apple's
/// TransactionCommitmentInfo; reference Appendix E.2, P5-P8).
public struct TransactionCommitment: Hashable, Sendable {
    /// `billingPeriodNumber`: 1 to 12.
    public var billingPeriodNumber: Int
    /// `totalBillingPeriods`: 12.
    public var totalBillingPeriods: Int
    /// `commitmentExpiresDate`.
    public var expiresDate: Instant
    /// `commitmentPrice`: the whole commitment, in milliunits of the transaction's `currency`.
    public var price: Price
}

/// The commitment fields of renewal info (Apple's RenewalCommitmentInfo, reference Appendix E.2, P10, P12), present
/// only while the subscription is in a commitment.
public struct RenewalCommitment: Hashable, Sendable {
    /// `renewalBillingPlanType`: the plan of the next billing period (`MONTHLY` inside the commitment).
    public var nextPeriodPlan: BillingPlan
    /// `commitmentAutoRenewProductId`: the product after the commitment.
    public var autoRenewProductId: String
    /// `commitmentAutoRenewStatus`: whether it renews at the commitment's end.
    public var autoRenewOn: Bool
    /// `commitmentRenewalBillingPlanType`: the plan after the commitment.
    public var renewalPlan: BillingPlan
    /// `commitmentRenewalDate`: the commitment's end.
    public var renewalDate: Instant
    /// `commitmentRenewalPrice`: the monthly price of the next commitment, or the up-front price of the product
    /// chosen for after it (which of the two Apple means is not documented, E.3 [assumed]).
    public var renewalPrice: Price
}

/// One transaction, as the App Store records it. Turned into `signedTransactionInfo` by `Wire/`.
///
/// The fields every transaction of one subscription shares (the customer's, the chain's and the product's:
/// ``originalTransactionId``, ``customer``, ``productId``, ``storefront``, ...) are held out of line in one immutable
/// box (``Shared``) that a subscription's renewals reuse: a record is copied into every notification that carries
/// it, and inline those eleven fields (nine strings) would make each copy retain every string and move about 300 bytes.
/// Reading and setting them works as for stored properties; a setter stores a new box.
public struct TransactionRecord: Hashable, Sendable {
    /// The fields a subscription's transactions share.
    struct Shared: Hashable, Sendable {
        var originalTransactionId: String
        var customer: String
        var productId: String
        var productType: ProductType
        var subscriptionGroupIdentifier: String?
        var originalPurchaseDate: Instant
        var ownership: Ownership
        var currency: String
        var appTransactionId: String
        var appAccountToken: String?
        var storefront: Storefront
    }

    /// ``Shared`` in an immutable box, shared by the records that have the same fields.
    typealias Box = SharedFields<Shared>

    var box: Box

    var shared: Shared {
        get { box.fields }
        set { box = Box(newValue) }
    }

    public var transactionId: String {
        get { transactionIdentifier.text }
        set { transactionIdentifier = .text(newValue) }
    }
    /// ``transactionId`` as the store made it (a renewal's digits are written only when read: the store itself never
    /// reads them) or as set.
    var transactionIdentifier: StoreIdentifier
    public var originalTransactionId: String {
        get { box.fields.originalTransactionId }
        set { shared.originalTransactionId = newValue }
    }
    public var webOrderLineItemId: String? {
        get { webOrderLineItem?.text }
        set { webOrderLineItem = newValue.map { .text($0) } }
    }
    /// ``webOrderLineItemId`` as the store made it (its digits are written only when read: the timeline never reads
    /// them) or as set.
    var webOrderLineItem: StoreIdentifier?
    public var customer: String {
        get { box.fields.customer }
        set { shared.customer = newValue }
    }
    public var productId: String {
        get { box.fields.productId }
        set { shared.productId = newValue }
    }
    public var productType: ProductType {
        get { box.fields.productType }
        set { shared.productType = newValue }
    }
    public var subscriptionGroupIdentifier: String? {
        get { box.fields.subscriptionGroupIdentifier }
        set { shared.subscriptionGroupIdentifier = newValue }
    }
    public var purchaseDate: Instant
    public var originalPurchaseDate: Instant {
        get { box.fields.originalPurchaseDate }
        set { shared.originalPurchaseDate = newValue }
    }
    public var expiresDate: Instant?
    public var ownership: Ownership {
        get { box.fields.ownership }
        set { shared.ownership = newValue }
    }
    public var reason: ChargeReason
    public var offer: IntroductoryOffer?
    public var price: Price
    public var currency: String {
        get { box.fields.currency }
        set { shared.currency = newValue }
    }
    public var revocation: Revocation?
    /// When the transaction was created or last changed (a refund or revocation changes it); the transaction
    /// history response lists transactions in this order.
    public var lastModified: Instant
    /// `appTransactionId`: the customer's, one per Apple Account per app (set when the store records it).
    public var appTransactionId: String {
        get { box.fields.appTransactionId }
        set { shared.appTransactionId = newValue }
    }
    /// `appAccountToken`: the purchaser's token at the time of this transaction; never on a family member's
    /// transaction (reference §4.5).
    public var appAccountToken: String? {
        get { box.fields.appAccountToken }
        set { shared.appAccountToken = newValue }
    }
    /// The customer's storefront (`storefront`, `storefrontId`).
    public var storefront: Storefront {
        get { box.fields.storefront }
        set { shared.storefront = newValue }
    }
    /// Order of last modification in the store: the history's `revision` token counts these (set by the store).
    public var modificationSequence: Int = 0
    /// `isUpgraded`: superseded by an upgrade (reference §2.5, §5.10, A-14); sent only when `true`.
    public var isUpgraded: Bool = false
    /// `commitmentInfo` (and `billingPlanType` `MONTHLY`): present on the transactions of a 12-month commitment.
    public var commitment: TransactionCommitment? {
        get { commitmentStorage?.fields }
        set { commitmentStorage = newValue.map { SharedFields($0) } }
    }
    /// ``commitment`` kept out of line (one optional reference): most transactions have none, and a copy of a record
    /// then retains a null reference, which costs nothing (an empty array's storage is retained and released, issue
    /// 27).
    var commitmentStorage: SharedFields<TransactionCommitment>? = nil

    init(
        transactionId: String, originalTransactionId: String, webOrderLineItemId: String?, customer: String,
        productId: String, productType: ProductType, subscriptionGroupIdentifier: String?, purchaseDate: Instant,
        originalPurchaseDate: Instant, expiresDate: Instant?, ownership: Ownership, reason: ChargeReason,
        offer: IntroductoryOffer?, price: Price, currency: String, revocation: Revocation?, lastModified: Instant,
        appTransactionId: String = "", appAccountToken: String? = nil, storefront: Storefront = .unitedStates,
        modificationSequence: Int = 0, isUpgraded: Bool = false
    ) {
        let shared = Shared(
            originalTransactionId: originalTransactionId, customer: customer, productId: productId,
            productType: productType, subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            originalPurchaseDate: originalPurchaseDate, ownership: ownership, currency: currency,
            appTransactionId: appTransactionId, appAccountToken: appAccountToken, storefront: storefront)
        self.init(
            box: Box(shared), transactionIdentifier: .text(transactionId),
            webOrderLineItem: webOrderLineItemId.map { .text($0) },
            purchaseDate: purchaseDate, expiresDate: expiresDate, reason: reason, offer: offer, price: price,
            revocation: revocation, lastModified: lastModified, modificationSequence: modificationSequence,
            isUpgraded: isUpgraded)
    }

    /// A record whose shared fields are `box`'s (a subscription's renewals share their box).
    init(
        box: Box, transactionIdentifier: StoreIdentifier, webOrderLineItem: StoreIdentifier?, purchaseDate: Instant,
        expiresDate: Instant?,
        reason: ChargeReason, offer: IntroductoryOffer?, price: Price, revocation: Revocation?,
        lastModified: Instant, modificationSequence: Int = 0, isUpgraded: Bool = false
    ) {
        self.box = box
        self.transactionIdentifier = transactionIdentifier
        self.webOrderLineItem = webOrderLineItem
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.reason = reason
        self.offer = offer
        self.price = price
        self.revocation = revocation
        self.lastModified = lastModified
        self.modificationSequence = modificationSequence
        self.isUpgraded = isUpgraded
    }

    /// Sets the account fields (`storefront`, `appTransactionId`, `appAccountToken`, `currency`) at once, storing a
    /// new box only when one of them changes.
    mutating func setAccountFields(
        storefront: Storefront, appTransactionId: String, appAccountToken: String?, currency: String
    ) {
        // Compared in place: copying the fields out of the box would retain (and then release) each of its strings.
        if box.fields.storefront == storefront && box.fields.appTransactionId == appTransactionId
            && box.fields.appAccountToken == appAccountToken && box.fields.currency == currency
        {
            return
        }
        var changed = box.fields
        changed.storefront = storefront
        changed.appTransactionId = appTransactionId
        changed.appAccountToken = appAccountToken
        changed.currency = currency
        box = Box(changed)
    }

    public static func == (a: TransactionRecord, b: TransactionRecord) -> Bool {
        a.transactionIdentifier == b.transactionIdentifier && a.webOrderLineItem == b.webOrderLineItem
            && a.purchaseDate == b.purchaseDate && a.expiresDate == b.expiresDate && a.reason == b.reason
            && a.offer == b.offer && a.price == b.price && a.revocation == b.revocation
            && a.lastModified == b.lastModified && a.modificationSequence == b.modificationSequence
            && a.isUpgraded == b.isUpgraded && a.box == b.box && a.commitmentStorage == b.commitmentStorage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(transactionIdentifier)
        hasher.combine(webOrderLineItem)
        hasher.combine(purchaseDate)
        hasher.combine(expiresDate)
        hasher.combine(reason)
        hasher.combine(offer)
        hasher.combine(price)
        hasher.combine(revocation)
        hasher.combine(lastModified)
        hasher.combine(modificationSequence)
        hasher.combine(isUpgraded)
        hasher.combine(box)
        hasher.combine(commitmentStorage)
    }
}

/// The renewal information a notification reports (`signedRenewalInfo`), as domain values.
public struct RenewalSnapshot: Hashable, Sendable {
    public var originalTransactionId: String
    public var productId: String
    public var autoRenewProductId: String
    public var autoRenewOn: Bool
    public var expirationIntent: EndReason?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Instant?
    public var renewalDate: Instant
    public var recentSubscriptionStartDate: Instant
    /// Price and offer of the next renewal (`renewalPrice`, `currency`, offer fields); `nil` price when it will not
    /// renew.
    public var renewalPrice: Price?
    public var currency: String
    public var upcomingOffer: IntroductoryOffer?
    /// `appTransactionId` of the chain's customer.
    public var appTransactionId: String = ""
    /// `appAccountToken` that applies to the upcoming renewal: the purchaser's current token; never a member's.
    public var appAccountToken: String? = nil
    /// `priceIncreaseStatus`: present while a price increase applies to the purchaser's next renewal; never on a
    /// family member's renewal info (members are not asked, reference §5.12) [assumed].
    public var priceIncreaseStatus: PriceIncreaseConsent? = nil
    /// `eligibleWinBackOfferIds`: the win-back offers the customer may redeem now; empty means the field is absent
    /// (rule win-back-eligibility, `Store/SimulatedStore+Offers.swift`).
    public var eligibleWinBackOfferIds: [String] = []
    /// `renewalBillingPlanType` and `commitmentInfo`: present only while the subscription is in a commitment
    /// (reference Appendix E P10, P11).
    public var commitment: RenewalCommitment? {
        get { commitmentStorage?.fields }
        set { commitmentStorage = newValue.map { SharedFields($0) } }
    }
    /// ``commitment`` out of line, as ``TransactionRecord/commitment``.
    var commitmentStorage: SharedFields<RenewalCommitment>? = nil
    /// `renewalBillingPlanType` outside a commitment: `monthly` when the next renewal starts one (rule
    /// billing-plan-switch-at-renewal), otherwise `nil` (rule billing-plan-type-on-standard-transactions). Inside a
    /// commitment ``commitment`` carries it.
    public var renewalPlan: BillingPlan? = nil

    /// `renewalBillingPlanType` as sent: the plan of the next billing period, inside a commitment its
    /// ``RenewalCommitment/nextPeriodPlan``, outside one ``renewalPlan``; `nil` when the renewal info carries none (rule
    /// billing-plan-type-on-standard-transactions). One place for the wire and the device view.
    public var renewalBillingPlan: BillingPlan? { commitment?.nextPeriodPlan ?? renewalPlan }
}

/// A notification the store sent: whom it is about, when, and what it says.
///
/// Most notifications are about one customer's purchase: they carry ``recipient`` and ``transaction`` (and, for
/// auto-renewable subscriptions, ``renewal`` and ``status``) in `data`. `RESCIND_CONSENT` is about one customer's
/// app download: ``recipient`` and ``appTransaction`` in `appData`, no transaction (rule rescind-consent). Two are
/// about the app itself and carry neither (reference §2.3-§2.4, rule ``isAboutTheApp``): `TEST` (`data` with only
/// the app's fields) and `RENEWAL_EXTENSION` / `SUMMARY` (a `summary` object instead of `data`).
public struct SentNotification: Hashable, Sendable {
    /// The customer the notification is about; `nil` for a notification about the app (``isAboutTheApp``).
    public var recipient: String?
    /// The virtual instant; also the payload's `signedDate` (reference A-19).
    public var instant: Instant
    public var type: NotificationType
    public var subtype: NotificationSubtype?
    /// `notificationUUID`, as bits; ``notificationUUID`` is its text.
    public var uuid: NotificationUUID
    /// `data.signedTransactionInfo`; present exactly when ``recipient`` is, except in `RESCIND_CONSENT`
    /// (``appTransaction``).
    public var transaction: TransactionRecord?
    /// Present for auto-renewable subscriptions.
    public var renewal: RenewalSnapshot?
    /// `data.status`, present for auto-renewable subscriptions.
    public var status: SubscriptionPhase?
    /// `data.consumptionRequestReason`, in `CONSUMPTION_REQUEST` only (reference §2.4).
    public var consumptionRequestReason: ConsumptionRequestReason? = nil
    /// The `summary` object, in `RENEWAL_EXTENSION` / `SUMMARY` only, which has no `data` (reference §2.4).
    public var summary: RenewalExtensionSummary? = nil
    /// `appData.signedAppTransactionInfo`, in `RESCIND_CONSENT` only, which has `appData` instead of `data`
    /// (Apple's `appData` page: "present in the payload when the notificationType is RESCIND_CONSENT").
    public var appTransaction: AppTransactionRecord? {
        get { appTransactionStorage?.fields }
        set { appTransactionStorage = newValue.map { SharedFields($0) } }
    }
    /// ``appTransaction`` out of line: a pointer in every other notification.
    var appTransactionStorage: SharedFields<AppTransactionRecord>? = nil

    /// The lowercase UUID text Apple sends as `notificationUUID`.
    public var notificationUUID: String { uuid.description }

    /// **notification-about-the-app**: `TEST` and `RENEWAL_EXTENSION` / `SUMMARY` concern the app, not a customer:
    /// no `signedTransactionInfo`, `signedRenewalInfo` or `status` (reference §2.3 table, §2.4, §6.3; S-DATA;
    /// Apple's library test data `testNotification` and `signedSummaryNotification.json`): they have no
    /// ``recipient``.
    public var isAboutTheApp: Bool { recipient == nil }
}

/// A change in what one customer is entitled to.
public struct EntitlementChange: Hashable, Sendable {
    public var instant: Instant
    public var customer: String
    public var products: [String]
}

extension TransactionRecord {
    /// **transaction-dates-in-order**: no transaction ever has `purchaseDate` after `expiresDate`, or
    /// `originalPurchaseDate` after `purchaseDate`: no store sends such a transaction and a strict verifier rejects
    /// it (issue 9). The store checks it whenever it records a transaction (a debug assertion), and the tests check
    /// every transaction of every scenario and golden file.
    public var hasConsistentDates: Bool {
        originalPurchaseDate <= purchaseDate && (expiresDate.map { purchaseDate <= $0 } ?? true)
    }
}

/// A customer opening the app: where it falls among the notifications, and the subscriptions with a billing issue
/// then.
struct AppOpenRecord: Hashable, Sendable {
    /// The number of notifications sent before it.
    var position: Int
    var instant: Instant
    var customer: String
    var billingIssues: [String]
}
