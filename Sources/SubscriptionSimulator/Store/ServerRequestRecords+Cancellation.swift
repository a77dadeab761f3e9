/// Which subscription a `viewCancellation` is about and the request Apple would send for it (issue 44, item 1): the
/// records hold the views; the store facade validates the customer and the app, asks this part, and records the view.
extension ServerRequestRecords {
    /// Rule **retention-view-needs-renewing-subscription**: Apple calls the Get Retention Message endpoint "when an
    /// active subscriber views a subscription details page with a Cancel button" (Retention Messaging API). Among
    /// `subscriptions` (the customer's, in chain order) of `productId` (`nil`: any), the first the customer bought (a
    /// family member's share has no Cancel button [assumed]); refused when there is none, or when it is not entitled
    /// (active or in grace) with auto-renew on (the Cancel button [assumed]).
    static func cancellableSubscription(
        among subscriptions: [SubscriptionSummary], productId: String?, customer: String
    ) throws(StoreError) -> SubscriptionSummary {
        let candidates = subscriptions.filter { productId == nil || $0.state.productId == productId }
        guard let subscription = candidates.first(where: { $0.latestTransaction.ownership == .purchased }) else {
            throw .noSubscription(customer: customer, productId: productId ?? "any subscription")
        }
        guard subscription.state.phase.isEntitled, subscription.state.autoRenew else {
            throw .retention(
                "\(customer), \(subscription.state.productId): the cancellation page has a Cancel button only while "
                    + "the subscription is active (or in grace) with auto-renew on (rule "
                    + "retention-view-needs-renewing-subscription)")
        }
        return subscription
    }

    /// The app's `appAppleId`, which Apple's realtime request carries: a `retention` error when the app has none.
    static func requireAppAppleId(_ appAppleId: Int64?) throws(StoreError) -> Int64 {
        guard let appAppleId else {
            throw .retention(
                "viewCancellation needs the app's appAppleId (the scenario's `app: appAppleId:`): Apple's realtime "
                    + "request carries it")
        }
        return appAppleId
    }

    /// The request of the next cancellation-page view, about `subscription`, signed at `now`: rule **retention-ids**,
    /// its `requestIdentifier` derived from `seed`, `epoch` and the view's number (counted from 1); `userLocale` is
    /// `locale`.
    func nextCancellationRequest(
        about subscription: SubscriptionSummary, appAppleId: Int64, locale: String, seed: UInt64, epoch: UInt32,
        environment: SimulatedEnvironment, at now: Instant
    ) -> RealtimeRequest {
        RealtimeRequest(
            originalTransactionId: subscription.originalTransactionId, appAppleId: appAppleId,
            productId: subscription.state.productId, userLocale: locale,
            requestIdentifier: RetentionIdentifiers.derivedUUID(
                seed: seed, epoch: epoch, domain: 0x5649_4557, number: UInt64(cancellationViews.count + 1)),
            signedDate: now, environment: environment)
    }
}
