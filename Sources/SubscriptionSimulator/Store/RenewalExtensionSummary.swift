/// The values of a mass extension's `summary` object (reference §2.4): what Apple reports in
/// `RENEWAL_EXTENSION` / `SUMMARY` when Extend Subscription Renewal Dates for All Active Subscribers completes.
public struct RenewalExtensionSummary: Hashable, Sendable {
    public var requestIdentifier: String
    public var productId: String
    /// `storefrontCountryCodes`: the storefronts the request was limited to (ISO 3166-1 alpha-3), empty for all
    /// (then absent from the `summary` object, rule summary-omits-unrequested-storefronts in `Wire/Payloads.swift`).
    public var storefrontCountryCodes: [String]
    public var succeededCount: Int64
    public var failedCount: Int64
}
