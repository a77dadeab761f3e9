/// What can happen to a subscription, with the data it brings. Store events come from the clock; the others from the
/// customer or developer.
public enum LifecycleInput: Hashable, Sendable {
    /// Store event at `expiresDate`: the App Store tries to renew (reference A-1: exactly at `expiresDate`).
    case renewalDue
    /// Store event at `gracePeriodExpiresDate`.
    case gracePeriodEnds
    /// Store event 60 days after the failed renewal (``BillingRules/billingRetryWindow``).
    case billingRetryEnds
    /// The customer turns auto-renew off (`cancel`).
    case autoRenewDisabled
    /// The customer turns auto-renew back on (`resume`).
    case autoRenewEnabled
    /// The customer's payment method works again (`fixBilling`): Apple retries at once (reference §5.3, S-CHURN).
    case billingFixed
    /// The developer puts the product back on sale (`restoreToSale`).
    case productRestoredToSale
    /// Apple refunds the current transaction: how much, and `revocationReason` (0 other, 1 an issue in the app;
    /// reference §2.7, S-RR).
    case refunded(amount: RefundAmount, reason: Int32)
    /// The customer buys a product of the group again: the product bought and the introductory offer it gets, if any.
    case purchasedAgain(PurchaseRequest)

    /// The customer moves to a higher level of the group, or to a product of the same level and duration: the change
    /// takes effect at once (`changePlan`; reference §5.10). The request is the new product; its offer is not used
    /// (no introductory offer on a plan change, S-INTRO).
    case upgradeRequested(PurchaseRequest)
    /// The customer moves to a lower level, or to a product of the same level and another duration, or switches the
    /// current product's billing plan: the change takes effect at the next renewal (inside a commitment, at the
    /// commitment's end) (`changePlan`; reference §5.10, Appendix E G2-G4). The request is the new product and plan;
    /// its offer is not used (S-INTRO).
    case downgradeRequested(PurchaseRequest)
    /// The customer chooses the product they have now (`changePlan` to the current product): cancels a pending
    /// downgrade (reference §5.10).
    case currentProductChosen
    /// The customer redeems a promotional offer, offer code or win-back offer for the subscription's product
    /// (`redeemOffer`).
    case offerRedeemed(OfferRedemption)
    /// The developer raises the product's price in the customer's storefront (`raisePrice`), with or without the
    /// customer's consent needed (reference §5.12).
    case priceIncreaseAnnounced(needsConsent: Bool)
    /// The customer agrees to a price increase that needs consent (`consentToPriceIncrease`).
    case priceIncreaseConsented
    /// The developer extends the renewal date of this subscription (Extend a Subscription Renewal Date, or one
    /// subscription of a mass extension).
    case renewalDateExtended(RenewalExtensionRequest)
    /// The customer asks for a refund (refund-request API or reportaproblem.apple.com): the App Store turns auto-renew
    /// off (reference §1.1, §5.14).
    case refundRequested
    /// A refund of the current transaction is reversed after a dispute (`REFUND_REVERSED`, reference §5.14).
    case refundReversed
    /// The customer redeems an offer for a higher level of the group, or a product of the same level and duration
    /// (`redeemOffer` naming that product): an upgrade with the offer, at once (reference §5.10, §5.11).
    case offerUpgradeRedeemed(OfferRedemption)
    /// The customer redeems an offer for a lower level of the group, or a product of the same level and another
    /// duration: a downgrade with the offer, at the next renewal (reference §5.10, §5.11).
    case offerDowngradeRedeemed(OfferRedemption)

    /// The input's case without its data: one per case, so that tests can list every (phase × input) pair.
    public enum Kind: Hashable, Sendable, CaseIterable {
        case renewalDue, gracePeriodEnds, billingRetryEnds, autoRenewDisabled, autoRenewEnabled, billingFixed
        case productRestoredToSale, refunded, purchasedAgain
        case upgradeRequested, downgradeRequested, currentProductChosen
        case offerRedeemed, priceIncreaseAnnounced, priceIncreaseConsented
        case renewalDateExtended, refundRequested, refundReversed
        case offerUpgradeRedeemed, offerDowngradeRedeemed
    }

    /// The input's case without its data.
    public var kind: Kind {
        switch self {
        case .renewalDue: return .renewalDue
        case .gracePeriodEnds: return .gracePeriodEnds
        case .billingRetryEnds: return .billingRetryEnds
        case .autoRenewDisabled: return .autoRenewDisabled
        case .autoRenewEnabled: return .autoRenewEnabled
        case .billingFixed: return .billingFixed
        case .productRestoredToSale: return .productRestoredToSale
        case .refunded: return .refunded
        case .purchasedAgain: return .purchasedAgain
        case .upgradeRequested: return .upgradeRequested
        case .downgradeRequested: return .downgradeRequested
        case .currentProductChosen: return .currentProductChosen
        case .offerRedeemed: return .offerRedeemed
        case .priceIncreaseAnnounced: return .priceIncreaseAnnounced
        case .priceIncreaseConsented: return .priceIncreaseConsented
        case .renewalDateExtended: return .renewalDateExtended
        case .refundRequested: return .refundRequested
        case .refundReversed: return .refundReversed
        case .offerUpgradeRedeemed: return .offerUpgradeRedeemed
        case .offerDowngradeRedeemed: return .offerDowngradeRedeemed
        }
    }

    /// The store event a timer fires as.
    public init(firing timer: LifecycleTimer) {
        switch timer {
        case .renewal: self = .renewalDue
        case .gracePeriodEnd: self = .gracePeriodEnds
        case .billingRetryEnd: self = .billingRetryEnds
        }
    }

    /// The timer whose firing this input is; nil for the customer's and developer's inputs.
    public var firedTimer: LifecycleTimer? {
        switch self {
        case .renewalDue: return .renewal
        case .gracePeriodEnds: return .gracePeriodEnd
        case .billingRetryEnds: return .billingRetryEnd
        case .autoRenewDisabled, .autoRenewEnabled, .billingFixed, .productRestoredToSale, .refunded, .purchasedAgain,
            .upgradeRequested, .downgradeRequested, .currentProductChosen, .offerRedeemed, .priceIncreaseAnnounced,
            .priceIncreaseConsented, .renewalDateExtended, .refundRequested, .refundReversed, .offerUpgradeRedeemed,
            .offerDowngradeRedeemed:
            return nil
        }
    }
}

/// A renewal-date extension request as the table needs it (Extend a Subscription Renewal Date, S-EXT).
public struct RenewalExtensionRequest: Hashable, Sendable {
    /// `extendByDays`: 1 to 90.
    public var days: Int
    /// Extensions this subscription received in the 365 days before now.
    public var extensionsInPastYear: Int

    public init(days: Int, extensionsInPastYear: Int) {
        self.days = days
        self.extensionsInPastYear = extensionsInPastYear
    }
}

/// The facts about the world outside the subscription that a transition needs. No clock reads: `now` is given.
public struct LifecycleContext: Hashable, Sendable {
    public var now: Instant
    /// Whether a charge to the customer's payment method succeeds now.
    public var paymentSucceeds: Bool
    /// Whether the subscription's product is on sale now.
    public var productForSale: Bool
    public var gracePeriod: GracePeriodSetting
    public var graceEligibility: GraceEligibility

    public init(
        now: Instant, paymentSucceeds: Bool = true, productForSale: Bool = true, gracePeriod: GracePeriodSetting = .off,
        graceEligibility: GraceEligibility = .allRenewals
    ) {
        self.now = now
        self.paymentSucceeds = paymentSucceeds
        self.productForSale = productForSale
        self.gracePeriod = gracePeriod
        self.graceEligibility = graceEligibility
    }
}

/// A purchase of an auto-renewable product: which one, its period, and the introductory offer it gets.
public struct PurchaseRequest: Hashable, Sendable {
    public var productId: String
    public var period: SubscriptionPeriod
    /// The billing plan bought: `monthly` starts a 12-month commitment (`Lifecycle/CommitmentRules.swift`). Stored
    /// next to ``period`` (one byte each): 32 bytes in all, where after ``offer`` it made the request, and each
    /// ``SubscriptionState`` that holds one, 8 bytes larger.
    public var plan: BillingPlan
    public var offer: IntroductoryOffer?

    public init(
        productId: String, period: SubscriptionPeriod, offer: IntroductoryOffer? = nil, plan: BillingPlan = .upfront
    ) {
        self.productId = productId
        self.period = period
        self.offer = offer
        self.plan = plan
    }

    /// The billing period of the plan bought: a month on the monthly plan (rule
    /// commitment-billing-period-is-a-month), the product's period otherwise.
    public var billingPeriod: SubscriptionPeriod { plan == .monthly ? CommitmentPlan.billingPeriod : period }
}

/// An offer the customer redeems (`redeemOffer`): the product it is for, and the offer.
public struct OfferRedemption: Hashable, Sendable {
    public var productId: String
    public var period: SubscriptionPeriod
    public var offer: IntroductoryOffer
    /// The billing plan a redemption that starts or restarts the subscription buys (rule offer-code-buys-its-plan);
    /// a redemption on a running subscription keeps its plan.
    public var plan: BillingPlan

    public init(
        productId: String, period: SubscriptionPeriod, offer: IntroductoryOffer, plan: BillingPlan = .upfront
    ) {
        self.productId = productId
        self.period = period
        self.offer = offer
        self.plan = plan
    }

    /// The purchase of the product with the offer.
    public var purchase: PurchaseRequest {
        PurchaseRequest(productId: productId, period: period, offer: offer, plan: plan)
    }
}

/// Timers a subscription keeps on the store's clock.
public enum LifecycleTimer: Hashable, Sendable, CaseIterable {
    case renewal
    case gracePeriodEnd
    case billingRetryEnd
}

/// Effects as data: the store carries them out. Order matters: a charge comes before the notification that
/// reports it. An effect is a few words and needs no allocation of its own: the one case that carries a whole state
/// (``notifyInterim(_:_:snapshot:)``, rare) is `indirect`; a state inline made every effect 641 bytes, and boxing it
/// in every notification cost an allocation and a copy of the state on every renewal.
public enum LifecycleEffect: Hashable, Sendable {
    /// Create a new transaction for the period `purchaseDate ..< expiresDate` (`transactionReason` as given).
    case charge(purchaseDate: Instant, expiresDate: Instant, offer: IntroductoryOffer?, reason: ChargeReason)
    /// Mark the current transaction refunded: how much, and `revocationReason` (reference §2.7, S-RR).
    case revokeCurrentTransaction(amount: RefundAmount, reason: Int32)
    case schedule(LifecycleTimer, at: Instant)
    case cancelAllTimers
    /// Send a notification reporting the state the transition ends in.
    case notify(NotificationType, NotificationSubtype?)
    /// Send a notification reporting `snapshot`, a state the subscription passes through during the transition: the
    /// first of two notifications at one instant (a cancel during a billing failure reports auto-renew off before the
    /// expiry, ``cancelDuringBillingFailure(_:at:)``).
    indirect case notifyInterim(NotificationType, NotificationSubtype?, snapshot: SubscriptionState)
    /// Mark the current transaction (and each family member's) superseded by an upgrade: `isUpgraded: true`, no
    /// revocation (reference §5.10, Appendix A-14).
    case markCurrentTransactionUpgraded
    /// Re-sign the current transaction (and each sharing member's) with `expiresDate` moved (reference A-17).
    case extendCurrentTransaction(expiresDate: Instant)
    /// Remove the current transaction's revocation fields (`REFUND_REVERSED`, reference §5.14).
    case restoreCurrentTransaction
}

/// `transactionReason`: `PURCHASE` for customer-initiated, `RENEWAL` for system-initiated (reference §2.5, S-TR).
public enum ChargeReason: Hashable, Sendable {
    case purchase
    case renewal
}

/// A customer action that the rules forbid in the subscription's current state. Each case is a named rule.
public enum LifecycleRuleViolation: Error, Hashable, Sendable, CustomStringConvertible {
    case autoRenewAlreadyOff
    case autoRenewAlreadyOn
    case subscriptionNotActive(SubscriptionPhase)
    case changingProductsNotSupported
    case purchaseDuringBillingRetry
    case alreadyRefunded
    // MARK: renewal-date extensions and refund reversals
    /// `InvalidExtendByDaysError` (4000009): `extendByDays` is 1 to 90.
    case invalidExtendByDays(Int)
    /// `SubscriptionExtensionIneligibleError` (4030004), with the state that makes it ineligible.
    case extensionIneligible(String)
    /// `SubscriptionMaxExtensionError` (4030005): two extensions in the past 365 days already.
    case maximumExtensionsReached
    /// `FamilySharedSubscriptionExtensionIneligibleError` (4030007): a member's share is extended with its
    /// purchaser's subscription, never directly.
    case familySharedExtension
    /// `REFUND_REVERSED` needs a refunded transaction.
    case notRefunded

    // MARK: changes to another product of the group
    case planChangeDuringBillingFailure
    case planChangeNeedsAutoRenew
    case planChangeNeedsCommitmentRenewal
    case downgradeAlreadyPending
    // MARK: offers, win-back and price increases
    case offerDuringBillingRetry
    case winBackOnlyAfterExpiry
    case oneOfferAtATime
    case promotionalOfferNeedsSubscriber
    case noPriceIncreasePending
    case offerWhilePlanChangePending

    /// The rule's name, as used in error messages and docs.
    public var rule: String {
        switch self {
        case .autoRenewAlreadyOff: return "auto-renew-already-off"
        case .autoRenewAlreadyOn: return "auto-renew-already-on"
        case .subscriptionNotActive: return "subscription-not-active"
        case .changingProductsNotSupported: return "one-subscription-per-group"
        case .purchaseDuringBillingRetry: return "no-purchase-during-billing-retry"
        case .alreadyRefunded: return "already-refunded"

        case .planChangeDuringBillingFailure: return "no-plan-change-during-billing-retry"
        case .planChangeNeedsAutoRenew: return "plan-change-needs-auto-renew"
        case .planChangeNeedsCommitmentRenewal: return "plan-change-needs-commitment-renewal"
        case .downgradeAlreadyPending: return "downgrade-already-pending"
        case .offerDuringBillingRetry: return "no-offer-during-billing-retry"
        case .winBackOnlyAfterExpiry: return "win-back-eligibility"
        case .oneOfferAtATime: return "one-offer-at-a-time"
        case .promotionalOfferNeedsSubscriber: return "promotional-offer-for-subscribers"
        case .noPriceIncreasePending: return "no-price-increase-pending"
        case .offerWhilePlanChangePending: return "no-offer-while-plan-change-pending"
        case .invalidExtendByDays: return "extend-by-1-to-90-days"
        case .extensionIneligible: return "extension-needs-a-paid-active-subscription"
        case .maximumExtensionsReached: return "two-extensions-per-365-days"
        case .familySharedExtension: return "members-extended-with-their-purchaser"
        case .notRefunded: return "reversal-needs-a-refund"
        }
    }

    public var description: String {
        switch self {
        case .autoRenewAlreadyOff:
            return "auto-renew is already off for this subscription (rule \(rule))"
        case .autoRenewAlreadyOn:
            return "auto-renew is already on for this subscription (rule \(rule))"
        case .subscriptionNotActive(let phase):
            return "the subscription is \(phase == .revoked ? "revoked" : "expired"); purchase again to resubscribe "
                + "(rule \(rule))"
        case .changingProductsNotSupported:
            return "the customer already subscribes to this product and has no pending downgrade to cancel; one "
                + "subscription per group: choose another product of the group to change plan (rule \(rule))"
        case .purchaseDuringBillingRetry:
            return "the customer's subscription in this group is failing to renew; use fixBilling to recover it "
                + "instead of buying again (rule \(rule); Apple advises not to sell to customers in billing retry)"
        case .alreadyRefunded:
            return "the subscription's current transaction is already refunded (rule \(rule))"

        case .planChangeDuringBillingFailure:
            return "the subscription is failing to renew; fix billing before changing plan (rule \(rule))"
        case .planChangeNeedsAutoRenew:
            return "auto-renew is off, so there is no next renewal for the change to take effect at; resume the "
                + "subscription first (rule \(rule))"
        case .planChangeNeedsCommitmentRenewal:
            return "the commitment's renewal is off (commitmentAutoRenewStatus 0): the subscription ends after period "
                + "12, so there is no renewal for the change to take effect at; resume the subscription first (rule "
                + "\(rule))"
        case .downgradeAlreadyPending:
            return "this product is already the subscription's pending product for the next renewal (rule \(rule))"
        case .offerDuringBillingRetry:
            return "the subscription is failing to renew; an offer cannot be redeemed until billing recovers "
                + "(rule \(rule); use fixBilling first)"
        case .winBackOnlyAfterExpiry:
            return "win-back offers are for customers whose subscription has expired (status 2), not for active, "
                + "retrying or refunded ones (rule \(rule))"
        case .oneOfferAtATime:
            return "an offer is already in force or waiting for the next renewal; a customer uses one offer at a "
                + "time (rule \(rule))"
        case .promotionalOfferNeedsSubscriber:
            return "promotional and win-back offers are for existing or former subscribers of the group; a new "
                + "customer buys the product or redeems an offer code (rule \(rule))"
        case .noPriceIncreasePending:
            return "no price increase is waiting for this customer's consent (rule \(rule))"
        case .offerWhilePlanChangePending:
            return "the subscription renews to another product at its next renewal; an offer for the current product "
                + "would never start (rule \(rule); choose the current product again first)"
        case .invalidExtendByDays(let days):
            return "extendByDays must be 1 to 90, found \(days) (rule \(rule); InvalidExtendByDaysError 4000009)"
        case .extensionIneligible(let why):
            return "the subscription cannot be extended: \(why) (rule \(rule); SubscriptionExtensionIneligibleError "
                + "4030004)"
        case .maximumExtensionsReached:
            return "the subscription was already extended twice in the past 365 days (rule \(rule); "
                + "SubscriptionMaxExtensionError 4030005)"
        case .familySharedExtension:
            return "this subscription is the customer's through Family Sharing; extend the purchaser's subscription "
                + "and the member's follows (rule \(rule); FamilySharedSubscriptionExtensionIneligibleError 4030007)"
        case .notRefunded:
            return "the transaction is not refunded, so there is no refund to reverse (rule \(rule))"
        }
    }
}

/// The outcome of one transition.
public enum TransitionResult: Hashable, Sendable {
    case changed(SubscriptionState, [LifecycleEffect])
    /// The input does not apply in this state; nothing happens. The reason is for docs and tests.
    case ignored(because: String)
    case rejected(LifecycleRuleViolation)
}

extension TransitionResult {
    /// The notifications a change sends, in order, each with the state it reports: the state the transition ends in
    /// (``LifecycleEffect/notify(_:_:)``) or one it passes through (``LifecycleEffect/notifyInterim(_:_:snapshot:)``).
    /// None for an ignored or rejected input.
    public var notifications: [(type: NotificationType, subtype: NotificationSubtype?, snapshot: SubscriptionState)] {
        guard case .changed(let final, let effects) = self else { return [] }
        return effects.compactMap { effect in
            switch effect {
            case .notify(let type, let subtype): return (type, subtype, final)
            case .notifyInterim(let type, let subtype, let snapshot): return (type, subtype, snapshot)
            default: return nil
            }
        }
    }
}

/// The purchaser's subscription lifecycle as one pure transition table: `(state, input, context) -> result`.
///
/// No I/O, no clock reads, no closures. Every (phase × input) pair is listed in ``transition(_:_:_:)``: a
/// transition, an explicit "ignored", or a rule violation; there is no `default:`. Sources for each rule are cited
/// where the rule is applied; reference = `shared/reference/app-store-behaviour.md`.
public enum SubscriptionLifecycle {
    /// A first purchase in the group: `SUBSCRIBED` / `INITIAL_BUY` (reference §1.1, S-NT).
    public static func initialPurchase(_ request: PurchaseRequest, at now: Instant) -> (
        SubscriptionState, [LifecycleEffect]
    ) {
        let state = freshState(request, at: now)
        return (
            state,
            [
                .charge(purchaseDate: now, expiresDate: state.expiresDate, offer: request.offer, reason: .purchase),
                .schedule(.renewal, at: state.expiresDate),
                .notify(.subscribed, .initialBuy),
            ]
        )
    }

    public static func transition(
        _ state: SubscriptionState, _ input: LifecycleInput, _ context: LifecycleContext
    ) -> TransitionResult {
        switch (state.phase, input) {
        // MARK: active
        case (.active, .renewalDue):
            return renewalAttempt(state, context)
        case (.active, .gracePeriodEnds), (.active, .billingRetryEnds):
            return .ignored(because: "no billing failure is running")
        case (.active, .autoRenewDisabled):
            // DID_CHANGE_RENEWAL_STATUS / AUTO_RENEW_DISABLED; access continues to expiresDate, status stays 1
            // (reference §5.8, S-NT, S-TT-RET; A-20).
            if let commitment = state.commitment {
                return setCommitmentAutoRenew(state, commitment, on: false)
            }
            guard state.autoRenew else { return .rejected(.autoRenewAlreadyOff) }
            var next = state
            next.autoRenew = false
            return .changed(next, [.notify(.didChangeRenewalStatus, .autoRenewDisabled)])
        case (.active, .autoRenewEnabled):
            if let commitment = state.commitment { return setCommitmentAutoRenew(state, commitment, on: true) }
            guard !state.autoRenew else { return .rejected(.autoRenewAlreadyOn) }
            var next = state
            next.autoRenew = true
            return .changed(next, [.notify(.didChangeRenewalStatus, .autoRenewEnabled)])
        case (.active, .billingFixed), (.active, .productRestoredToSale):
            return .ignored(because: "the subscription is not failing to renew")
        case (.active, .refunded(let amount, let reason)), (.gracePeriod, .refunded(let amount, let reason)),
            (.billingRetry, .refunded(let amount, let reason)), (.expired, .refunded(let amount, let reason)):
            return refund(state, amount: amount, reason: reason, at: context.now)
        case (.active, .purchasedAgain):
            return .rejected(.changingProductsNotSupported)

        // MARK: billing grace period
        case (.gracePeriod, .renewalDue), (.billingRetry, .renewalDue):
            return .ignored(because: "no renewal is scheduled while a billing failure is running")
        case (.gracePeriod, .gracePeriodEnds):
            // GRACE_PERIOD_EXPIRED, status 3; retry continues; gracePeriodExpiresDate kept (reference §5.5, A-9).
            var next = state
            next.phase = .billingRetry
            return .changed(next, [.notify(.gracePeriodExpired, nil)])
        case (.billingRetry, .gracePeriodEnds):
            return .ignored(because: "the grace period has already ended")
        case (.gracePeriod, .billingRetryEnds), (.billingRetry, .billingRetryEnds):
            return retryExhausted(state, at: context.now)
        case (.gracePeriod, .autoRenewDisabled), (.billingRetry, .autoRenewDisabled):
            if let commitment = state.commitment {
                return setCommitmentAutoRenew(state, commitment, on: false)
            }
            return cancelDuringBillingFailure(state, at: context.now)
        case (.gracePeriod, .autoRenewEnabled), (.billingRetry, .autoRenewEnabled):
            if let commitment = state.commitment { return setCommitmentAutoRenew(state, commitment, on: true) }
            return .rejected(.autoRenewAlreadyOn)
        case (.gracePeriod, .billingFixed), (.billingRetry, .billingFixed):
            guard state.failure?.cause == .billingError, context.productForSale else {
                return .ignored(because: "the renewal is failing because the product is not for sale")
            }
            if let commitment = state.commitment { return recoverCommitment(state, commitment, at: context.now) }
            return recover(state, context)
        case (.gracePeriod, .productRestoredToSale):
            return .ignored(because: "a product-not-for-sale failure never has a grace period")
        case (.billingRetry, .productRestoredToSale):
            guard state.failure?.cause == .productNotForSale else {
                return .ignored(because: "the renewal is failing for a billing problem, not availability")
            }
            if context.paymentSucceeds {
                if let commitment = state.commitment { return recoverCommitment(state, commitment, at: context.now) }
                return recover(state, context)
            }
            // Back on sale but the payment method fails: the same retry window goes on as a billing failure.
            var next = state
            next.failure?.cause = .billingError
            next.endReason = .billingError
            return .changed(next, [])
        case (.gracePeriod, .purchasedAgain), (.billingRetry, .purchasedAgain):
            return .rejected(.purchaseDuringBillingRetry)

        // MARK: expired
        case (.expired, .renewalDue), (.expired, .gracePeriodEnds), (.expired, .billingRetryEnds),
            (.revoked, .renewalDue), (.revoked, .gracePeriodEnds), (.revoked, .billingRetryEnds):
            return .ignored(because: "the subscription has ended; its timers were cancelled")
        case (.expired, .autoRenewDisabled), (.expired, .autoRenewEnabled),
            (.revoked, .autoRenewDisabled), (.revoked, .autoRenewEnabled):
            return .rejected(.subscriptionNotActive(state.phase))
        case (.expired, .billingFixed), (.expired, .productRestoredToSale),
            (.revoked, .billingFixed), (.revoked, .productRestoredToSale):
            return .ignored(because: "the subscription has ended; nothing to recover")
        case (.expired, .purchasedAgain(let request)), (.revoked, .purchasedAgain(let request)):
            return resubscribe(state, request, at: context.now)

        // MARK: revoked
        case (.revoked, .refunded):
            return .rejected(.alreadyRefunded)

        // MARK: changes to another product of the group, or back to the current one
        case (.active, .upgradeRequested(let request)):
            // No introductory offer on a plan change (S-INTRO; rule intro-offer-once-per-group).
            return upgrade(
                state, to: PurchaseRequest(productId: request.productId, period: request.period, plan: request.plan),
                notifying: .didChangeRenewalPref, at: context.now)
        case (.active, .downgradeRequested(let request)):
            return requestDowngrade(state, request)
        case (.active, .currentProductChosen):
            return cancelPendingDowngrade(state)
        case (.gracePeriod, .upgradeRequested), (.gracePeriod, .downgradeRequested),
            (.gracePeriod, .currentProductChosen), (.billingRetry, .upgradeRequested),
            (.billingRetry, .downgradeRequested), (.billingRetry, .currentProductChosen):
            return .rejected(.planChangeDuringBillingFailure)
        case (.expired, .upgradeRequested), (.expired, .downgradeRequested), (.expired, .currentProductChosen),
            (.revoked, .upgradeRequested), (.revoked, .downgradeRequested), (.revoked, .currentProductChosen):
            return .rejected(.subscriptionNotActive(state.phase))

        // MARK: offers for the subscription's own product, and price increases
        case (.active, .offerRedeemed(let redemption)):
            return redeemOnActiveSubscription(state, redemption.offer)
        case (.gracePeriod, .offerRedeemed), (.billingRetry, .offerRedeemed):
            return .rejected(.offerDuringBillingRetry)
        case (.expired, .offerRedeemed(let redemption)):
            return resubscribe(state, redemption.purchase, at: context.now)
        case (.revoked, .offerRedeemed(let redemption)):
            if redemption.offer.type == .winBack { return .rejected(.winBackOnlyAfterExpiry) }
            return resubscribe(state, redemption.purchase, at: context.now)
        case (.active, .priceIncreaseAnnounced(let needsConsent)):
            return announcePriceIncrease(state, needsConsent: needsConsent)
        case (.gracePeriod, .priceIncreaseAnnounced), (.billingRetry, .priceIncreaseAnnounced):
            return .ignored(
                because: "consent is asked only of subscribers in good standing [assumed]; a recovery "
                    + "charges the price then in force")
        case (.expired, .priceIncreaseAnnounced), (.revoked, .priceIncreaseAnnounced):
            return .ignored(because: "the subscription has ended; a resubscription pays the price then in force")
        case (.active, .priceIncreaseConsented):
            guard state.priceIncrease == .pending else { return .rejected(.noPriceIncreasePending) }
            // PRICE_INCREASE / ACCEPTED, priceIncreaseStatus 1 (reference §1.1, §5.12; S-NT, S-ST).
            var next = state
            next.priceIncrease = .accepted
            return .changed(next, [.notify(.priceIncrease, .accepted)])
        case (.gracePeriod, .priceIncreaseConsented), (.billingRetry, .priceIncreaseConsented):
            return .rejected(.noPriceIncreasePending)
        case (.expired, .priceIncreaseConsented), (.revoked, .priceIncreaseConsented):
            return .rejected(.subscriptionNotActive(state.phase))
        // MARK: renewal-date extensions, refund requests and refund reversals
        case (.active, .renewalDateExtended(let request)):
            return extendRenewalDate(state, request)
        case (.gracePeriod, .renewalDateExtended):
            // In grace the expiry (the failed renewal) is always in the past here (S-EXT-INELIG).
            return .rejected(.extensionIneligible("it is in a billing grace period whose expiration date has passed"))
        case (.billingRetry, .renewalDateExtended):
            return .rejected(.extensionIneligible("it is inactive, in billing retry"))
        case (.expired, .renewalDateExtended):
            return .rejected(.extensionIneligible("it has expired"))
        case (.revoked, .renewalDateExtended):
            // [assumed] Apple lists expired subscriptions; a refunded one is no more active than an expired one.
            return .rejected(.extensionIneligible("it was refunded"))
        case (.active, .refundRequested):
            // The App Store turns auto-renew off on a refund request: DID_CHANGE_RENEWAL_STATUS /
            // AUTO_RENEW_DISABLED (reference §1.1, §5.14, A-13; S-NT, S-ST).
            if let commitment = state.commitment {
                // Inside a commitment the request turns off the commitment's renewal only (rule
                // commitment-cancel-stops-only-its-renewal) [assumed: Apple describes the consumption request only].
                guard commitment.autoRenew else { return .ignored(because: "the commitment's renewal is already off") }
                return setCommitmentAutoRenew(state, commitment, on: false)
            }
            guard state.autoRenew else { return .ignored(because: "auto-renew is already off") }
            var next = state
            next.autoRenew = false
            return .changed(next, [.notify(.didChangeRenewalStatus, .autoRenewDisabled)])
        case (.gracePeriod, .refundRequested), (.billingRetry, .refundRequested):
            if let commitment = state.commitment {
                guard commitment.autoRenew else { return .ignored(because: "the commitment's renewal is already off") }
                return setCommitmentAutoRenew(state, commitment, on: false)
            }
            // [assumed] Auto-renew turned off during a billing failure ends the retry, as a cancel does (A-7).
            return cancelDuringBillingFailure(state, at: context.now)
        case (.expired, .refundRequested), (.revoked, .refundRequested):
            return .ignored(because: "auto-renew is already off: the subscription has ended")
        case (.revoked, .refundReversed):
            return reverseRefund(state, at: context.now)
        case (.active, .refundReversed), (.gracePeriod, .refundReversed), (.billingRetry, .refundReversed),
            (.expired, .refundReversed):
            return .rejected(.notRefunded)
        // MARK: offers for another product of the group
        case (.active, .offerUpgradeRedeemed(let redemption)):
            return redeemOfferForUpgrade(state, redemption, at: context.now)
        case (.active, .offerDowngradeRedeemed(let redemption)):
            return redeemOfferForDowngrade(state, redemption)
        case (.gracePeriod, .offerUpgradeRedeemed), (.gracePeriod, .offerDowngradeRedeemed),
            (.billingRetry, .offerUpgradeRedeemed), (.billingRetry, .offerDowngradeRedeemed):
            // As for any offer and any plan change during a billing failure [assumed].
            return .rejected(.offerDuringBillingRetry)
        case (.expired, .offerUpgradeRedeemed), (.expired, .offerDowngradeRedeemed),
            (.revoked, .offerUpgradeRedeemed), (.revoked, .offerDowngradeRedeemed):
            // An ended subscription resubscribes with the offer (`SUBSCRIBED` / `RESUBSCRIBE`, input offerRedeemed);
            // there is no current product to change from (reference §1.1, §5.11).
            return .rejected(.subscriptionNotActive(state.phase))
        }
    }

    // MARK: - Rules

    /// A new subscription. On the monthly plan its billing period is a month and a commitment starts: period 1,
    /// ending one year on (rules commitment-billing-period-is-a-month, commitment-length; reference Appendix E P4-P7).
    static func freshState(_ request: PurchaseRequest, at now: Instant) -> SubscriptionState {
        let period = request.billingPeriod
        let unit = request.offer?.period ?? period.duration
        let offerUse = request.offer.map { OfferUse(offer: $0, periodsRemaining: $0.periods - 1) }
        var state = SubscriptionState(
            productId: request.productId, period: period, phase: .active, autoRenew: true,
            cycle: BillingCycle(anchor: now, unit: unit, periodsElapsed: 1), currentPeriodStart: now,
            currentOffer: offerUse, failure: nil, endReason: nil, isInBillingRetryPeriod: nil,
            gracePeriodExpiresDate: nil)
        if request.plan == .monthly {
            // **commitment-starts-after-free-trial** [assumed]: a free trial on the monthly plan is not billing period
            // 1 (Appendix E O1 leaves it open). The trial runs first, on no plan's commitment (its transaction has no
            // `commitmentInfo`: `billingPeriodNumber` counts the 12 payments, 1 to 12); period 1 of the commitment
            // starts when the trial ends, as a switch to the monthly plan does (rule billing-plan-switch-at-renewal:
            // the monthly plan pending, `renewalBillingPlanType` `MONTHLY` and the monthly price meanwhile), so the 12
            // paid periods fill the commitment's year. Discounted offers (pay as you go, pay up front) are paid
            // billing periods and count from period 1.
            if request.offer?.mode == .freeTrial {
                state.pendingChange = PurchaseRequest(
                    productId: request.productId, period: request.period, offer: nil, plan: .monthly)
            } else {
                state.commitment = .starting(at: now)
            }
        }
        return state
    }

    /// The cycle and offer of the period that follows the current one. Offer periods run on the offer's own unit;
    /// when the offer is used up, the regular cycle is anchored at the offer's end (reference A-1, A-2, §5.11).
    static func followingPeriod(_ state: SubscriptionState) -> (BillingCycle, OfferUse?) {
        let offer = followingOffer(state)
        if let change = state.pendingChange { return (pendingChangePeriod(change, from: state.expiresDate).0, offer) }
        if let current = state.currentOffer, current.periodsRemaining > 0 {
            var cycle = state.cycle
            cycle.periodsElapsed += 1
            return (cycle, offer)
        }
        if let pending = state.pendingOffer {
            // Rule offer-starts-at-next-renewal: a redeemed offer's periods run on their own unit from the renewal.
            return (BillingCycle(anchor: state.expiresDate, unit: pending.period, periodsElapsed: 1), offer)
        }
        if state.currentOffer != nil {
            return (BillingCycle(anchor: state.expiresDate, unit: state.period.duration, periodsElapsed: 1), nil)
        }
        var cycle = state.cycle
        cycle.periodsElapsed += 1
        return (cycle, nil)
    }

    /// The offer of the period that follows the current one: a pending plan change's own offer (rule
    /// offer-for-another-product-downgrade), the current offer's next period (reference §5.11), or a redeemed
    /// offer waiting for the renewal (rule offer-starts-at-next-renewal). ``followingPeriod(_:)``'s offer, without the
    /// calendar arithmetic of its cycle (renewal info asks on every notification; `upcomingOffer`, §2.6).
    static func followingOffer(_ state: SubscriptionState) -> OfferUse? {
        if let change = state.pendingChange {
            return change.offer.map { OfferUse(offer: $0, periodsRemaining: $0.periods - 1) }
        }
        if let current = state.currentOffer, current.periodsRemaining > 0 {
            return OfferUse(offer: current.offer, periodsRemaining: current.periodsRemaining - 1)
        }
        if let pending = state.pendingOffer { return OfferUse(offer: pending, periodsRemaining: pending.periods - 1) }
        return nil
    }

    /// At `expiresDate`: expire after a cancel, fail (product not for sale, or payment), or renew.
    static func renewalAttempt(_ state: SubscriptionState, _ context: LifecycleContext) -> TransitionResult {
        var next = state
        let now = context.now
        if !state.autoRenew {
            // EXPIRED / VOLUNTARY, status 2, expirationIntent 1 (reference §5.8, S-NT, S-EI).
            next.phase = .expired
            next.endReason = .customerCancelled
            return .changed(next, [.notify(.expired, .voluntary)])
        }
        let commitment = state.commitment
        if let commitment, commitment.isLastPeriod, !commitment.autoRenew { return commitmentEnds(state) }
        // Inside a commitment a price increase waits for the commitment's end (rule
        // commitment-price-increase-as-annual).
        if state.priceIncrease == .pending && (commitment?.isLastPeriod ?? true) {
            return expireForUnconsentedPriceIncrease(state)
        }
        if !context.productForSale {
            // Product removed from sale: DID_FAIL_TO_RENEW without subtype, no grace, expirationIntent 4, retry runs
            // 60 days (reference §5.17, Appendix A-8; S-TT-RET, S-EI).
            let failure = BillingFailure(
                failedAt: now, cause: .productNotForSale, graceExpiresAt: nil,
                retryEndsAt: now.adding(CommitmentRules.retryWindow(of: state)))
            next.phase = .billingRetry
            next.failure = failure
            next.endReason = .productNotForSale
            next.isInBillingRetryPeriod = true
            return .changed(
                next,
                [.schedule(.billingRetryEnd, at: failure.retryEndsAt), .notify(.didFailToRenew, nil)])
        }
        if !context.paymentSucceeds {
            // DID_FAIL_TO_RENEW: GRACE_PERIOD when grace applies (status 4), otherwise no subtype (status 3);
            // isInBillingRetryPeriod true in both; expirationIntent 2 (reference §5.2, §5.4; S-NT, S-IBR).
            // Rule commitment-no-grace: none inside a commitment; its retry runs 90 days
            // (commitment-billing-retry-90-days).
            let grace =
                commitment != nil && !CommitmentRules.hasGracePeriod
                ? nil
                : BillingRules.gracePeriod(
                    setting: context.gracePeriod, eligibility: context.graceEligibility, period: state.period,
                    renewingFromFreeTrial: state.currentOffer?.offer.mode == .freeTrial)
            let graceEnd = grace.map { now.adding($0) }
            let failure = BillingFailure(
                failedAt: now, cause: .billingError, graceExpiresAt: graceEnd,
                retryEndsAt: now.adding(CommitmentRules.retryWindow(of: state)))
            next.failure = failure
            next.endReason = .billingError
            next.isInBillingRetryPeriod = true
            var effects: [LifecycleEffect] = []
            if let graceEnd {
                next.phase = .gracePeriod
                next.gracePeriodExpiresDate = graceEnd
                effects.append(.schedule(.gracePeriodEnd, at: graceEnd))
            } else {
                next.phase = .billingRetry
            }
            effects.append(.schedule(.billingRetryEnd, at: failure.retryEndsAt))
            effects.append(.notify(.didFailToRenew, graceEnd == nil ? nil : .gracePeriod))
            return .changed(next, effects)
        }
        if let commitment {
            if !commitment.isLastPeriod { return nextCommitmentPeriod(state, commitment, at: now) }
            if state.pendingChange == nil { return renewCommitment(state, at: now) }
            // The product chosen for after the commitment takes over (E.1.3 E2, rule commitment-downgrade-at-end).
            next.commitment = nil
        }
        // DID_RENEW: new transaction, same originalTransactionId, transactionReason RENEWAL; the new period starts
        // where the old one ended (reference §5.1, A-1; S-EXP, S-TXID, S-TR).
        let (cycle, offer) = followingPeriod(state)
        next.cycle = cycle
        next.currentOffer = offer
        next.currentPeriodStart = now
        takePendingChange(&next, at: now)
        if startsPendingOffer(state) { next.pendingOffer = nil }
        next.priceIncrease = nil
        return .changed(
            next,
            [
                .charge(purchaseDate: now, expiresDate: cycle.currentPeriodEnd, offer: offer?.offer, reason: .renewal),
                .schedule(.renewal, at: cycle.currentPeriodEnd),
                .notify(.didRenew, nil),
            ])
    }

    /// Recovery: DID_RENEW / BILLING_RECOVERY, status 1. Inside grace the billing cycle is kept (the new period ends
    /// one period after the failed renewal); after grace or without grace a new billing date is set at the recovery
    /// instant (reference §5.6; S-CHURN, S-TT-RET; purchaseDate = recovery instant, A-4).
    static func recover(_ state: SubscriptionState, _ context: LifecycleContext) -> TransitionResult {
        var next = state
        let now = context.now
        if state.phase == .gracePeriod {
            let (cycle, offer) = followingPeriod(state)
            next.cycle = cycle
            next.currentOffer = offer
            if startsPendingOffer(state) { next.pendingOffer = nil }
        } else if let pending = state.pendingOffer {
            // A redeemed offer still waiting starts with the new billing date [assumed].
            next.cycle = BillingCycle(anchor: now, unit: pending.period, periodsElapsed: 1)
            next.currentOffer = OfferUse(offer: pending, periodsRemaining: pending.periods - 1)
            next.pendingOffer = nil
        } else if let change = state.pendingChange, change.offer != nil {
            // A downgrade redeemed with an offer starts with the new billing date, with the offer [assumed].
            (next.cycle, next.currentOffer) = pendingChangePeriod(change, from: now)
        } else {
            next.cycle = BillingCycle(
                anchor: now, unit: (state.pendingChange?.billingPeriod ?? state.period).duration, periodsElapsed: 1)
            next.currentOffer = nil
        }
        takePendingChange(&next, at: now)
        next.priceIncrease = nil
        next.phase = .active
        next.currentPeriodStart = now
        next.failure = nil
        next.endReason = nil
        next.isInBillingRetryPeriod = nil
        next.gracePeriodExpiresDate = nil
        return .changed(
            next,
            [
                .cancelAllTimers,
                .charge(
                    purchaseDate: now, expiresDate: next.expiresDate, offer: next.currentOffer?.offer, reason: .renewal),
                .schedule(.renewal, at: next.expiresDate),
                .notify(.didRenew, .billingRecovery),
            ])
    }

    /// 60 days after the failed renewal: EXPIRED / BILLING_RETRY (or PRODUCT_NOT_FOR_SALE), status 2,
    /// isInBillingRetryPeriod false, autoRenewStatus 0 (reference §5.7, §5.17; S-NT, S-CHURN, S-IBR). The renewal
    /// info then follows ``renewalInfoAtEnd(of:at:)``.
    static func retryExhausted(_ state: SubscriptionState, at now: Instant) -> TransitionResult {
        var next = renewalInfoAtEnd(of: state, at: now)
        next.phase = .expired
        next.autoRenew = false
        next.isInBillingRetryPeriod = false
        // "The commitment ends" (E.1.5 B2; A2).
        next.commitment = nil
        let cause = state.failure?.cause ?? .billingError
        next.endReason = cause
        return .changed(
            next,
            [
                .cancelAllTimers,
                .notify(.expired, cause == .productNotForSale ? .productNotForSale : .billingRetry),
            ])
    }

    /// Cancelling during billing retry or grace stops the retry (reference §5.3, Appendix A-7; S-TT-RET,
    /// S-F739756): DID_CHANGE_RENEWAL_STATUS / AUTO_RENEW_DISABLED carrying the state before expiry (status 3, or 4
    /// in grace; autoRenewStatus 0), then at the same instant EXPIRED / BILLING_RETRY (status 2, expirationIntent 2,
    /// isInBillingRetryPeriod false); no GRACE_PERIOD_EXPIRED. A failure caused by the product not being for sale
    /// ends the same way with subtype PRODUCT_NOT_FOR_SALE and expirationIntent 4 [assumed: Apple is silent].
    /// The EXPIRED drops a grace period cut short by the cancel (``renewalInfoAtEnd(of:at:)``).
    static func cancelDuringBillingFailure(_ state: SubscriptionState, at now: Instant) -> TransitionResult {
        var cancelled = state
        cancelled.autoRenew = false
        guard case .changed(let expired, let expiryEffects) = retryExhausted(cancelled, at: now) else {
            return .ignored(because: "unreachable: retryExhausted always changes the state")
        }
        return .changed(
            expired, [.notifyInterim(.didChangeRenewalStatus, .autoRenewDisabled, snapshot: cancelled)] + expiryEffects)
    }

    /// A full refund of the current transaction: REFUND (status 5, autoRenewStatus 0); the subscription ends there:
    /// no DID_CHANGE_RENEWAL_STATUS, renewal or EXPIRED follows (issue 2; reference §5.14, S-NT, S-RT, S-RP). A
    /// refund during grace or billing retry ends the retry too (``renewalInfoAtEnd(of:at:)``).
    static func refund(_ state: SubscriptionState, amount: RefundAmount, reason: Int32, at now: Instant)
        -> TransitionResult
    {
        var next = renewalInfoAtEnd(of: state, at: now)
        next.phase = .revoked
        next.autoRenew = false
        // **commitment-current-refund-ends-it**: a refund of the current period ends the commitment at once (E.1.6
        // F3; A2 "Manage access after a refund"); a refund of an earlier period never reaches this table (F2).
        next.commitment = nil
        return .changed(
            next,
            [.cancelAllTimers, .revokeCurrentTransaction(amount: amount, reason: reason), .notify(.refund, nil)])
    }

    /// **extension-needs-a-paid-active-subscription**, **extend-by-1-to-90-days**, **two-extensions-per-365-days**:
    /// Apple extends a paid, active subscription by 1 to 90 days, at most twice in 365 days; never one in a free
    /// offer period (S-EXT, S-EXT-INELIG; reference §5.13). `RENEWAL_EXTENDED`, status 1; the current transaction is
    /// re-signed with the later `expiresDate` and `renewalDate` moves with it (A-17, §5.13 [inferred]); the next
    /// period runs from the new date. An active subscription with auto-renew off is extended too [assumed: Apple's
    /// list of ineligible states does not name it].
    static func extendRenewalDate(_ state: SubscriptionState, _ request: RenewalExtensionRequest) -> TransitionResult {
        guard (1...BillingRules.maximumExtensionDays).contains(request.days) else {
            return .rejected(.invalidExtendByDays(request.days))
        }
        if state.currentOffer?.offer.mode == .freeTrial {
            return .rejected(.extensionIneligible("it is in a free offer period"))
        }
        guard request.extensionsInPastYear < BillingRules.maximumExtensionsPerYear else {
            return .rejected(.maximumExtensionsReached)
        }
        var next = state
        let newExpiry = state.expiresDate.adding(CalendarDuration(days: request.days))
        next.cycle = BillingCycle(anchor: newExpiry, unit: state.cycle.unit, periodsElapsed: 0)
        // **commitment-extension-shift** [assumed]: Apple is silent on extending a commitment (Appendix E O3); the
        // commitment's end moves by the same days, as after a recovery (rule commitment-recovery-shift).
        if let commitment = state.commitment {
            next.commitment?.expiresDate = commitment.expiresDate.adding(CalendarDuration(days: request.days))
        }
        return .changed(
            next,
            [
                .cancelAllTimers, .extendCurrentTransaction(expiresDate: newExpiry),
                .schedule(.renewal, at: newExpiry), .notify(.renewalExtended, nil),
            ])
    }

    /// **refund-reversal-restores-access**: `REFUND_REVERSED` removes the revocation fields and reinstates the
    /// content; the renewal date does not change (reference §1.1, §5.14; S-NT, S-F757986). Auto-renew, which the
    /// refund turned off, stays off [assumed]: the subscription is active until its `expiresDate` and then expires
    /// (`EXPIRED` / `VOLUNTARY`), or is expired at once if that date has passed (no `EXPIRED` is sent for it
    /// [assumed]).
    static func reverseRefund(_ state: SubscriptionState, at now: Instant) -> TransitionResult {
        var next = state
        next.autoRenew = false
        var effects: [LifecycleEffect] = [.cancelAllTimers, .restoreCurrentTransaction]
        if state.expiresDate > now {
            next.phase = .active
            next.endReason = nil
            effects.append(.schedule(.renewal, at: state.expiresDate))
        } else {
            next.phase = .expired
            next.endReason = .customerCancelled
        }
        effects.append(.notify(.refundReversed, nil))
        return .changed(next, effects)
    }

    /// **renewal-info-agrees-with-status**: the renewal fields of a subscription that ends now (EXPIRED of any
    /// subtype, status 2; REFUND or REVOKE, status 5), so that they agree with the status in that notification and
    /// everywhere after (status API, members' chains):
    /// - `isInBillingRetryPeriod` `true` becomes `false`: Apple has stopped trying to collect. `false` once retry has
    ///   ended is documented (reference §2.6, §5.7; S-IBR, S-CHURN); that a refund or REVOKE ends it too is
    ///   **[assumed]** (a revoked subscription is never renewed, §5.14). Absent (no billing failure) stays absent.
    /// - `gracePeriodExpiresDate` still ahead of `now` is removed: the grace was cut short (a cancel, refund or REVOKE
    ///   during grace), and the field is present only "while in grace" (reference §2.6; StoreKit
    ///   `RenewalInfo.gracePeriodExpirationDate` is nil outside grace, S-GPED). Removing it rather than moving it to
    ///   `now` is **[assumed]**: Apple defines the value as the failed renewal plus the grace length (§5.4) and
    ///   sends no other. A grace that ran its full course keeps its past date (Appendix A-9, open question B-10:
    ///   matches S-F728090 and S-CHURN).
    public static func renewalInfoAtEnd(of state: SubscriptionState, at now: Instant) -> SubscriptionState {
        var next = state
        if next.isInBillingRetryPeriod == true { next.isInBillingRetryPeriod = false }
        if let grace = next.gracePeriodExpiresDate, grace > now { next.gracePeriodExpiresDate = nil }
        return next
    }

    /// After expiry (or a refund), buying any product of the group: SUBSCRIBED / RESUBSCRIBE, same
    /// originalTransactionId (reference §5.9, A-18; S-NT).
    static func resubscribe(_ state: SubscriptionState, _ request: PurchaseRequest, at now: Instant)
        -> TransitionResult
    {
        let next = freshState(request, at: now)
        return .changed(
            next,
            [
                .cancelAllTimers,
                .charge(purchaseDate: now, expiresDate: next.expiresDate, offer: request.offer, reason: .purchase),
                .schedule(.renewal, at: next.expiresDate),
                .notify(.subscribed, .resubscribe),
            ])
    }
}
