/// Family Sharing rules, each written once and named. Rules marked **[assumed]** are the reference's defaults where
/// Apple is silent (reference Appendix A); they are listed in docs/family-sharing.md.
public enum FamilyRules {
    /// **family-size-limit**: a purchase is shared with up to five other family members: six people in all
    /// (reference §4.2; S-FSA, S-TT-FS).
    public static let maximumFamilySize = 6

    /// **family-delay**: family members receive a *new* purchase of a shareable product only after a delay that
    /// lets the purchaser switch sharing off; Apple's 2020 tech talk gave one hour (reference §4.4, Appendix A-5;
    /// S-TT-FS20, S-RC-DOCS). Exactly one hour is **[assumed]** (Apple says "a delay"; RevenueCat "up to one
    /// hour"). Renewals, opting an existing subscription in, and a member joining have no delay (§4.4).
    public static let defaultFamilyDelay = CalendarDuration.hours(1)

    /// **member-notifications**: what a family member receives when the purchaser receives `type`.
    /// Members get every lifecycle notification except REFUND, REFUND_DECLINED, PRICE_INCREASE (S-WWDC21-SRV,
    /// N-TT-FS) and, **[assumed]** (A-12), REFUND_REVERSED and CONSUMPTION_REQUEST; they get REVOKE instead of
    /// REFUND (S-REVOKECB, S-V1NT). `nil` means the member receives nothing. A member keeps the REVOKE they got when
    /// the purchaser's refund is reversed (A-12 **[inferred]**: every change of a member's access comes with a
    /// notification to the member, and none is sent).
    public static func memberNotification(for type: NotificationType) -> NotificationType? {
        switch type {
        case .refund: return .revoke
        case .refundDeclined, .refundReversed, .priceIncrease, .consumptionRequest: return nil
        case .revoke: return nil  // members' own REVOKE is not fanned out again
        case .subscribed, .didRenew, .didFailToRenew, .gracePeriodExpired, .expired, .didChangeRenewalStatus,
            .didChangeRenewalPref, .offerRedeemed, .renewalExtended, .renewalExtension:
            return type
        case .oneTimeCharge:
            return nil  // members receive a shared non-consumable through its own grant, after the family delay
        case .test, .externalPurchaseToken, .rescindConsent, .metadataUpdate, .migration, .priceChange:
            return nil  // not about a shared purchase
        }
    }

    /// **shareable-types**: only auto-renewable subscriptions and non-consumables can be family shared
    /// (reference §4.1; S-FSA, S-RC-BLOG).
    public static func canBeShared(_ type: ProductType) -> Bool {
        type == .autoRenewable || type == .nonConsumable
    }

    /// What a share of a subscription gives the member when it starts: a member joins the family, the purchaser
    /// switches sharing on (per purchase, or for a product made family shareable), the family delay ends. A held
    /// share asks again each time the purchaser's subscription changes phase.
    public enum ShareStart: Hashable, Sendable {
        /// The member receives their own transaction and `SUBSCRIBED` now.
        case grantNow
        /// **share-held-during-billing-retry**: nothing now; the member receives it at the purchaser's recovery.
        case holdUntilRecovery
        /// The purchaser's subscription has ended: nothing is shared, now or later.
        case nothing
    }

    /// Rules **share-held-during-billing-retry** and **member-grant-during-grace**, by the phase of the purchaser's
    /// subscription when a share starts (or, for a held share, when that phase changes):
    /// - active (status 1): granted now (reference §4.2: members "get access to eligible shared content as soon as
    ///   they are in the group", S-TT-FS; §4.4 for opting in).
    /// - grace (status 4): granted now, `SUBSCRIBED` / `INITIAL_BUY` with status 4: grace keeps access (§3.1, §5.2).
    ///   The member's transaction describes the purchaser's current period (``memberGrantDates(at:purchaserPurchaseDate:purchaserExpiresDate:memberOriginalPurchaseDate:)``).
    /// - billing retry (status 3): **[assumed]** held, not dropped. Billing retry gives no access (§3.1), so the
    ///   member gets nothing then; when the purchaser recovers, the member receives it at that instant as
    ///   `SUBSCRIBED` / `INITIAL_BUY` (status 1, the purchaser's new `expiresDate`) and renews with the family from
    ///   then on; if the subscription expires or is refunded instead, the member never receives it, and a held share
    ///   ends without a REVOKE (nothing was given). Source: seed 000, "each family member will then get instant
    ///   access to the group's subscriptions and content that is eligible for sharing"; reference §4.2, §4.4.
    /// - expired or revoked (status 2, 5): nothing.
    public static func shareStart(purchaserPhase: SubscriptionPhase) -> ShareStart {
        switch purchaserPhase {
        case .active, .gracePeriod: return .grantNow
        case .billingRetry: return .holdUntilRecovery
        case .expired, .revoked: return .nothing
        }
    }

    /// Whether a member whose share of a subscription ends still has the shared subscription to lose, by the phase
    /// their chain mirrors: until it has expired or been revoked (active, grace, billing retry), so the member gets
    /// `REVOKE` (§4.6, A-11); after that, nothing is sent.
    static func memberKeepsAccess(_ memberPhase: SubscriptionPhase) -> Bool {
        switch memberPhase {
        case .active, .gracePeriod, .billingRetry: return true
        case .expired, .revoked: return false
        }
    }

    /// Dates of the transaction a member receives when a share of a subscription reaches them.
    ///
    /// - Inside the purchaser's paid period (`now` before its `expiresDate`): the transaction starts now and ends
    ///   with the purchaser's period; a first share's `originalPurchaseDate` is now too (Appendix A-3, **[assumed]**).
    /// - **member-grant-during-grace** **[assumed]**: during grace the purchaser's period has already lapsed (its
    ///   `expiresDate` is the failed renewal), so starting now would put `purchaseDate` after `expiresDate`, which no
    ///   store sends. The member's transaction mirrors the purchaser's current period instead: `purchaseDate` and,
    ///   for a first share, `originalPurchaseDate` are the purchaser's `purchaseDate`; `expiresDate` is the
    ///   purchaser's. A member who had the share before keeps their `originalPurchaseDate`, and the `purchaseDate`
    ///   is then the later of the two, so that `originalPurchaseDate <= purchaseDate <= expiresDate` always holds
    ///   (rule transaction-dates-in-order). Apple publishes no member transaction (open question B-3).
    public static func memberGrantDates(
        at now: Instant, purchaserPurchaseDate: Instant, purchaserExpiresDate: Instant,
        memberOriginalPurchaseDate: Instant?
    ) -> (originalPurchaseDate: Instant, purchaseDate: Instant) {
        if now < purchaserExpiresDate { return (memberOriginalPurchaseDate ?? now, now) }
        let original = memberOriginalPurchaseDate ?? purchaserPurchaseDate
        return (original, max(purchaserPurchaseDate, original))
    }
}

/// A family group: an organizer and up to five members, in join order.
public struct FamilyGroup: Hashable, Sendable {
    public private(set) var organizer: String
    /// Members other than the organizer, in the order they joined.
    public private(set) var members: [String]

    public init(organizer: String, members: [String] = []) {
        self.organizer = organizer
        self.members = members
    }

    /// The organizer, then the members in join order: the order in which family notifications go out.
    public var everyone: [String] { [organizer] + members }

    /// The organizer and the members.
    public var count: Int { members.count + 1 }

    public func contains(_ customer: String) -> Bool { organizer == customer || members.contains(customer) }

    /// The customer's place in ``everyone`` (0 for the organizer), or nil.
    public func position(of customer: String) -> Int? {
        organizer == customer ? 0 : members.firstIndex(of: customer).map { $0 + 1 }
    }

    mutating func add(_ member: String) { members.append(member) }
    mutating func remove(_ member: String) { members.removeAll { $0 == member } }
}

/// A Family Sharing action the rules forbid. Every case names its rule.
public enum FamilyRuleViolation: Error, Hashable, Sendable, CustomStringConvertible {
    case familyFull(organizer: String)
    case alreadyInAFamily(customer: String)
    case notInAFamily(customer: String)
    case notShareable(productId: String)
    case typeCannotBeShared(productId: String, type: ProductType)
    case alreadyShareable(productId: String)
    case cannotTurnOffFamilySharing(productId: String)
    case sharingAlreadyOn(customer: String, productId: String)
    case sharingAlreadyOff(customer: String, productId: String)
    case mainSwitchAlreadySet(customer: String, enabled: Bool)
    case nothingToShare(customer: String, productId: String)

    public var rule: String {
        switch self {
        case .familyFull: return "family-size-limit"
        case .alreadyInAFamily: return "one-family-per-customer"
        case .notInAFamily: return "leave-needs-a-family"
        case .notShareable: return "sharing-needs-a-shareable-product"
        case .typeCannotBeShared: return "shareable-types"
        case .alreadyShareable: return "make-shareable-once"
        case .cannotTurnOffFamilySharing: return "family-sharing-cannot-be-turned-off"
        case .sharingAlreadyOn: return "start-sharing-needs-sharing-off"
        case .sharingAlreadyOff: return "stop-sharing-needs-sharing-on"
        case .mainSwitchAlreadySet: return "share-with-family-switch"
        case .nothingToShare: return "sharing-needs-a-purchase"
        }
    }

    public var description: String {
        let text: String
        switch self {
        case .familyFull(let organizer):
            text =
                "\(organizer)'s family already has six people (the organizer and five members), the most Family "
                + "Sharing allows"
        case .alreadyInAFamily(let customer):
            text = "\(customer) is already in a family; a customer belongs to at most one family"
        case .notInAFamily(let customer): text = "\(customer) is not in a family"
        case .notShareable(let productId):
            text = "'\(productId)' is not family shareable; use makeFamilyShareable first"
        case .typeCannotBeShared(let productId, let type):
            text =
                "'\(productId)' is a \(type.rawValue) product; only auto-renewable subscriptions and "
                + "non-consumables can be family shareable"
        case .alreadyShareable(let productId): text = "'\(productId)' is already family shareable"
        case .cannotTurnOffFamilySharing(let productId):
            text =
                "Family Sharing for '\(productId)' cannot be turned off once it is on (App Store Connect rule, "
                + "reference §4.1)"
        case .sharingAlreadyOn(let customer, let productId):
            text = "\(customer) already shares '\(productId)' with the family"
        case .sharingAlreadyOff(let customer, let productId):
            text = "\(customer) does not share '\(productId)' with the family"
        case .mainSwitchAlreadySet(let customer, let enabled):
            text = "\(customer)'s Share With Family switch is already \(enabled ? "on" : "off")"
        case .nothingToShare(let customer, let productId):
            text = "\(customer) has no purchase of '\(productId)' to share"
        }
        return "\(text) (rule \(rule))"
    }
}
