/// Read views. Each answers for the current virtual instant (after every event at or before `now`), or for an
/// earlier instant from the store's logs. To look ahead, advance a copy: `var later = store; try later.advance(...)`.
extension SimulatedStore {
    /// Product ids the customer is entitled to now, sorted. Ground truth: active and grace give access; billing
    /// retry, expired and revoked do not (reference §3.1); non-consumables until refunded; non-renewing
    /// subscriptions during their term; consumables never (they are consumed).
    public func entitlements(for customer: String) -> [String] {
        directory.positions[customer].map { directory.records[$0].entitlements } ?? []
    }

    /// The customer's place in ``customers`` (the order the store first named them), or nil for a name the store
    /// does not know. A customer keeps their place until the store is made again; new customers come last.
    public func position(ofCustomer customer: String) -> Int? {
        directory.positions[customer]
    }

    /// Product ids the customer was entitled to at `instant`, after every event at or before it. `instant` must not
    /// be later than `now` (events after `now` have not run yet).
    public func entitlements(for customer: String, at instant: Instant) -> [String] {
        precondition(instant <= now, "entitlements(for:at:) looks back only; advance the store to \(instant) first")
        requireHistory("entitlements(for:at:)")
        return emissions.entitlements(of: customer, at: instant)
    }

    /// Notifications sent to one customer, in order.
    public func notifications(for customer: String) -> [SentNotification] {
        requireHistory("notifications(for:)")
        return emissions.notifications(for: customer)
    }

    /// The customer's transactions, in creation order, each in its latest state (refunds and revocations applied).
    public func transactions(for customer: String) -> [TransactionRecord] {
        requireHistory("transactions(for:)")
        return ledger.transactions(of: customer)
    }

    /// The subscription status of a product for a customer at `instant` (default: now): the status the last
    /// notification about it carried. `nil` when the customer never had it.
    public func status(of productId: String, for customer: String, at instant: Instant? = nil) -> SubscriptionPhase? {
        requireHistory("status(of:for:at:)")
        return emissions.status(of: productId, for: customer, at: instant ?? now)
    }

    /// The customer's subscriptions, one per (group, originalTransactionId), with their current state.
    public func subscriptions(for customer: String) -> [SubscriptionSummary] {
        chainKeys(of: customer).map { key in
            let chain = subscriptionBook.chains[key.index]
            return SubscriptionSummary(
                customer: customer, originalTransactionId: chain.originalTransactionId,
                subscriptionGroupIdentifier: chain.groupIdentifier,
                state: chain.state, latestTransaction: ledger.transactions[chain.currentTransactionIndex],
                renewal: renewalSnapshot(of: chain, state: chain.state))
        }
    }
}

/// One subscription as the Get All Subscription Statuses endpoint reports it.
public struct SubscriptionSummary: Hashable, Sendable {
    public var customer: String
    public var originalTransactionId: String
    public var subscriptionGroupIdentifier: String
    public var state: SubscriptionState
    public var latestTransaction: TransactionRecord
    public var renewal: RenewalSnapshot
}
