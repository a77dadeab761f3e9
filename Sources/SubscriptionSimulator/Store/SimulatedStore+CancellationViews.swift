/// The `viewCancellation` action (docs/server.md, "Retention Messaging"): a customer opens a subscription's
/// cancellation page, and Apple asks the developer's Get Retention Message endpoint which retention message to show.
/// The store records the request Apple would send; the front end that has a realtime URL (`simctl serve`) makes the
/// request, measures it and records the outcome (``recordCancellationOutcome(_:outcome:httpStatus:elapsedMilliseconds:url:)``).
/// No network here: the store only records.
extension SimulatedStore {
    /// Every cancellation-page view, in the order made, with its outcome once answered.
    public var cancellationViews: [CancellationView] { serverRequests.cancellationViews }

    /// Rule retention-view-needs-renewing-subscription: Apple calls the endpoint "when an active subscriber views a
    /// subscription details page with a Cancel button" (Retention Messaging API); the customer must have bought the
    /// subscription (a family member's share has no Cancel button [assumed]), be entitled (active or in grace), and
    /// have auto-renew on (the Cancel button [assumed]). `productId` nil: the customer's first such subscription.
    /// The request's `requestIdentifier` is derived from the seed, the epoch and the view's number (rule
    /// retention-ids); `signedDate` is the store's clock; `userLocale` is `locale`.
    @discardableResult
    public mutating func viewCancellation(_ productId: String?, by customer: String, locale: String)
        throws(StoreError) -> RealtimeRequest
    {
        guard customers.contains(customer) else { throw .unknownCustomer(customer) }
        guard let appAppleId = app.appAppleId else {
            throw .retention(
                "viewCancellation needs the app's appAppleId (the scenario's `app: appAppleId:`): Apple's realtime "
                    + "request carries it")
        }
        let candidates = subscriptions(for: customer).filter { productId == nil || $0.state.productId == productId }
        guard let subscription = candidates.first(where: { $0.latestTransaction.ownership == .purchased }) else {
            throw .noSubscription(customer: customer, productId: productId ?? "any subscription")
        }
        let product = subscription.state.productId
        guard subscription.state.phase.isEntitled, subscription.state.autoRenew else {
            throw .retention(
                "\(customer), \(product): the cancellation page has a Cancel button only while the subscription is "
                    + "active (or in grace) with auto-renew on (rule retention-view-needs-renewing-subscription)")
        }
        let number = serverRequests.cancellationViews.count + 1
        let request = RealtimeRequest(
            originalTransactionId: subscription.originalTransactionId, appAppleId: appAppleId, productId: product,
            userLocale: locale,
            requestIdentifier: RetentionIdentifiers.derivedUUID(
                seed: ids.seed, epoch: ids.epoch, domain: 0x5649_4557, number: UInt64(number)),
            signedDate: now, environment: app.environment)
        _ = serverRequests.record(CancellationView(customer: customer, request: request))
        return request
    }

    /// Records what came of view `index` (``cancellationViews``).
    public mutating func recordCancellationOutcome(
        _ index: Int, outcome: RetentionOutcome, httpStatus: Int?, elapsedMilliseconds: Int64?, url: String?
    ) {
        serverRequests.recordOutcome(
            of: index, outcome, httpStatus: httpStatus, elapsedMilliseconds: elapsedMilliseconds, url: url)
    }
}
