/// The `viewCancellation` action (docs/server.md, "Retention Messaging"): a customer opens a subscription's
/// cancellation page, and Apple asks the developer's Get Retention Message endpoint which retention message to show.
/// The store records the request Apple would send; the front end that has a realtime URL (`simctl serve`) makes the
/// request, measures it and records the outcome (``recordCancellationOutcome(_:outcome:httpStatus:elapsedMilliseconds:url:)``).
/// No network here: the store only records.
extension SimulatedStore {
    /// Every cancellation-page view, in the order made, with its outcome once answered.
    public var cancellationViews: [CancellationView] { serverRequests.cancellationViews }

    /// The customer views the cancellation page of their first subscription of `productId` (nil: any) they bought
    /// (rule retention-view-needs-renewing-subscription; the request's ids: rule retention-ids), in
    /// ``ServerRequestRecords/cancellableSubscription(among:productId:customer:)`` and
    /// ``ServerRequestRecords/nextCancellationRequest(about:appAppleId:locale:seed:epoch:environment:at:)``.
    @discardableResult
    public mutating func viewCancellation(_ productId: String?, by customer: String, locale: String)
        throws(StoreError) -> RealtimeRequest
    {
        guard customers.contains(customer) else { throw .unknownCustomer(customer) }
        let appAppleId = try ServerRequestRecords.requireAppAppleId(app.appAppleId)
        let subscription = try ServerRequestRecords.cancellableSubscription(
            among: subscriptions(for: customer), productId: productId, customer: customer)
        let request = serverRequests.nextCancellationRequest(
            about: subscription, appAppleId: appAppleId, locale: locale, seed: ids.seed, epoch: ids.epoch,
            environment: app.environment, at: now)
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
