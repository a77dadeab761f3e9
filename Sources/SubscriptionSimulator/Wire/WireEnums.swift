/// Apple's wire values for the domain's enums (reference §2.7). Each mapping is written once, here.
public enum WireValues {
    /// `type`: `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable`, `Non-Renewing Subscription`
    /// (library `Type`).
    public static func productType(_ type: ProductType) -> String {
        switch type {
        case .autoRenewable: return "Auto-Renewable Subscription"
        case .nonConsumable: return "Non-Consumable"
        case .consumable: return "Consumable"
        case .nonRenewing: return "Non-Renewing Subscription"
        }
    }

    /// `inAppOwnershipType`: `PURCHASED` or `FAMILY_SHARED` (S-OWN).
    public static func ownership(_ ownership: Ownership) -> String {
        switch ownership {
        case .purchased: return "PURCHASED"
        case .familyShared: return "FAMILY_SHARED"
        }
    }

    /// `transactionReason`: `PURCHASE` or `RENEWAL` (S-TR).
    public static func transactionReason(_ reason: ChargeReason) -> String {
        switch reason {
        case .purchase: return "PURCHASE"
        case .renewal: return "RENEWAL"
        }
    }

    /// `revocationType`: `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE` (S-RT).
    public static func revocationType(_ kind: RevocationKind) -> String {
        switch kind {
        case .refundFull: return "REFUND_FULL"
        case .familyRevoke: return "FAMILY_REVOKE"
        case .refundProrated: return "REFUND_PRORATED"
        }
    }

    /// `expirationIntent`: 1 customer cancelled, 2 billing error, 3 no consent to a price increase, 4 product not
    /// available (S-EI).
    public static func expirationIntent(_ reason: EndReason) -> Int64 {
        switch reason {
        case .customerCancelled: return 1
        case .billingError: return 2
        case .productNotForSale: return 4
        case .priceIncreaseNotConsented: return 3
        }
    }

    /// `offerType` 1: introductory offer (S-OT).
    public static let introductoryOfferType: Int64 = 1

    /// `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back (reference §2.7, S-OT; library
    /// `OfferType`).
    public static func offerType(_ type: OfferType) -> Int64 {
        switch type {
        case .introductory: return introductoryOfferType
        case .promotional: return 2
        case .offerCode: return 3
        case .winBack: return 4
        }
    }

    /// `priceIncreaseStatus`: 0 the customer has not responded to an increase that needs consent, 1 consented or
    /// notified of one that needs none (reference §2.7, §5.12; library `PriceIncreaseStatus`).
    public static func priceIncreaseStatus(_ consent: PriceIncreaseConsent) -> Int64 {
        switch consent {
        case .pending: return 0
        case .accepted: return 1
        }
    }

    /// `offerDiscountType`: `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`, `ONE_TIME` (library `OfferDiscountType`).
    public static func offerDiscountType(_ mode: IntroductoryOfferMode) -> String {
        switch mode {
        case .freeTrial: return "FREE_TRIAL"
        case .payAsYouGo: return "PAY_AS_YOU_GO"
        case .payUpFront: return "PAY_UP_FRONT"
        case .oneTime: return "ONE_TIME"
        }
    }

    /// `offerPeriod`: the whole duration of the offer in ISO 8601, one period's length times the number of periods
    /// (one month for two periods is `P2M`; Apple's App Store Server API documentation, `offerPeriod`). Free trials
    /// and pay-up-front offers have one period.
    public static func offerPeriod(_ offer: IntroductoryOffer) -> String? {
        // A one-time product's offer code has no period [assumed: Apple defines offerPeriod for subscriptions].
        offer.mode == .oneTime ? nil : offer.totalDuration.description
    }

    /// `autoRenewStatus`: 0 off, 1 on.
    public static func autoRenewStatus(_ on: Bool) -> Int64 { on ? 1 : 0 }

    /// `billingPlanType`, `renewalBillingPlanType`, `commitmentRenewalBillingPlanType`: `BILLED_UPFRONT` or `MONTHLY`
    /// (reference Appendix E R2, E.2; library enums BillingPlanType, RenewalBillingPlanType).
    public static func billingPlanType(_ plan: BillingPlan) -> String {
        switch plan {
        case .upfront: return "BILLED_UPFRONT"
        case .monthly: return "MONTHLY"
        }
    }

    /// **billing-plan-type-on-standard-transactions** [assumed]: whether the transactions of the up-front plan carry
    /// `billingPlanType` `BILLED_UPFRONT`. A1 says every auto-renewable subscription has a billing plan type, but no
    /// real payload of a standard subscription with the field has been seen (reference Appendix E P9, P11, E.4), and
    /// every existing output would change; off until one is. Turning it on changes every golden file once.
    public static let sendsUpfrontBillingPlanType = false

    /// A transaction's `billingPlanType`: `MONTHLY` inside a commitment; `BILLED_UPFRONT` for other auto-renewable
    /// transactions only when ``sendsUpfrontBillingPlanType``; absent for one-time purchases.
    static func billingPlanType(of t: TransactionRecord) -> String? {
        if t.commitment != nil { return billingPlanType(.monthly) }
        return sendsUpfrontBillingPlanType && t.productType == .autoRenewable ? billingPlanType(.upfront) : nil
    }

    /// `version` of every notification payload.
    public static let notificationVersion = "2.0"
}
