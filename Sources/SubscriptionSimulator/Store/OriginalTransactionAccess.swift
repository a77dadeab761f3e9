/// What one `originalTransactionId` gives its owner now: the ground truth `simctl check` compares a backend's answer
/// with (docs/check.md, "The contract").
public struct OriginalTransactionAccess: Hashable, Sendable {
    /// What the id identifies.
    public enum Kind: Hashable, Sendable {
        /// A customer's own auto-renewable subscription (one per subscription group).
        case subscription
        /// A family member's share of another customer's subscription (its own ids, reference §4.5).
        case familySharedSubscription
        /// A non-consumable bought by the customer.
        case nonConsumable
        /// A family member's copy of another customer's non-consumable (its own ids, reference §4.5).
        case familySharedNonConsumable
        /// A consumable: never grants lasting access (it is consumed).
        case consumable
        /// A non-renewing subscription: grants access during its term, and no notification marks the term's end.
        case nonRenewingSubscription
    }

    public var originalTransactionId: String
    /// The customer it belongs to (the purchaser, or the family member holding the share).
    public var customer: String
    public var kind: Kind
    /// Whether it grants access now: a subscription or share in the active (1) or billing grace period (4) status;
    /// a non-consumable (or its family copy) not revoked; a non-renewing subscription within its term and not
    /// refunded; never a consumable. The same rule as ``SimulatedStore/entitlements(for:)`` (reference §3.1).
    public var grantsAccess: Bool
    /// The product it gives access to now (for a subscription: the current product, not a downgrade waiting for
    /// the next renewal); the last product when it grants nothing.
    public var productId: String
}
