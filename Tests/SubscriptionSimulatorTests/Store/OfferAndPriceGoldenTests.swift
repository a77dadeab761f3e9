import Testing
@testable import SubscriptionSimulator

/// Exhaustive goldens for offers and price increases: every notification to every customer, family members
/// included, decoded and as POST bodies (decoded by Apple's library in CI), with entitlements and each customer's
/// device view. Regenerate with RECORD=1 and review the diff.
@Suite struct OfferAndPriceGoldenTests {
    typealias Script = @Sendable (inout SimulatedStore) throws -> Void

    /// The offer store with the monthly product family shareable and alice's family (bob).
    static func familyOfferStore() throws -> SimulatedStore {
        var store = makeOfferStore()
        var shared = store.catalog[monthly.id]!
        shared.familyShareable = true
        shared.prices = ["FRA": Price(decimal: "9.99")!]
        try store.catalog.replace(shared)
        try store.setStorefront(Storefronts.storefront(countryCode: "FRA")!, for: "carol")
        try store.createFamily(organizer: "alice", members: ["bob"])
        return store
    }

    static let cases: [(String, Script)] = [
        (
            // Promotional (pay as you go) on an active family subscription, an offer code starting a subscription
            // (free trial), a win-back (pay up front) after a voluntary expiry, a one-time offer code.
            "offers-every-kind",
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.redeemOffer("code.freemonth", for: monthly.id, by: "dave")
                try s.redeemOffer("code.coins", for: coins.id, by: "frank")
                try s.advance(to: at("10d"))
                try s.redeemOffer("retain.halfoff", for: monthly.id, by: "alice")
                try s.cancel(monthly.id, by: "dave")
                try s.advance(to: at("P1M5D"))
                try s.redeemOffer("winback.upfront", for: monthly.id, by: "dave")
                try s.advance(to: at("P5M"))
            }
        ),
        (
            // Consent needed in the United States: alice (family) never answers, dave consents; no consent needed
            // in France: carol.
            "price-increases",
            { s in
                try s.purchase(monthly.id, by: "alice")
                try s.purchase(monthly.id, by: "dave")
                try s.purchase(monthly.id, by: "carol")
                try s.advance(to: at("10d"))
                try s.raisePrice(monthly.id, to: Price(decimal: "12.99")!, consentRequired: true)
                try s.raisePrice(monthly.id, to: Price(decimal: "10.99")!, in: "FRA", consentRequired: false)
                try s.advance(to: at("20d"))
                try s.consentToPriceIncrease(monthly.id, by: "dave")
                try s.advance(to: at("P2M"))
            }
        ),
    ]

    @Test(
        arguments: cases.map {
            GoldenCase(
                $0.0, folder: "Lifecycles", extras: [.entitlements, .deviceView],
                store: { try OfferAndPriceGoldenTests.familyOfferStore() }, $0.1)
        })
    func offerAndPriceCaseMatchesItsGoldens(golden: GoldenCase) throws { try golden.check() }
}
