/// The paths an expected notification's `fields` may name: every field Apple documents for the notification payload
/// (`responseBodyV2DecodedPayload`), its `data`, the decoded transaction (`JWSTransactionDecodedPayload`, written
/// `transaction.X`) and the decoded renewal info (`JWSRenewalInfoDecodedPayload`, written `renewal.X`); reference
/// §2.3–§2.6. A field Apple documents but this simulator does not send yet is still a known path: the expectation
/// then fails at run time saying the payload has no such field. Anything else is a typo, refused when the scenario
/// is read.
public enum ExpectedFieldPaths {
    static let topLevel = [
        "notificationType", "subtype", "notificationUUID", "version", "signedDate", "data", "summary",
        "externalPurchaseToken",
    ]
    static let data = [
        "appAppleId", "bundleId", "bundleVersion", "environment", "status", "signedTransactionInfo",
        "signedRenewalInfo", "consumptionRequestReason",
    ]
    static let transaction = [
        "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
        "subscriptionGroupIdentifier", "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity", "type",
        "inAppOwnershipType", "appAccountToken", "signedDate", "revocationDate", "revocationReason", "revocationType",
        "revocationPercentage", "isUpgraded", "offerType", "offerIdentifier", "offerDiscountType", "offerPeriod",
        "environment", "storefront", "storefrontId", "transactionReason", "price", "currency", "appTransactionId",
        // A 12-month commitment's fields (TransactionCommitmentInfo; reference Appendix E.2).
        "billingPlanType", "commitmentInfo", "commitmentInfo.billingPeriodNumber", "commitmentInfo.totalBillingPeriods",
        "commitmentInfo.commitmentExpiresDate", "commitmentInfo.commitmentPrice",
    ]
    /// `summary`, in `RENEWAL_EXTENSION` / `SUMMARY` (library model `Summary`).
    static let summary = [
        "requestIdentifier", "environment", "appAppleId", "bundleId", "productId", "storefrontCountryCodes",
        "failedCount", "succeededCount",
    ]
    /// `appData`, in `RESCIND_CONSENT` (library model `AppData`), and its decoded `signedAppTransactionInfo` (library
    /// model `AppTransaction`), written `appTransaction.X`.
    static let appData = ["appAppleId", "bundleId", "environment", "signedAppTransactionInfo"]
    static let appTransaction = [
        "receiptType", "appAppleId", "bundleId", "applicationVersion", "versionExternalIdentifier",
        "receiptCreationDate", "originalPurchaseDate", "originalApplicationVersion", "deviceVerification",
        "deviceVerificationNonce", "preorderDate", "appTransactionId", "originalPlatform",
    ]
    static let renewal = [
        "originalTransactionId", "productId", "autoRenewProductId", "autoRenewStatus", "expirationIntent",
        "isInBillingRetryPeriod", "gracePeriodExpiresDate", "priceIncreaseStatus", "offerType", "offerIdentifier",
        "offerDiscountType", "offerPeriod", "renewalPrice", "currency", "renewalDate", "recentSubscriptionStartDate",
        "eligibleWinBackOfferIds", "appAccountToken", "appTransactionId", "signedDate", "environment",
        // A 12-month commitment's fields (RenewalCommitmentInfo; reference Appendix E.2).
        "renewalBillingPlanType", "commitmentInfo", "commitmentInfo.commitmentAutoRenewProductId",
        "commitmentInfo.commitmentAutoRenewStatus", "commitmentInfo.commitmentRenewalBillingPlanType",
        "commitmentInfo.commitmentRenewalDate", "commitmentInfo.commitmentRenewalPrice",
    ]

    /// Every path in the forms scenario files write: `transaction.X`, `renewal.X`, `data.X`, and top-level names.
    /// (`data.signedTransactionInfo.X` and `data.signedRenewalInfo.X`, the long forms, are accepted too.)
    public static let all: [String] =
        topLevel + data.map { "data." + $0 } + transaction.map { "transaction." + $0 } + renewal.map { "renewal." + $0 }
        + summary.map { "summary." + $0 } + ["appData"] + appData.map { "appData." + $0 }
        + appTransaction.map { "appTransaction." + $0 }

    static let known: Set<String> = Set(
        all + transaction.map { "data.signedTransactionInfo." + $0 } + renewal.map { "data.signedRenewalInfo." + $0 }
            + appTransaction.map { "appData.signedAppTransactionInfo." + $0 })

    public static func isKnown(_ path: String) -> Bool { known.contains(path) }

    /// Why `path` is refused, with the closest known path; nil when it is known.
    public static func problem(with path: String) -> String? {
        guard !isKnown(path) else { return nil }
        let hint = Suggestions.closest(to: path, among: all).map { "; did you mean '\($0)'?" } ?? ""
        let owners = [
            ("transaction.", "the decoded signedTransactionInfo (JWSTransactionDecodedPayload)"),
            ("renewal.", "the decoded signedRenewalInfo (JWSRenewalInfoDecodedPayload)"),
            ("data.", "the notification's data"),
            ("summary.", "the notification's summary"),
            ("appData.", "the notification's appData (RESCIND_CONSENT)"),
            ("appTransaction.", "the decoded signedAppTransactionInfo (AppTransaction)"),
        ]
        if let (prefix, owner) = owners.first(where: { path.hasPrefix($0.0) }) {
            return "unknown field path '\(path)': \(owner) has no field '\(path.dropFirst(prefix.count))'\(hint)"
        }
        return
            "unknown field path '\(path)': expected data.X, transaction.X, renewal.X, summary.X or a top-level field ("
            + topLevel.joined(separator: ", ") + ")\(hint)"
    }
}

/// The YAML `status:` expectation accepts Apple's code or the ``SubscriptionPhase`` name Swift code uses for it, so
/// a scenario and a Swift test say the same thing: `gracePeriod` and `4` are one status.
public enum ExpectedStatus {
    /// The names, in code order (1...5).
    public static let names = SubscriptionPhase.allCases.sorted { $0.statusCode < $1.statusCode }.map { "\($0)" }

    /// The code for a ``SubscriptionPhase`` name; nil for anything else.
    public static func code(named name: String) -> Int? {
        SubscriptionPhase.allCases.first { "\($0)" == name }?.statusCode
    }
}
