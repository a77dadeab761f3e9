/// The App Store Server API's reads of one store: pure reads of its state, each taking a typed query
/// (`ServerAPI/ServerAPIRequests.swift`) and returning Apple's JSON shape (reference §3.2, §3.3; library models
/// `StatusResponse`, `HistoryResponse`, `TransactionInfoResponse`, `RefundHistoryResponse`). JWS are signed at the
/// store's current instant, by `signer` or, when it is `nil`, by the environment's default signer
/// (``SimulatedEnvironment/defaultSigner``). `simctl serve` maps a request's path and query string to these
/// (`SimctlServer/Routes.swift`).
///
/// A layer over the store: it takes the store by value (the caller's later changes are not seen) and only reads it:
/// `ServerAPI(store).allSubscriptionStatuses(for: "alice")`.
public struct ServerAPI: Sendable {
    /// The store the responses describe.
    public let store: SimulatedStore
    /// Signs every JWS in the responses; `nil`: the store's environment's default signer.
    public let signer: (any PayloadSigner)?

    /// The reads of `store`, signed by `signer` (`nil`: the environment's default signer).
    public init(_ store: SimulatedStore, signer: (any PayloadSigner)? = nil) {
        self.store = store
        self.signer = signer
    }

    /// Apple's page size for history and refund history: "up to 20 transactions".
    public static let historyPageSize = 20

    /// Rule transaction-id-is-decimal: a `{transactionId}` path parameter is ASCII digits only, at most 40 of them;
    /// anything else is `InvalidTransactionIdError` (4000006), before any lookup. Every endpoint that takes a
    /// `{transactionId}` checks it with this (`simctl serve` before it reads the query string).
    public static func checkTransactionId(_ id: String) throws(ServerAPIError) {
        guard !id.isEmpty, id.count <= 40, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidTransactionId
        }
    }

    /// The customer a `transactionId`, `originalTransactionId` or `appTransactionId` belongs to, as the endpoints
    /// taking `{transactionId}` resolve it. `InvalidTransactionIdError` when it is not a decimal id
    /// (``checkTransactionId(_:)``), `TransactionIdNotFoundError` when no customer has it.
    public func customer(forTransactionId id: String) throws(ServerAPIError) -> String {
        try Self.checkTransactionId(id)
        if let record = store.transactions.first(where: { $0.transactionId == id || $0.originalTransactionId == id }) {
            return record.customer
        }
        if let customer = store.customers.first(where: { store.appTransactionId(of: $0) == id }) { return customer }
        throw .transactionIdNotFound
    }

    /// Rule app-transaction-id-not-supported: the endpoints whose path parameter is a `transactionId` or an
    /// `originalTransactionId` (Get Transaction Info, Send Consumption Information, Finish Transaction, Set App
    /// Account Token, Extend a Subscription Renewal Date), not Apple's `anyTransactionId` (App Store Server API 1.20:
    /// Get All Subscription Statuses, Get Transaction History, Get Refund History, Get App Transaction Info; Apple's
    /// library names those parameters `any_transaction_id`), answer an id no transaction has but a customer's
    /// `appTransactionId` with `AppTransactionIdNotSupportedError` (4000048), and any other unknown id with
    /// `notFound`. Apple's error page names no endpoint; a developer saw Get Transaction Info answer it (Apple
    /// Developer Forums thread 787397); the other endpoints are [assumed] to answer alike.
    func unknownTransactionId(_ id: String, notFound: ServerAPIError = .transactionIdNotFound) -> ServerAPIError {
        store.customers.contains { store.appTransactionId(of: $0) == id } ? .appTransactionIdNotSupported : notFound
    }

    /// Get All Subscription Statuses for a customer: one `data` entry per subscription group, with one
    /// `lastTransactions` item per subscription the customer has in it (own and family-shared, S-F731683).
    public func allSubscriptionStatuses(for customer: String) -> JSONValue {
        allSubscriptionStatuses(for: customer, query: SubscriptionStatusQuery())
    }

    /// Get All Subscription Statuses with the `status` filter: only subscriptions whose status is listed (all when
    /// the list is empty); a group left with none is omitted [assumed].
    public func allSubscriptionStatuses(for customer: String, query: SubscriptionStatusQuery) -> JSONValue {
        let app = store.app
        let now = store.now
        let signer = self.signer ?? app.environment.defaultSigner
        var groups: [String: [JSONValue]] = [:]
        for summary in store.subscriptions(for: customer)
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
    public func transactionHistory(for customer: String) -> JSONValue {
        // The default query has no revision, so it cannot be refused.
        (try? transactionHistory(for: customer, query: TransactionHistoryQuery())) ?? .null
    }

    /// Get Transaction History (v2), `HistoryResponse`: the customer's transactions matching the query, sorted by
    /// last modification (`sort`), at most 20 per page. Pass the returned `revision` with the same query to get the
    /// next page, or, later, what changed since (rule history-revision-is-a-modification-token).
    public func transactionHistory(for customer: String, query: TransactionHistoryQuery) throws(ServerAPIError)
        -> JSONValue
    {
        try transactionHistory(for: customer, query: query) { _ in true }
    }

    /// Get Transaction History with the transactions `include` keeps (v1 leaves finished consumables out).
    func transactionHistory(
        for customer: String, query: TransactionHistoryQuery, include: (TransactionRecord) -> Bool
    ) throws(ServerAPIError) -> JSONValue {
        try query.validate()
        let after = query.revision.flatMap(HistoryRevision.init(text:))
        let matching = store.transactions(for: customer).filter { query.matches($0) && include($0) }
        let (page, revision, hasMore) = Self.page(
            matching, order: query.sort, after: after, key: { ($0.lastModified, $0.modificationSequence) })
        var o = JSONObjectBuilder()
        o.set("revision", revision.text)
        o.set("hasMore", hasMore)
        o.set("bundleId", store.app.bundleId)
        o.set("appAppleId", store.app.appAppleId)
        o.set("environment", store.app.environment.rawValue)
        o.set("signedTransactions", signedTransactions(page))
        return o.value
    }

    /// Get Transaction Info, `TransactionInfoResponse`: `{"signedTransactionInfo": "<JWS>"}` for any of the store's
    /// `transactionId`s, in its latest state.
    public func transactionInfo(transactionId: String) throws(ServerAPIError) -> JSONValue {
        let signer = self.signer ?? store.app.environment.defaultSigner
        try Self.checkTransactionId(transactionId)
        guard let record = store.transactions.first(where: { $0.transactionId == transactionId }) else {
            throw unknownTransactionId(transactionId)
        }
        return .object([
            "signedTransactionInfo": .string(
                JWS.compact(
                    payload: Payloads.transaction(record, app: store.app, signedDate: store.now), signer: signer))
        ])
    }

    /// Get Refund History (v2), `RefundHistoryResponse`: the customer's refunded transactions (`revocationType`
    /// `REFUND_FULL`; a Family Sharing revocation is not a refund), ascending by `revocationDate`, at most 20 per
    /// page, with `revision` and `hasMore` as in the transaction history.
    public func refundHistory(for customer: String, query: RefundHistoryQuery = RefundHistoryQuery())
        throws(ServerAPIError) -> JSONValue
    {
        var after: HistoryRevision?
        if let text = query.revision {
            guard let parsed = HistoryRevision(text: text), parsed.order == .ascending else {
                throw .invalidRequestRevision
            }
            after = parsed
        }
        let refunded = store.transactions(for: customer).filter { $0.revocation?.isRefund == true }
        let (page, revision, hasMore) = Self.page(
            refunded, order: .ascending, after: after,
            key: { ($0.revocation?.date ?? $0.lastModified, $0.modificationSequence) })
        var o = JSONObjectBuilder()
        o.set("signedTransactions", signedTransactions(page))
        o.set("revision", revision.text)
        o.set("hasMore", hasMore)
        return o.value
    }

    /// `records` as a JSON array of signed transaction JWS.
    func signedTransactions(_ records: [TransactionRecord]) -> JSONValue {
        let app = store.app
        let now = store.now
        let signer = self.signer ?? app.environment.defaultSigner
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
