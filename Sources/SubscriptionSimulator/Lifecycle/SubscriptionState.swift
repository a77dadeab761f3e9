/// Where an auto-renewable subscription stands. Maps one-to-one onto Apple's `status` codes (reference §3.1).
public enum SubscriptionPhase: Hashable, Sendable, CaseIterable {
    /// Status 1: paid up (or in a free trial); entitled.
    case active
    /// Status 2: expired; not entitled.
    case expired
    /// Status 3: a renewal failed and Apple is retrying, outside any grace period; not entitled.
    case billingRetry
    /// Status 4: a renewal failed and the billing grace period keeps service on; entitled.
    case gracePeriod
    /// Status 5: refunded or revoked from Family Sharing; not entitled.
    case revoked

    /// Ground truth for access: active and grace give access; billing retry, expired and revoked do not
    /// (reference §3.1; S-RS, S-NT).
    public var isEntitled: Bool { self == .active || self == .gracePeriod }

    /// Apple's `status` code: 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked (§2.7, S-STATUS).
    public var statusCode: Int {
        switch self {
        case .active: return 1
        case .expired: return 2
        case .billingRetry: return 3
        case .gracePeriod: return 4
        case .revoked: return 5
        }
    }
}

/// Why a subscription ended or is failing to renew. Apple's `expirationIntent` codes (reference §2.7, §5.18).
public enum EndReason: Hashable, Sendable {
    /// `expirationIntent` 1: the customer turned auto-renew off.
    case customerCancelled
    /// `expirationIntent` 2: billing error.
    case billingError
    /// `expirationIntent` 4: the product was not for sale at renewal.
    case productNotForSale
    /// `expirationIntent` 3: the customer did not consent to a price increase that needed consent (reference §2.7,
    /// §5.12; S-EI).
    case priceIncreaseNotConsented
}

/// A running billing failure: from the failed renewal until recovery, expiry, or the end of the retry window.
///
/// The stored properties are ordered for a small layout (the one-byte ``cause`` last: 26 bytes, not 40), as
/// ``SubscriptionState``'s are; the initializer keeps the order the fields are read in.
public struct BillingFailure: Hashable, Sendable {
    /// The failed renewal instant (the expiry of the last paid period). The retry window starts here.
    public var failedAt: Instant
    /// End of the retry window: `failedAt` + 60 days (``BillingRules/billingRetryWindow``).
    public var retryEndsAt: Instant
    /// End of the grace period, if one applies to this failure.
    public var graceExpiresAt: Instant?
    public var cause: EndReason

    init(failedAt: Instant, cause: EndReason, graceExpiresAt: Instant?, retryEndsAt: Instant) {
        self.failedAt = failedAt
        self.retryEndsAt = retryEndsAt
        self.graceExpiresAt = graceExpiresAt
        self.cause = cause
    }
}

/// The billing cycle: period `n` ends at `anchor + n × unit` on the calendar (issue 2; reference ).
public struct BillingCycle: Hashable, Sendable {
    public var anchor: Instant { didSet { currentPeriodEnd = Self.end(anchor, unit, periodsElapsed) } }
    public var unit: CalendarDuration { didSet { currentPeriodEnd = Self.end(anchor, unit, periodsElapsed) } }
    /// Number of whole units from the anchor to the current period's end.
    public var periodsElapsed: Int { didSet { currentPeriodEnd = Self.end(anchor, unit, periodsElapsed) } }

    /// `anchor + periodsElapsed × unit`: worked out when the cycle changes, not on every read (a subscription's
    /// expiry is read several times per renewal, and calendar arithmetic is the costly part).
    public private(set) var currentPeriodEnd: Instant
    public var nextPeriodEnd: Instant { anchor.adding(unit.times(periodsElapsed + 1)) }

    public init(anchor: Instant, unit: CalendarDuration, periodsElapsed: Int) {
        self.anchor = anchor
        self.unit = unit
        self.periodsElapsed = periodsElapsed
        currentPeriodEnd = Self.end(anchor, unit, periodsElapsed)
    }

    static func end(_ anchor: Instant, _ unit: CalendarDuration, _ periodsElapsed: Int) -> Instant {
        anchor.adding(unit.times(periodsElapsed))
    }
}

/// An introductory offer being used by the current or upcoming periods.
public struct OfferUse: Hashable, Sendable {
    public var offer: IntroductoryOffer
    /// Offer periods still to be billed after the current one (pay-as-you-go only).
    public var periodsRemaining: Int
}

/// The purchaser's subscription in one group, as a value: the input and output of every lifecycle transition.
///
/// A state is copied on every transition (into the transition's result, then into the chain), so its layout is kept
/// small: the one-byte fields are stored together after ``productId``, and what most subscriptions never have (a
/// pending offer, a commitment) is held out of line behind one optional reference, `nil` for most (issue 27: at 264
/// bytes each copy took the C library's slower path for copies above 256 bytes, and two empty arrays were retained and
/// released with every copy).
public struct SubscriptionState: Hashable, Sendable {
    public var productId: String
    public var period: SubscriptionPeriod
    public var phase: SubscriptionPhase
    public var autoRenew: Bool
    /// Why it ended (when expired) or why it is failing (during retry).
    public var endReason: EndReason?
    /// `isInBillingRetryPeriod`: `true` during retry and grace, `false` once retry ended without recovery (expiry,
    /// refund, REVOKE), absent when no billing failure happened (reference §2.6, §5.2, §5.7; S-IBR; rule
    /// renewal-info-agrees-with-status).
    public var isInBillingRetryPeriod: Bool?
    /// A price increase that applies to the next renewal, and whether the customer has consented (rule
    /// price-increase-consent); `nil` when none applies.
    public var priceIncrease: PriceIncreaseConsent? = nil
    public var cycle: BillingCycle
    /// Start of the current paid (or offer) period: the `purchaseDate` of the current transaction.
    public var currentPeriodStart: Instant
    /// The offer in force for the current period, if any.
    public var currentOffer: OfferUse?
    public var failure: BillingFailure?
    /// `gracePeriodExpiresDate`: set during grace and kept (in the past) through GRACE_PERIOD_EXPIRED and
    /// EXPIRED/BILLING_RETRY, removed on recovery (reference Appendix A-9; S-F728090, S-CHURN), and removed when the
    /// subscription ends before it (rule renewal-info-agrees-with-status).
    public var gracePeriodExpiresDate: Instant?
    /// A downgrade, or a crossgrade to another duration, chosen by the customer: the product the subscription
    /// renews to at its next renewal (reference §5.10; S-NT, S-BILL). `autoRenewProductId` until then.
    public var pendingChange: PurchaseRequest? = nil

    /// What most subscriptions never have, out of line.
    struct Rare: Hashable, Sendable {
        var pendingOffer: SubscriptionOffer?
        var commitment: CommitmentState?
    }
    /// ``Rare`` in an immutable box, `nil` when it holds nothing (so that equal states store the same thing): a copy
    /// of a state without them retains a null reference, which costs nothing. A setter stores a new box.
    var rare: SharedFields<Rare>? = nil

    /// Changes ``rare``'s fields: a new box, or none when nothing is left in it.
    private mutating func changeRare(_ change: (inout Rare) -> Void) {
        var fields = rare?.fields ?? Rare(pendingOffer: nil, commitment: nil)
        change(&fields)
        rare = fields.pendingOffer == nil && fields.commitment == nil ? nil : SharedFields(fields)
    }

    /// An offer the customer redeemed on this active subscription, waiting for the next renewal (rule
    /// offer-starts-at-next-renewal, `Lifecycle/OffersAndPriceIncreases.swift`).
    public var pendingOffer: SubscriptionOffer? {
        get { rare?.fields.pendingOffer }
        set { changeRare { $0.pendingOffer = newValue } }
    }
    /// The 12-month commitment the subscription is in, when it was bought on the monthly plan
    /// (`Lifecycle/CommitmentRules.swift`); `nil` for the up-front plan and once the commitment ended.
    public var commitment: CommitmentState? {
        get { rare?.fields.commitment }
        set { changeRare { $0.commitment = newValue } }
    }
    /// `billingPlanType` of the current transaction: monthly inside a commitment (reference Appendix E, P9).
    public var billingPlan: BillingPlan { commitment == nil ? .upfront : .monthly }

    init(
        productId: String, period: SubscriptionPeriod, phase: SubscriptionPhase, autoRenew: Bool, cycle: BillingCycle,
        currentPeriodStart: Instant, currentOffer: OfferUse?, failure: BillingFailure?, endReason: EndReason?,
        isInBillingRetryPeriod: Bool?, gracePeriodExpiresDate: Instant?
    ) {
        self.productId = productId
        self.period = period
        self.phase = phase
        self.autoRenew = autoRenew
        self.endReason = endReason
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.cycle = cycle
        self.currentPeriodStart = currentPeriodStart
        self.currentOffer = currentOffer
        self.failure = failure
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
    }

    /// `autoRenewProductId`: the product of the next renewal (reference §2.6, §5.10).
    public var autoRenewProductId: String { pendingChange?.productId ?? productId }
    /// `expiresDate` of the current transaction.
    public var expiresDate: Instant { cycle.currentPeriodEnd }
    public var isEntitled: Bool { phase.isEntitled }
}
