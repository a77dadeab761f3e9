/// App Store Server API responses computed from the store (reference §3.2, §3.3; library `StatusResponse`,
/// `HistoryResponse`). JWS are signed at the store's current instant, by `signer` or, when it is `nil`, by the
/// environment's default signer (``SimulatedEnvironment/defaultSigner``).
extension SimulatedStore {
    /// Get All Subscription Statuses for a customer: one `data` entry per subscription group, with one
    /// `lastTransactions` item per subscription the customer has in it (own and family-shared, S-F731683).
    public func allSubscriptionStatuses(for customer: String, signer: (any PayloadSigner)? = nil) -> JSONValue {
        let signer = signer ?? app.environment.defaultSigner
        var groups: [String: [JSONValue]] = [:]
        var order: [String] = []
        for summary in subscriptions(for: customer) {
            let item: JSONValue = .object([
                "status": .integer(Int64(summary.state.phase.statusCode)),
                "originalTransactionId": .string(summary.originalTransactionId),
                "signedTransactionInfo": .string(
                    JWS.compact(
                        payload: Payloads.transaction(summary.latestTransaction, app: app, signedDate: now),
                        signer: signer)),
                "signedRenewalInfo": .string(
                    JWS.compact(
                        payload: Payloads.renewalInfo(summary.renewal, app: app, signedDate: now), signer: signer)),
            ])
            if groups[summary.subscriptionGroupIdentifier] == nil { order.append(summary.subscriptionGroupIdentifier) }
            groups[summary.subscriptionGroupIdentifier, default: []].append(item)
        }
        var o = JSONObjectBuilder()
        o.set("environment", app.environment.rawValue)
        o.set("bundleId", app.bundleId)
        o.set("appAppleId", app.appAppleId)
        o.set(
            "data",
            JSONValue.array(
                order.sorted().map {
                    .object(["subscriptionGroupIdentifier": .string($0), "lastTransactions": .array(groups[$0]!)])
                }))
        return o.value
    }

    /// Get Transaction History (v2) for a customer: their transactions in ascending order of last modification,
    /// at most 20 per page; pass the returned `revision` to get the next page.
    public func transactionHistory(
        for customer: String, revision: String? = nil, signer: (any PayloadSigner)? = nil
    ) -> JSONValue {
        let signer = signer ?? app.environment.defaultSigner
        let pageSize = 20
        let all = transactions(for: customer).enumerated().sorted {
            ($0.element.lastModified, $0.offset) < ($1.element.lastModified, $1.offset)
        }.map(\.element)
        let start = revision.flatMap(Int.init) ?? 0
        let page = all.dropFirst(start).prefix(pageSize)
        var o = JSONObjectBuilder()
        o.set("revision", String(start + page.count))
        o.set("hasMore", start + page.count < all.count)
        o.set("bundleId", app.bundleId)
        o.set("appAppleId", app.appAppleId)
        o.set("environment", app.environment.rawValue)
        o.set(
            "signedTransactions",
            JSONValue.array(
                page.map {
                    .string(JWS.compact(payload: Payloads.transaction($0, app: app, signedDate: now), signer: signer))
                }))
        return o.value
    }
}
