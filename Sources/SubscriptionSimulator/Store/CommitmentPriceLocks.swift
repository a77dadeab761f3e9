/// Rule **commitment-price-increase-at-commitment-renewal** [inferred] (Appendix E O2: a commitment plan's price
/// changes "follow the same rules as standard annual subscriptions"; A2 "Manage price changes": an annual
/// subscriber pays a new price from the renewal): the monthly price each running commitment keeps after its plan's
/// monthly price rose during it, in the purchaser's storefront currency, until the commitment renews into a new one,
/// which pays the new price. Its purchaser is told of the rise when it is set (rule price-increase-consent);
/// meanwhile `renewalPrice` stays the commitment's price and `commitmentRenewalPrice` is the new one, and without
/// consent the subscription ends at the commitment's end (rule commitment-price-increase-as-annual,
/// `Lifecycle/CommitmentRules.swift`). Up-front subscribers are not reached, nor a commitment followed by the
/// up-front plan (rule price-increase-reaches-its-plan, ``PriceTarget/reachesPlan(of:)``). Empty unless a monthly
/// price rose (the store's charge path reads only ``isEmpty`` then).
///
/// Invariants (``isConsistent``): every lock is keyed by one purchaser and one subscription group
/// (``key(_:_:)``) and has a currency.
struct CommitmentPriceLocks: Hashable, Sendable {
    /// The kept prices, by ``key(_:_:)``.
    private(set) var locks: [String: StorefrontPrice] = [:]

    /// Whether no commitment keeps a price of its own.
    var isEmpty: Bool { locks.isEmpty }

    /// The key of a purchaser's commitment: the purchaser and the group's identifier (one subscription per group; a
    /// member's share finds its purchaser's).
    static func key(_ purchaser: String, _ groupIdentifier: String) -> String { purchaser + "\u{0}" + groupIdentifier }

    /// The monthly price `purchaser`'s commitment in `group` keeps; `nil` when it keeps none.
    func kept(of purchaser: String, inGroup group: String) -> (price: Price, currency: String)? {
        locks.isEmpty ? nil : locks[Self.key(purchaser, group)]?.pair
    }

    /// Whether `purchaser`'s commitment in `group` keeps a price of its own.
    func keepsPrice(of purchaser: String, inGroup group: String) -> Bool {
        locks[Self.key(purchaser, group)] != nil
    }

    /// Before the plan's monthly price changes: `purchaser`'s running commitment in `group` keeps `price`, unless it
    /// already keeps one (from an earlier rise during the same commitment).
    mutating func keep(_ price: StorefrontPrice, of purchaser: String, inGroup group: String) {
        let key = Self.key(purchaser, group)
        if locks[key] == nil { locks[key] = price }
    }

    /// The monthly price a charge of billing period `period` of `purchaser`'s commitment in `group` bills, as built in
    /// `currency` (the product's): the kept price when the commitment keeps one in that currency; `nil` for the plan's
    /// own price. Period 1 starts a new commitment, which keeps nothing: its lock is dropped.
    mutating func priceForCharge(
        ofPeriod period: Int, of purchaser: String, inGroup group: String, currency: String
    ) -> Price? {
        let key = Self.key(purchaser, group)
        if period == 1 {
            locks[key] = nil
            return nil
        }
        guard let locked = locks[key], locked.currency == currency else { return nil }
        return locked.price
    }

    /// Whether the invariants in the type's documentation hold.
    var isConsistent: Bool {
        locks.allSatisfy { key, price in
            key.unicodeScalars.filter { $0 == "\u{0}" }.count == 1 && !price.currency.isEmpty
        }
    }
}
