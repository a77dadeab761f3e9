/// Prices per storefront and the storefront a scenario's customers default to.
///
/// Rule price-in-storefront-currency: a transaction's `price` and `currency` are the product's price in the
/// purchaser's storefront, in that storefront's currency. Apple documents `currency` as the ISO 4217 code "associated
/// with the price" and `storefront` as the country "associated with the App Store storefront for the purchase"
/// (reference §2.5, S-TX); App Store Connect sets a price per storefront in its currency. A product has its base
/// `price` in its `currency`, which applies in every storefront of that currency, and optional `prices` for other
/// storefronts. A purchase in a storefront where the product has no price is refused with this rule's name.
public enum StorefrontPricing {
    /// The product's price, or the introductory offer's when `offer` is given, and the currency, in `storefront`;
    /// `nil` when the product has no price there. Offer prices are set in the product's `currency` only, so a paid
    /// offer has no price in a storefront of another currency [assumed: per-storefront offer prices are not modelled].
    public static func price(
        of product: Product, offer: IntroductoryOffer? = nil, in storefront: Storefront
    ) -> (price: Price, currency: String)? {
        price(base: product.price, currency: product.currency, prices: product.prices, offer: offer, in: storefront)
    }

    /// The rule on a product's pricing fields: `base` in `productCurrency`, and `prices` by storefront.
    static func price(
        base: Price, currency productCurrency: String, prices: [String: Price], offer: IntroductoryOffer?,
        in storefront: Storefront
    ) -> (price: Price, currency: String)? {
        guard let currency = Storefronts.currency(countryCode: storefront.countryCode) else {
            // A storefront outside the table (library callers may build one): only the base currency is known.
            return offer.map { ($0.price, productCurrency) } ?? (base, productCurrency)
        }
        if currency == productCurrency { return (offer?.price ?? base, currency) }
        if let offer {
            return offer.mode == .freeTrial && prices[storefront.countryCode] != nil ? (.free, currency) : nil
        }
        return prices[storefront.countryCode].map { ($0, currency) }
    }

    /// Rule storefront-from-currency: the storefront a customer without a `storefront` is in. Apple sends
    /// `storefront` on every transaction (reference §2.5), so a scenario priced only in euros cannot default to the
    /// United States. The default is derived from the products' currency when exactly one storefront in
    /// `Catalog/Storefronts.swift` uses it, and USD is the United States (the long-standing default) [assumed];
    /// otherwise (EUR, mixed currencies) the scenario must name a storefront, and this returns `nil`.
    public static func defaultStorefront(forCurrencies currencies: Set<String>) -> Storefront? {
        if currencies.isEmpty || currencies == ["USD"] { return .unitedStates }
        guard currencies.count == 1, let currency = currencies.first else { return nil }
        let codes = storefronts(usingCurrency: currency)
        guard codes.count == 1 else { return nil }
        return Storefronts.storefront(countryCode: codes[0])
    }

    /// The storefronts whose currency is `currency`, sorted.
    public static func storefronts(usingCurrency currency: String) -> [String] {
        Storefronts.knownCountryCodes.filter { Storefronts.currency(countryCode: $0) == currency }
    }

    static func validate(_ product: Product) throws(CatalogError) {
        for code in product.prices.keys.sorted() {
            guard let currency = Storefronts.currency(countryCode: code) else {
                throw .invalid(
                    product.id,
                    "unknown storefront '\(code)' in `prices`; expected an ISO 3166-1 alpha-3 code such as FRA")
            }
            if currency == product.currency {
                throw .invalid(
                    product.id,
                    "`prices` gives \(code), whose currency \(currency) is the product's own: its `price` applies there"
                )
            }
        }
    }
}
