/// A price in a currency (the monthly price a commitment keeps, rule commitment-price-increase-at-commitment-renewal).
struct StorefrontPrice: Hashable, Sendable {
    var price: Price
    var currency: String
    var pair: (price: Price, currency: String) { (price, currency) }
}

/// Rule app-account-token-is-a-uuid: `appAccountToken` is a UUID (Apple's `appAccountToken` documentation;
/// `InvalidAppAccountTokenUUIDError` 4000183), written as Apple's payloads write it: lowercase
/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
public enum AppAccountToken {
    /// Why `text` is not a lowercase UUID, or `nil` when it is one.
    public static func problem(with text: String) -> String? {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12],
            groups.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isHexDigit } })
        else {
            return "expected a UUID such as 7e3fb20b-4cdb-47cc-936d-99d65f608138 (8-4-4-4-12 hexadecimal digits)"
        }
        if text != text.lowercased() {
            return "expected lowercase hexadecimal digits, as Apple sends them: \(text.lowercased())"
        }
        return nil
    }
}

/// What Request a Test Notification answers: the `TEST` notification the App Store sends, and the
/// `testNotificationToken` of its `SendTestNotificationResponse` (reference §6.3).
public struct TestNotificationRequest: Hashable, Sendable {
    public var notification: SentNotification
    /// `testNotificationToken`, which Get Test Notification Status takes (see ``SimulatedStore/testNotificationToken(of:)``).
    public var testNotificationToken: String
    /// The notification's `notificationUUID`.
    public var notificationUUID: String { notification.notificationUUID }
}

/// One customer's download of the app, as Apple's `AppTransaction` describes it (JWSAppTransactionDecodedPayload):
/// what Get App Transaction Info signs and what `RESCIND_CONSENT` carries in `appData.signedAppTransactionInfo`. The
/// app's own fields (`receiptType`, `appAppleId`, `bundleId`, the versions) come from ``AppConfiguration`` when the
/// payload is written (`Wire/Payloads.swift`).
public struct AppTransactionRecord: Hashable, Sendable {
    /// `appTransactionId`: the customer's, the same as in their transactions and renewal info.
    public var appTransactionId: String
    /// `originalPurchaseDate`: the customer's first transaction's `purchaseDate`, else the store's start (the app was
    /// downloaded by then) [assumed] (rule app-transaction-of-a-customer).
    public var originalPurchaseDate: Instant
    /// `originalPlatform`.
    public var originalPlatform: PurchasePlatform
    /// `receiptCreationDate`: when the App Store signed it, the store's clock.
    public var receiptCreationDate: Instant
}

extension AppTransactionRecord {
    /// **app-transaction-of-a-customer**: every customer the store knows has downloaded the app: their
    /// `AppTransaction` has their `appTransactionId`, `originalPurchaseDate` the `purchaseDate` of their first
    /// transaction, else the store's start [assumed: the store does not model the download itself],
    /// `originalPlatform` the app's (``AppConfiguration/originalPlatform``) and `receiptCreationDate` now. `nil` for a
    /// customer the store has never met (no `appTransactionId` in `directory`).
    init?(
        of customer: String, directory: CustomerDirectory, transactions: TransactionLog, platform: PurchasePlatform,
        start: Instant, at now: Instant
    ) {
        guard let appTransactionId = directory.appTransactionId(of: customer) else { return nil }
        let first = transactions.first { $0.customer == customer }
        self.init(
            appTransactionId: appTransactionId, originalPurchaseDate: first?.purchaseDate ?? start,
            originalPlatform: platform, receiptCreationDate: now)
    }
}
