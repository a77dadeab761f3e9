/// The Apple Account fields the customer directory owns (issue 44, item 1): each customer's storefront, their
/// `appTransactionId` and the `appAccountToken` their app supplied.
extension CustomerDirectory {
    /// The customer's storefront: their own, or `default` (the app's).
    @inline(__always)
    func storefront(of customer: String, default: Storefront) -> Storefront {
        storefronts[customer] ?? `default`
    }

    /// Rule **storefront-fixed-per-customer** [assumed: changing the App Store country mid-run is not
    /// modelled]: whether the storefront of the customer at `position` can no longer change, because they have a
    /// subscription or a one-time purchase.
    func storefrontIsFixed(ofCustomerAt position: Int) -> Bool {
        !records[position].chains.isEmpty || !records[position].oneTimePurchases.isEmpty
    }

    /// Puts the customer at `position` in `storefront` (nothing when they are in it, their own or `default`); throws
    /// `storefrontFixed` once it is fixed (rule storefront-fixed-per-customer, ``storefrontIsFixed(ofCustomerAt:)``).
    mutating func setStorefront(_ storefront: Storefront, ofCustomerAt position: Int, default: Storefront)
        throws(StoreError)
    {
        let current = self.storefront(of: names[position], default: `default`)
        if storefront == current { return }
        if storefrontIsFixed(ofCustomerAt: position) {
            throw .storefrontFixed(customer: names[position], storefront: current.countryCode)
        }
        setStorefront(storefront, for: names[position])
    }

    /// The customer's `appTransactionId`: one per Apple Account per app, so each family member has their own
    /// (Notifications 2.15; `Engine/IdentifierSource.swift` gives the format); `nil` for an unknown customer.
    func appTransactionId(of customer: String) -> String? {
        positions[customer].map { records[$0].appTransactionId }
    }

    /// The `appAccountToken` the customer's transactions carry now, if their app supplied one.
    func appAccountToken(of customer: String) -> String? {
        appAccountTokens[customer]
    }
}
