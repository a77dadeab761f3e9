/// Storefronts by ISO 3166-1 alpha-3 code: Apple's numeric storefront id and the currency prices are shown in.
///
/// Storefront ids are Apple's App Store storefront identifiers (the `X-Apple-Store-Front` values, as reproduced in
/// public tables such as App-Store-Connect-CLI `internal/itunes/storefronts.go`); currencies are each country's
/// App Store currency (euro-area storefronts use EUR). Used to read `_storefront` from `.storekit` files, whose
/// prices carry no currency (storekit-config-format §8).
public enum Storefronts {
    static let table: [String: (id: String, currency: String)] = [
        "USA": ("143441", "USD"), "FRA": ("143442", "EUR"), "DEU": ("143443", "EUR"), "GBR": ("143444", "GBP"),
        "AUT": ("143445", "EUR"), "BEL": ("143446", "EUR"), "FIN": ("143447", "EUR"), "GRC": ("143448", "EUR"),
        "IRL": ("143449", "EUR"), "ITA": ("143450", "EUR"), "LUX": ("143451", "EUR"), "NLD": ("143452", "EUR"),
        "PRT": ("143453", "EUR"), "ESP": ("143454", "EUR"), "CAN": ("143455", "CAD"), "SWE": ("143456", "SEK"),
        "NOR": ("143457", "NOK"), "DNK": ("143458", "DKK"), "CHE": ("143459", "CHF"), "AUS": ("143460", "AUD"),
        "NZL": ("143461", "NZD"), "JPN": ("143462", "JPY"), "HKG": ("143463", "HKD"), "SGP": ("143464", "SGD"),
        "CHN": ("143465", "CNY"), "KOR": ("143466", "KRW"), "IND": ("143467", "INR"), "MEX": ("143468", "MXN"),
        "TWN": ("143470", "TWD"), "IDN": ("143476", "IDR"), "BRA": ("143503", "BRL"), "COL": ("143501", "COP"),
        "ARG": ("143505", "USD"), "CHL": ("143483", "CLP"), "POL": ("143478", "PLN"), "TUR": ("143480", "TRY"),
        "ARE": ("143481", "AED"), "SAU": ("143479", "SAR"), "ZAF": ("143472", "ZAR"), "ISR": ("143491", "ILS"),
        "CZE": ("143489", "CZK"), "HUN": ("143482", "HUF"), "PER": ("143507", "PEN"), "THA": ("143475", "THB"),
        "MYS": ("143473", "MYR"), "PHL": ("143474", "PHP"), "VNM": ("143471", "VND"), "EGY": ("143516", "EGP"),
    ]

    /// The storefront for a country code, or nil when the table does not know it.
    public static func storefront(countryCode: String) -> Storefront? {
        table[countryCode].map { Storefront(countryCode: countryCode, id: $0.id) }
    }

    /// The currency of a storefront, or nil when unknown.
    public static func currency(countryCode: String) -> String? {
        // The default storefront, asked about on every transaction and renewal info: answered without hashing.
        if countryCode == "USA" { return "USD" }
        return table[countryCode]?.currency
    }

    public static var knownCountryCodes: [String] { table.keys.sorted() }
}
