/// One price increase with a start date (`raisePrice` with `effective`; `Lifecycle/PriceIncreaseRules.swift`).
public struct ScheduledPriceIncrease: Hashable, Sendable {
    public var productId: String
    /// The storefront (ISO 3166-1 alpha-3) whose own price is raised, or `nil` for the product's base price (every
    /// storefront of its currency).
    public var storefront: String?
    public var oldPrice: Price
    public var newPrice: Price
    /// When it was scheduled (the action's instant) and when it starts (new purchases pay `newPrice` from then on).
    public var scheduledAt: Instant
    public var effective: Instant
    /// Whether subscribers must consent: stated, or worked out by rules price-increase-consent-threshold and
    /// price-increase-once-a-year.
    public var needsConsent: Bool
    /// The billing plan whose price rises: the product's own (up-front) price, or its monthly plan's (rule
    /// commitment-price-increase-at-commitment-renewal).
    public var plan: BillingPlan = .upfront
    /// Whether the start date has passed (the catalogue holds `newPrice`).
    public var started = false
}

/// The store's price increases with a start date, and when each product last rose without consent. Its invariant: at
/// most one increase not yet started per product and storefront scope (rule one-scheduled-price-change); an increase's
/// subscribers are each told once (`told`).
///
/// Held in an array of at most one ``Parts``, empty until a scenario raises a price: a store that never does carries
/// one word for it (the store is copied and moved whole; callgrind per lifecycle).
struct PriceIncreaseSchedule: Hashable, Sendable {
    struct Parts: Hashable, Sendable {
        var increases: [ScheduledPriceIncrease] = []
        /// Per increase, the chains (``ChainID/index``) whose notice is scheduled or sent.
        var told: [Set<Int>] = []
        /// Per increase, the `originalTransactionId`s of the subscriptions told of it (their renewal info shows the
        /// new price before it starts).
        var sent: [Set<String>] = []
        /// How many increases have not started yet.
        var upcoming = 0
        /// Per product and scope (``PriceIncreaseSchedule/scopeKey(_:_:)``), the start of the last increase without
        /// consent (rule price-increase-once-a-year).
        var lastWithoutConsent: [String: Instant] = [:]
    }

    private var storage: [Parts] = []

    /// The schedule; changing it makes its storage.
    var parts: Parts {
        get { storage.first ?? Parts() }
        _modify {
            if storage.isEmpty { storage.append(Parts()) }
            yield &storage[0]
        }
    }

    /// How many increases have not started yet: the renewal info of a subscriber told before the start date shows
    /// the new price (read only while this is not zero).
    var upcoming: Int { storage.isEmpty ? 0 : storage[0].upcoming }

    /// The scope of an increase: its storefront, or the product's currency for its base price; the monthly plan's
    /// price is a scope of its own.
    static func scopeKey(_ productId: String, _ scope: String, plan: BillingPlan = .upfront) -> String {
        plan == .upfront ? productId + " " + scope : productId + " " + scope + " monthly"
    }
}
