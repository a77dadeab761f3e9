/// Limits and codes of renewal-date extensions and refund requests (issue 14, items 4 and 5). Each constant is one
/// named rule; reference = `shared/reference/app-store-behaviour.md`.
extension BillingRules {
    /// **extend-by-1-to-90-days**: `extendByDays` is at most 90 (S-EXT; reference §5.13). A value outside 1...90 is
    /// `InvalidExtendByDaysError` (4000009).
    public static let maximumExtensionDays = 90
    /// **two-extensions-per-365-days**: at most two extensions of one subscription within 365 days (S-EXT,
    /// S-EXT-INELIG; reference §5.13); a third is `SubscriptionMaxExtensionError` (4030005).
    public static let maximumExtensionsPerYear = 2
    /// The window the extension limit counts over.
    public static let extensionLimitWindow = CalendarDuration.days(365)
    /// **consumption-information-within-12-hours**: the developer answers a `CONSUMPTION_REQUEST` with Send
    /// Consumption Information within 12 hours of the notification (Apple's Send Consumption Information
    /// documentation, S-CONS; reference §5.14).
    public static let consumptionInformationDeadline = CalendarDuration.hours(12)
}

/// `consumptionRequestReason` in a `CONSUMPTION_REQUEST` (reference §2.4; S-DATA, library
/// `ConsumptionRequestReason`).
public enum ConsumptionRequestReason: String, Hashable, Sendable, CaseIterable {
    case unintendedPurchase = "UNINTENDED_PURCHASE"
    case fulfillmentIssue = "FULFILLMENT_ISSUE"
    case unsatisfiedWithPurchase = "UNSATISFIED_WITH_PURCHASE"
    case legal = "LEGAL"
    case other = "OTHER"
}

/// `refundPreference` in Send Consumption Information v2 (reference Appendix D; library `RefundPreference`).
public enum RefundPreference: String, Hashable, Sendable, CaseIterable {
    case decline = "DECLINE"
    case grantFull = "GRANT_FULL"
    case grantProrated = "GRANT_PRORATED"
}

/// `extendReasonCode` (library `ExtendReasonCode`): 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue
/// or outage. Not carried by any notification; kept with the extension for the record.
public enum ExtendReasonCode: Int32, Hashable, Sendable, CaseIterable {
    case undeclared = 0
    case customerSatisfaction = 1
    case other = 2
    case serviceIssueOrOutage = 3
}

/// How much of a transaction's price a refund returns.
public enum RefundAmount: Hashable, Sendable {
    /// `REFUND_FULL`, `revocationPercentage` 100000.
    case full
    /// `REFUND_PRORATED` with `revocationPercentage` in milliunits (1 to 99999: 50000 is 50 %).
    case prorated(milliPercent: Int32)
    /// `REFUND_PRORATED` whose `revocationPercentage` follows from the time left in the refunded period (rule
    /// prorated-refund-by-time-remaining, ``BillingRules/proratedRefundPercentage(purchaseDate:expiresDate:at:)``).
    case proratedByTimeRemaining
}

extension BillingRules {
    /// **prorated-refund-by-time-remaining**: for an auto-renewable subscription Apple's prorated refund is "based on
    /// time remaining in the subscription period" (StoreKit `Transaction.revocationPercentage`, S-SKRP), and
    /// `revocationPercentage` is the percentage "rounded to three decimal places of precision, and is expressed as an
    /// integer, in milliunits" (int32; 100 % is 100000, 67.932 % is 67932; S-RP,
    /// appstoreservernotifications/revocationpercentage). So: the share of the period from `purchaseDate` to
    /// `expiresDate` still ahead at `now`, in thousandths of a percent, rounded half up. `nil` when no time remains
    /// (the period has ended) or the period is empty. The millisecond is the unit of time [assumed: Apple does not
    /// say how it measures the time remaining].
    public static func proratedRefundPercentage(purchaseDate: Instant, expiresDate: Instant, at now: Instant)
        -> Int32?
    {
        let total = expiresDate.millisecondsSince1970 - purchaseDate.millisecondsSince1970
        let remaining = min(expiresDate.millisecondsSince1970 - now.millisecondsSince1970, total)
        guard total > 0, remaining > 0 else { return nil }
        return Int32((remaining * 200_000 + total) / (2 * total))
    }
}

/// Apple's answer to a refund request, at the instant the caller gives.
public enum RefundDecision: Hashable, Sendable {
    /// `REFUND`.
    case grant(RefundAmount)
    /// `REFUND_DECLINED`.
    case decline
}

extension LifecycleRuleViolation {
    /// Whether the violation is one of the states Apple's `SubscriptionExtensionIneligibleError` page lists as not
    /// eligible for a renewal-date extension (S-EXT-INELIG: a free offer period, inactive billing retry, a grace
    /// period whose expiration date has passed, two extensions within the past 365 days, expired; a refunded
    /// subscription counts as expired [assumed]). A mass extension skips such a subscription (rule
    /// mass-extension-extends-eligible-only).
    public var makesExtensionIneligible: Bool {
        switch self {
        case .extensionIneligible, .maximumExtensionsReached: return true
        default: return false
        }
    }
}
