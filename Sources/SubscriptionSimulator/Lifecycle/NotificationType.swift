/// App Store Server Notifications V2 `notificationType`. Raw values are Apple's wire strings
/// (reference §1.1; S-NT, app-store-server-library `NotificationTypeV2`).
public enum NotificationType: String, Hashable, Sendable, CaseIterable {
    /// `SUBSCRIBED`
    case subscribed = "SUBSCRIBED"
    /// `DID_RENEW`
    case didRenew = "DID_RENEW"
    /// `DID_FAIL_TO_RENEW`
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    /// `GRACE_PERIOD_EXPIRED`
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    /// `EXPIRED`
    case expired = "EXPIRED"
    /// `DID_CHANGE_RENEWAL_STATUS`
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    /// `DID_CHANGE_RENEWAL_PREF`
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    /// `OFFER_REDEEMED`
    case offerRedeemed = "OFFER_REDEEMED"
    /// `PRICE_INCREASE`
    case priceIncrease = "PRICE_INCREASE"
    /// `REFUND`
    case refund = "REFUND"
    /// `REFUND_DECLINED`
    case refundDeclined = "REFUND_DECLINED"
    /// `REFUND_REVERSED`
    case refundReversed = "REFUND_REVERSED"
    /// `CONSUMPTION_REQUEST`
    case consumptionRequest = "CONSUMPTION_REQUEST"
    /// `RENEWAL_EXTENDED`
    case renewalExtended = "RENEWAL_EXTENDED"
    /// `RENEWAL_EXTENSION`
    case renewalExtension = "RENEWAL_EXTENSION"
    /// `REVOKE`
    case revoke = "REVOKE"
    /// `ONE_TIME_CHARGE`
    case oneTimeCharge = "ONE_TIME_CHARGE"
    /// `TEST`
    case test = "TEST"
    /// `EXTERNAL_PURCHASE_TOKEN`
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    /// `RESCIND_CONSENT`
    case rescindConsent = "RESCIND_CONSENT"
    /// `METADATA_UPDATE`
    case metadataUpdate = "METADATA_UPDATE"
    /// `MIGRATION`
    case migration = "MIGRATION"
    /// `PRICE_CHANGE`
    case priceChange = "PRICE_CHANGE"
}

/// Notification `subtype`. Raw values are Apple's wire strings (reference §1.1; S-ST, library `Subtype`).
public enum NotificationSubtype: String, Hashable, Sendable, CaseIterable {
    /// `INITIAL_BUY`
    case initialBuy = "INITIAL_BUY"
    /// `RESUBSCRIBE`
    case resubscribe = "RESUBSCRIBE"
    /// `DOWNGRADE`
    case downgrade = "DOWNGRADE"
    /// `UPGRADE`
    case upgrade = "UPGRADE"
    /// `AUTO_RENEW_ENABLED`
    case autoRenewEnabled = "AUTO_RENEW_ENABLED"
    /// `AUTO_RENEW_DISABLED`
    case autoRenewDisabled = "AUTO_RENEW_DISABLED"
    /// `VOLUNTARY`
    case voluntary = "VOLUNTARY"
    /// `BILLING_RETRY`
    case billingRetry = "BILLING_RETRY"
    /// `PRICE_INCREASE`
    case priceIncrease = "PRICE_INCREASE"
    /// `GRACE_PERIOD`
    case gracePeriod = "GRACE_PERIOD"
    /// `PENDING`
    case pending = "PENDING"
    /// `ACCEPTED`
    case accepted = "ACCEPTED"
    /// `BILLING_RECOVERY`
    case billingRecovery = "BILLING_RECOVERY"
    /// `PRODUCT_NOT_FOR_SALE`
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"
    /// `SUMMARY`
    case summary = "SUMMARY"
    /// `FAILURE`
    case failure = "FAILURE"
    /// `UNREPORTED`
    case unreported = "UNREPORTED"
}

/// Prints Apple's wire string (`DID_RENEW`), in test output too (XCTest and Swift Testing print `description`).
extension NotificationType: CustomStringConvertible {
    public var description: String { rawValue }
}

/// Prints Apple's wire string (`GRACE_PERIOD`), in test output too.
extension NotificationSubtype: CustomStringConvertible {
    public var description: String { rawValue }
}
