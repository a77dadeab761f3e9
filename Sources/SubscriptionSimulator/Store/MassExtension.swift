/// One request to Extend Subscription Renewal Dates for All Active Subscribers while it runs (issue 44, item 1): which
/// subscriptions it considers and what its `summary` counts (reference §2.4, §5.13; S-EXT-MASS). The store facade
/// walks the book, asks this part, runs each extension through the table and sends the notifications.
///
/// Invariants (``isConsistent``): the counts are not negative and `days` is within 1...90 (refused before a request
/// is made, ``check(days:productId:)``).
struct MassExtension: Hashable, Sendable {
    let productId: String
    let days: Int
    let requestIdentifier: String
    /// The storefronts (ISO 3166-1 alpha-3) the request is limited to; empty for all.
    let storefrontCountryCodes: [String]
    /// Purchasers extended (members follow them and are not counted) [assumed: Apple counts "subscriptions"].
    private(set) var succeededCount: Int64 = 0
    /// Purchasers who received `RENEWAL_EXTENSION` / `FAILURE`.
    private(set) var failedCount: Int64 = 0

    /// A request of `days` for `productId`, refused as a whole (Apple's error 4000009, rule extend-by-1-to-90-days)
    /// when `days` is outside 1...``BillingRules/maximumExtensionDays``: then nothing is extended or sent.
    init(productId: String, days: Int, requestIdentifier: String, storefrontCountryCodes: [String]) throws(StoreError) {
        try Self.check(days: days, productId: productId)
        self.productId = productId
        self.days = days
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
    }

    /// Refuses `days` outside 1...90 for the whole request (4000009).
    static func check(days: Int, productId: String) throws(StoreError) {
        guard (1...BillingRules.maximumExtensionDays).contains(days) else {
            throw .lifecycle(.invalidExtendByDays(days), customer: "every subscriber", productId: productId)
        }
    }

    /// Whether the request considers chain `index` of `subscriptions`, whose purchaser shops in `storefront`: a
    /// purchaser's subscription to the product that has not ended
    /// (``SubscriptionBook/massExtensionConsiders(chainAt:of:)``), in one of the request's storefronts when it names
    /// any. `storefront` is read only when the request names storefronts and the chain is otherwise considered.
    func considers(
        chainAt index: Int, in subscriptions: SubscriptionBook, storefront: @autoclosure () -> Storefront
    ) -> Bool {
        subscriptions.massExtensionConsiders(chainAt: index, of: productId)
            && (storefrontCountryCodes.isEmpty || storefrontCountryCodes.contains(storefront().countryCode))
    }

    /// What the request does with one subscription it considers
    /// (``SubscriptionBook/massExtensionStep(_:days:app:at:)``, rule mass-extension-extends-eligible-only).
    enum Step: Hashable, Sendable {
        /// Ineligible: nothing sent, not counted.
        case skip
        /// Marked to fail: `RENEWAL_EXTENSION` / `FAILURE`, counted in `failedCount`.
        case fail
        /// Extended through the table as a single extension is (`RENEWAL_EXTENDED`), counted in `succeededCount`.
        case extend
    }

    /// Rule **mass-extension-extends-eligible-only**: whether a refusal of one subscription's extension skips it (an
    /// ineligible state, S-EXT-INELIG: no notification, not counted) rather than stopping the request.
    static func skips(_ error: StoreError) -> Bool {
        guard case .lifecycle(let violation, _, _) = error else { return false }
        return violation.makesExtensionIneligible
    }

    /// One purchaser extended.
    mutating func noteSucceeded() { succeededCount += 1 }

    /// One purchaser's extension failed (`RENEWAL_EXTENSION` / `FAILURE`).
    mutating func noteFailed() { failedCount += 1 }

    /// Rule **mass-extension-summary**: the `summary` object of `RENEWAL_EXTENSION` / `SUMMARY`, a notification about
    /// the app sent once per request "when the App Store server completes your request" (S-ST `SUMMARY`; reference
    /// §2.4), after every `RENEWAL_EXTENDED` and `FAILURE` of the request. Apple completes the request asynchronously
    /// and does not say how long it takes: the simulator completes it at the instant of the request [assumed].
    /// `succeededCount` counts the purchasers extended (members, who follow them, are not counted) and `failedCount`
    /// those who received `FAILURE` [assumed: Apple counts "subscriptions"].
    var summary: RenewalExtensionSummary {
        RenewalExtensionSummary(
            requestIdentifier: requestIdentifier, productId: productId, storefrontCountryCodes: storefrontCountryCodes,
            succeededCount: succeededCount, failedCount: failedCount)
    }

    /// Whether the invariants above hold.
    var isConsistent: Bool {
        succeededCount >= 0 && failedCount >= 0 && (1...BillingRules.maximumExtensionDays).contains(days)
    }
}
