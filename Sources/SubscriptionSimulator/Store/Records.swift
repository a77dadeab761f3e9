/// Who owns a transaction: the purchaser, or a family member through Family Sharing (`inAppOwnershipType`).
public enum Ownership: Hashable, Sendable {
    case purchased
    case familyShared
}

/// Why a transaction was revoked (`revocationType`, reference §2.7, S-RT).
public enum RevocationKind: Hashable, Sendable {
    case refundFull
    case familyRevoke
    // MARK: extensions-refunds
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

/// One transaction, as the App Store records it. Turned into `signedTransactionInfo` by `Wire/`.
public struct TransactionRecord: Hashable, Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var webOrderLineItemId: String?
    public var customer: String
    public var productId: String
    public var productType: ProductType
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Instant
    public var originalPurchaseDate: Instant
    public var expiresDate: Instant?
    public var ownership: Ownership
    public var reason: ChargeReason
    public var offer: IntroductoryOffer?
    public var price: Price
    public var currency: String
    public var revocation: Revocation?
    /// When the transaction was created or last changed (a refund or revocation changes it); the transaction
    /// history response lists transactions in this order.
    public var lastModified: Instant
    /// `appTransactionId`: the customer's, one per Apple Account per app (set when the store records it).
    public var appTransactionId: String = ""
    /// `appAccountToken`: the purchaser's token at the time of this transaction; never on a family member's
    /// transaction (reference §4.5).
    public var appAccountToken: String? = nil
    /// The customer's storefront (`storefront`, `storefrontId`).
    public var storefront: Storefront = .unitedStates
    /// Order of last modification in the store: the history's `revision` token counts these (set by the store).
    public var modificationSequence: Int = 0
    /// `isUpgraded`: superseded by an upgrade (reference §2.5, §5.10, A-14); sent only when `true`.
    public var isUpgraded: Bool = false
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
}

/// A notification the store sent: whom it is about, when, and what it says.
///
/// Most notifications are about one customer's purchase: they carry ``recipient`` and ``transaction`` (and, for
/// auto-renewable subscriptions, ``renewal`` and ``status``) in `data`. Two are about the app itself and carry
/// neither (reference §2.3-§2.4, rule ``isAboutTheApp``): `TEST` (`data` with only the app's fields) and
/// `RENEWAL_EXTENSION` / `SUMMARY` (a `summary` object instead of `data`).
public struct SentNotification: Hashable, Sendable {
    /// The customer the notification is about; `nil` for a notification about the app (``isAboutTheApp``).
    public var recipient: String?
    /// The virtual instant; also the payload's `signedDate` (reference A-19).
    public var instant: Instant
    public var type: NotificationType
    public var subtype: NotificationSubtype?
    /// `notificationUUID`, as bits; ``notificationUUID`` is its text.
    public var uuid: NotificationUUID
    /// `data.signedTransactionInfo`; present exactly when ``recipient`` is.
    public var transaction: TransactionRecord?
    /// Present for auto-renewable subscriptions.
    public var renewal: RenewalSnapshot?
    /// `data.status`, present for auto-renewable subscriptions.
    public var status: SubscriptionPhase?
    /// `data.consumptionRequestReason`, in `CONSUMPTION_REQUEST` only (reference §2.4).
    public var consumptionRequestReason: ConsumptionRequestReason? = nil
    /// The `summary` object, in `RENEWAL_EXTENSION` / `SUMMARY` only, which has no `data` (reference §2.4).
    public var summary: RenewalExtensionSummary? = nil

    /// The lowercase UUID text Apple sends as `notificationUUID`.
    public var notificationUUID: String { uuid.description }

    /// **notification-about-the-app**: `TEST` and `RENEWAL_EXTENSION` / `SUMMARY` concern the app, not a customer:
    /// no `signedTransactionInfo`, `signedRenewalInfo` or `status` (reference §2.3 table, §2.4, §6.3; S-DATA;
    /// Apple's library test data `testNotification` and `signedSummaryNotification.json`).
    public var isAboutTheApp: Bool { transaction == nil }
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
