/// App Store Server API responses computed from the store: pure reads of its state, each taking a typed query
/// (`Wire/ServerAPIRequests.swift`) and returning Apple's JSON shape (reference §3.2, §3.3; library models
/// `StatusResponse`, `HistoryResponse`, `TransactionInfoResponse`, `RefundHistoryResponse`). JWS are signed at the
/// store's current instant, by `signer` or, when it is `nil`, by the environment's default signer
/// (``SimulatedEnvironment/defaultSigner``). A future HTTP server maps a request's path and query string to these.
extension SimulatedStore {
    /// Apple's page size for history and refund history: "up to 20 transactions".
    public static let historyPageSize = 20

    /// The customer a `transactionId`, `originalTransactionId` or `appTransactionId` belongs to, as the endpoints
    /// taking `{transactionId}` resolve it. `InvalidTransactionIdError` when it is not a decimal id,
    /// `TransactionIdNotFoundError` when no customer has it.
    public func customer(forTransactionId id: String) throws(ServerAPIError) -> String {
        guard !id.isEmpty, id.count <= 40, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidTransactionId
        }
        if let record = transactions.first(where: { $0.transactionId == id || $0.originalTransactionId == id }) {
            return record.customer
        }
        if let customer = customers.first(where: { appTransactionId(of: $0) == id }) { return customer }
        throw .transactionIdNotFound
    }

    /// Get All Subscription Statuses for a customer: one `data` entry per subscription group, with one
    /// `lastTransactions` item per subscription the customer has in it (own and family-shared, S-F731683).
    public func allSubscriptionStatuses(for customer: String, signer: (any PayloadSigner)? = nil)
        -> JSONValue
    {
        allSubscriptionStatuses(for: customer, query: SubscriptionStatusQuery(), signer: signer)
    }

    /// Get All Subscription Statuses with the `status` filter: only subscriptions whose status is listed (all when
    /// the list is empty); a group left with none is omitted [assumed].
    public func allSubscriptionStatuses(
        for customer: String, query: SubscriptionStatusQuery, signer: (any PayloadSigner)? = nil
    ) -> JSONValue {
        let signer = signer ?? app.environment.defaultSigner
        var groups: [String: [JSONValue]] = [:]
        for summary in subscriptions(for: customer)
        where query.statuses.isEmpty || query.statuses.contains(summary.state.phase) {
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
            groups[summary.subscriptionGroupIdentifier, default: []].append(item)
        }
        var o = JSONObjectBuilder()
        o.set("environment", app.environment.rawValue)
        o.set("bundleId", app.bundleId)
        o.set("appAppleId", app.appAppleId)
        o.set(
            "data",
            JSONValue.array(
                groups.keys.sorted().map {
                    .object(["subscriptionGroupIdentifier": .string($0), "lastTransactions": .array(groups[$0]!)])
                }))
        return o.value
    }

    /// The first page of Get Transaction History (v2) for a customer, ascending, unfiltered.
    public func transactionHistory(for customer: String, signer: (any PayloadSigner)? = nil)
        -> JSONValue
    {
        // The default query has no revision, so it cannot be refused.
        (try? transactionHistory(for: customer, query: TransactionHistoryQuery(), signer: signer)) ?? .null
    }

    /// Get Transaction History (v2), `HistoryResponse`: the customer's transactions matching the query, sorted by
    /// last modification (`sort`), at most 20 per page. Pass the returned `revision` with the same query to get the
    /// next page, or, later, what changed since (rule history-revision-is-a-modification-token).
    public func transactionHistory(
        for customer: String, query: TransactionHistoryQuery, signer: (any PayloadSigner)? = nil
    ) throws(ServerAPIError) -> JSONValue {
        try query.validate()
        let after = query.revision.flatMap(HistoryRevision.init(text:))
        let matching = transactions(for: customer).filter { query.matches($0) }
        let (page, revision, hasMore) = Self.page(
            matching, order: query.sort, after: after, key: { ($0.lastModified, $0.modificationSequence) })
        var o = JSONObjectBuilder()
        o.set("revision", revision.text)
        o.set("hasMore", hasMore)
        o.set("bundleId", app.bundleId)
        o.set("appAppleId", app.appAppleId)
        o.set("environment", app.environment.rawValue)
        o.set("signedTransactions", signedTransactions(page, signer: signer))
        return o.value
    }

    /// Get Transaction Info, `TransactionInfoResponse`: `{"signedTransactionInfo": "<JWS>"}` for any of the store's
    /// `transactionId`s, in its latest state.
    public func transactionInfo(transactionId: String, signer: (any PayloadSigner)? = nil)
        throws(ServerAPIError) -> JSONValue
    {
        let signer = signer ?? app.environment.defaultSigner
        guard !transactionId.isEmpty, transactionId.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidTransactionId
        }
        guard let record = transactions.first(where: { $0.transactionId == transactionId }) else {
            throw .transactionIdNotFound
        }
        return .object([
            "signedTransactionInfo": .string(
                JWS.compact(payload: Payloads.transaction(record, app: app, signedDate: now), signer: signer))
        ])
    }

    /// Get Refund History (v2), `RefundHistoryResponse`: the customer's refunded transactions (`revocationType`
    /// `REFUND_FULL`; a Family Sharing revocation is not a refund), ascending by `revocationDate`, at most 20 per
    /// page, with `revision` and `hasMore` as in the transaction history.
    public func refundHistory(
        for customer: String, query: RefundHistoryQuery = RefundHistoryQuery(),
        signer: (any PayloadSigner)? = nil
    ) throws(ServerAPIError) -> JSONValue {
        var after: HistoryRevision?
        if let text = query.revision {
            guard let parsed = HistoryRevision(text: text), parsed.order == .ascending else {
                throw .invalidRequestRevision
            }
            after = parsed
        }
        let refunded = transactions(for: customer).filter { $0.revocation?.isRefund == true }
        let (page, revision, hasMore) = Self.page(
            refunded, order: .ascending, after: after,
            key: { ($0.revocation?.date ?? $0.lastModified, $0.modificationSequence) })
        var o = JSONObjectBuilder()
        o.set("signedTransactions", signedTransactions(page, signer: signer))
        o.set("revision", revision.text)
        o.set("hasMore", hasMore)
        return o.value
    }

    func signedTransactions(_ records: [TransactionRecord], signer: (any PayloadSigner)?) -> JSONValue {
        let signer = signer ?? app.environment.defaultSigner
        return .array(
            records.map {
                .string(JWS.compact(payload: Payloads.transaction($0, app: app, signedDate: now), signer: signer))
            })
    }

    /// One page of `records` in `order` by `key`, after the revision (exclusive), and the revision of its last item.
    static func page(
        _ records: [TransactionRecord], order: HistoryOrder, after: HistoryRevision?,
        key: (TransactionRecord) -> (Instant, Int)
    ) -> (page: [TransactionRecord], revision: HistoryRevision, hasMore: Bool) {
        func revision(_ k: (Instant, Int)) -> HistoryRevision {
            HistoryRevision(order: order, instant: k.0.millisecondsSince1970, sequence: k.1)
        }
        var keyed = records.map { (key: revision(key($0)), record: $0) }
        switch order {
        case .ascending:
            keyed.sort { $0.key < $1.key }
            if let after { keyed.removeAll { !(after < $0.key) } }
        case .descending:
            keyed.sort { $1.key < $0.key }
            if let after { keyed.removeAll { !($0.key < after) } }
        }
        let page = keyed.prefix(historyPageSize)
        let last =
            page.last?.key ?? after
            ?? HistoryRevision(order: order, instant: order == .ascending ? 0 : Int64.max, sequence: 0)
        return (page.map(\.record), last, keyed.count > page.count)
    }
}

extension TransactionHistoryQuery {
    /// Whether a transaction passes the query's filters (`startDate`/`endDate` on `purchaseDate`).
    func matches(_ t: TransactionRecord) -> Bool {
        if let startDate, t.purchaseDate < startDate { return false }
        if let endDate, t.purchaseDate >= endDate { return false }
        if !productIds.isEmpty, !productIds.contains(t.productId) { return false }
        if !productTypes.isEmpty, !productTypes.contains(where: { $0.productType == t.productType }) { return false }
        if !subscriptionGroupIdentifiers.isEmpty {
            guard let group = t.subscriptionGroupIdentifier, subscriptionGroupIdentifiers.contains(group) else {
                return false
            }
        }
        if let inAppOwnershipType, t.ownership != inAppOwnershipType { return false }
        if let revoked, (t.revocation != nil) != revoked { return false }
        return true
    }
}
