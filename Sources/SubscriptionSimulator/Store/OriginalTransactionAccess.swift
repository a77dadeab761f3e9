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

/// The rules of what an id gives (issue 44, item 1): the store facade finds the chain or the transaction the id names,
/// and the read model says what it gives (reference §3.1, §4.5).
extension OriginalTransactionAccess {
    /// What `originalTransactionId` gives at `now`: the chain of `book` that has it, else the one-time purchase of
    /// `ledger` whose transaction and original transaction ids are both it; nil when neither has it.
    init?(of originalTransactionId: String, book: SubscriptionBook, ledger: TransactionLedger, at now: Instant) {
        if let chain = book.chains.first(where: { $0.originalTransactionId == originalTransactionId }) {
            self.init(of: chain)
            return
        }
        let transactions = ledger.transactions
        guard
            let index = transactions.indices.first(where: {
                transactions[$0].transactionId == originalTransactionId
                    && transactions[$0].originalTransactionId == originalTransactionId
            })
        else { return nil }
        // Every subscription transaction belongs to a chain, found above.
        self.init(oneTime: transactions[index], termEnd: ledger.nonRenewingTerms[index], at: now)
    }

    /// What a subscription chain's `originalTransactionId` gives: the purchaser's subscription or a member's share,
    /// granting access while entitled (active or in grace), to its current product.
    init(of chain: SubscriptionChain) {
        self.init(
            originalTransactionId: chain.originalTransactionId, customer: chain.customer,
            kind: chain.ownership == .purchased ? .subscription : .familySharedSubscription,
            grantsAccess: chain.state.isEntitled, productId: chain.state.productId)
    }

    /// What the original transaction `record` of a one-time purchase gives at `now`: a non-consumable (or its family
    /// copy) while not revoked, a non-renewing subscription while within its term (ending at `termEnd`, the ledger's,
    /// `nil` once ended) and not revoked, a consumable never. `nil` for an auto-renewable subscription's transaction
    /// (its chain answers, ``init(of:)``).
    init?(oneTime record: TransactionRecord, termEnd: Instant?, at now: Instant) {
        let revoked = record.revocation != nil
        let kind: Kind
        let grants: Bool
        switch record.productType {
        case .nonConsumable:
            kind = record.ownership == .purchased ? .nonConsumable : .familySharedNonConsumable
            grants = !revoked
        case .consumable:
            kind = .consumable
            grants = false
        case .nonRenewing:
            kind = .nonRenewingSubscription
            grants = !revoked && (termEnd.map { now < $0 } ?? false)
        case .autoRenewable:
            return nil
        }
        self.init(
            originalTransactionId: record.originalTransactionId, customer: record.customer, kind: kind,
            grantsAccess: grants, productId: record.productId)
    }
}
