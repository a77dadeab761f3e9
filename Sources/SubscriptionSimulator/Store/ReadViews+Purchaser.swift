/// A read view for `simctl serve`'s state answer and dashboard (issue 48): who paid for a subscription.
extension SimulatedStore {
    /// The customer who bought the subscription `originalTransactionId` of `customer`: `customer` itself for one they
    /// purchased, the purchaser whose subscription a family member's share mirrors (reference §4.5); nil when the
    /// customer has no such subscription.
    public func purchaser(of originalTransactionId: String, for customer: String) -> String? {
        for key in chainKeys(of: customer) {
            let chain = subscriptionBook.chains[key.index]
            guard chain.originalTransactionId == originalTransactionId else { continue }
            guard let from = chain.sharedFrom else { return customer }
            return subscriptionBook.chains[from.index].customer
        }
        return nil
    }
}
