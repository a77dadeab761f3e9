import SubscriptionSimulator

/// What `GET /simctl/v1/state` was asked for: one customer (`customer=NAME`), or one page of customers
/// (`limit=N`, `after=NAME`). Rule state-answer-cap (docs/server.md, "The state answer").
struct StateQuery: Equatable, Sendable {
    /// `customer=NAME`: that customer only (a customer the store knows).
    var customer: String?
    /// `limit=N`: customers on the page, 1 to ``SimulatorServer/statePageLimit``.
    var limit = SimulatorServer.statePageDefault
    /// `after=NAME`: the page starts with the customer after NAME (a page's `nextAfter`).
    var after: String?
}

/// `GET /simctl/v1/state`, bounded (rule state-answer-cap): customers in the store's order (the order it first named
/// them: a customer keeps their place and new ones come last, so a walk from page to page meets every customer once
/// even while customers are added), at most ``statePageLimit`` a page and ``statePageBytes`` of them, and at most
/// ``stateListLimit`` entries in each customer's lists, each list's total beside it. The `digest` of a page is the fingerprint of the whole state (every
/// page), the same on every page of one state.
extension SimulatorServer {
    /// Customers on a page when `limit` is not given [assumed: simctl's own endpoint; Apple documents nothing].
    static let statePageDefault = 100
    /// The largest `limit` [assumed].
    static let statePageLimit = 1_000
    /// Bytes of customers (their JSON) a page holds at most: a page ends before the customer that would pass it, and
    /// holds at least one (one customer's bounded lists stay far below it) [assumed].
    static let statePageBytes = 4 << 20
    /// Entries each customer's `entitlements`, `subscriptions` and `transactions` show at most (the first ones; the
    /// latest ones for transactions) [assumed].
    static let stateListLimit = 100

    /// `GET /simctl/v1/state`'s query: `customer=NAME`, a customer the store knows (404 with the known names
    /// otherwise); or `limit=N` (1 to ``statePageLimit``) and `after=NAME` (a customer the store knows: a page's
    /// `nextAfter`). Any other parameter, one given twice, an empty name, a bad limit, an unknown `after`, or
    /// `customer` with `limit` or `after` is 400 with the reason.
    static func stateQuery(_ query: [(name: String, value: String)], _ state: ServerState)
        -> Result<StateQuery, ServerResponse>
    {
        var answer = StateQuery()
        var seen: Set<String> = []
        for item in query {
            guard ["customer", "limit", "after"].contains(item.name) else {
                return .failure(
                    .problem(
                        400,
                        "unknown query parameter '\(shownQuery(item.name))'; state takes customer=NAME, or limit=N "
                            + "and after=NAME"))
            }
            guard seen.insert(item.name).inserted else {
                return .failure(.problem(400, "query parameter '\(item.name)' is given twice"))
            }
            switch item.name {
            case "customer":
                guard !item.value.isEmpty else { return .failure(.problem(400, "customer= needs a customer's name")) }
                answer.customer = item.value
            case "limit":
                guard item.value.count <= 5, item.value.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let value = Int(item.value), (1...statePageLimit).contains(value)
                else {
                    return .failure(
                        .problem(
                            400,
                            "expected `limit` as a whole number from 1 to \(statePageLimit) (customers a page), found "
                                + "'\(shownQuery(item.value))'"))
                }
                answer.limit = value
            default:
                guard state.store.position(ofCustomer: item.value) != nil else {
                    return .failure(
                        .problem(
                            400,
                            "expected `after` as the name of a customer of the store (a page's `nextAfter`), found "
                                + "'\(shownQuery(item.value))'; after a reset, start again without `after`"))
                }
                answer.after = item.value
            }
        }
        if answer.customer != nil, seen.contains("limit") || seen.contains("after") {
            return .failure(
                .problem(
                    400, "customer=NAME answers one customer: it takes no `limit` or `after` (those page the rest)"))
        }
        if let customer = answer.customer, state.store.position(ofCustomer: customer) == nil {
            let known = state.store.customers.prefix(20).joined(separator: ", ")
            return .failure(
                .problem(
                    404,
                    "no customer named '\(shownQuery(customer))'; the store's customers are: "
                        + (known.isEmpty ? "(none)" : known) + (state.store.customers.count > 20 ? ", …" : "")))
        }
        return .success(answer)
    }

    /// `GET /simctl/v1/state`: the clock, the app, one page of customers (or the one asked for) with entitlements,
    /// subscriptions and transactions, counts, the next timeline entry, `nextAfter` when customers follow the page,
    /// and `digest`. Without `customer=`, the digest is a fingerprint of the page's other members and of every
    /// customer of every page (equal digests: nothing observable changed; the same digest on every page of one
    /// state). With `customer=NAME`, it is a fingerprint of the answer and of the server's version (as before paging).
    func stateAnswer(_ state: ServerState, _ query: StateQuery = StateQuery(), pageBytes: Int = statePageBytes)
        -> String
    {
        let store = state.store
        var o = clockJSON(state)
        o["start"] = .string(configuration.scenario.start.description)
        o["scenario"] = .string(configuration.scenario.name)
        o["bundleId"] = .string(store.app.bundleId)
        o["environment"] = .string(store.app.environment.rawValue)
        o["seed"] = .string(String(configuration.scenario.seed))
        o["epoch"] = .integer(Int64(state.epoch))
        o["customerCount"] = .integer(Int64(store.customers.count))
        o["notificationsSent"] = .integer(Int64(state.records.count))
        o["transactionCount"] = .integer(Int64(store.transactions.count))
        o["deliveryAttempts"] = .integer(Int64(state.delivery?.log.count ?? 0))
        o["testNotifications"] = .integer(Int64(state.testTokens.count))
        o["resends"] = .integer(Int64(state.resends.count))
        o["timelineEntriesLeft"] = .integer(Int64(state.driver.remainingEntries))
        if let entry = state.driver.next {
            o["nextTimelineEntry"] = .object([
                "at": .string(entry.at.description), "action": .string(entry.action.name),
            ])
        }
        let families = Self.familyGroups(store)
        if let only = query.customer {
            let known = store.position(ofCustomer: only) != nil
            o["customers"] = .array(known ? [Self.customerJSON(only, store, families)] : [])
            let digestInput = CanonicalJSON.string(.object(o)) + String(state.version)
            o["digest"] = .string(String(Self.fingerprint(digestInput), radix: 16))
            return CanonicalJSON.string(.object(o))
        }
        // The page's customers, each written once: its text gives its size and goes into the answer as it is.
        let names = store.customers
        let start = query.after.flatMap { store.position(ofCustomer: $0) }.map { $0 + 1 } ?? 0
        var index = start
        var page: [String] = []
        var bytes = 0
        while index < names.count, page.count < query.limit {
            let customer = CanonicalJSON.string(Self.customerJSON(names[index], store, families))
            // The page ends before the customer that would take it past its bytes (never empty).
            if !page.isEmpty, bytes + customer.utf8.count > pageBytes { break }
            bytes += customer.utf8.count
            page.append(customer)
            index += 1
        }
        // A page of every customer holds what the fingerprint of every customer reads.
        let whole = start == 0 && index == names.count ? Self.customersFingerprint(page) : nil
        var digestInput =
            CanonicalJSON.string(.object(o)) + String(customersFingerprint(state, known: whole), radix: 16)
        digestInput += String(store.notifications.count) + "/" + String(store.transactions.count)
        if index < names.count, !page.isEmpty { o["nextAfter"] = .string(names[index - 1]) }
        o["digest"] = .string(String(Self.fingerprint(digestInput), radix: 16))
        // `"customers":[]` occurs once in the text (inside a string, a quote is escaped): the page goes there.
        o["customers"] = .array([])
        let text = CanonicalJSON.string(.object(o))
        guard let slot = text.range(of: #""customers":[]"#) else { return text }
        return String(text[..<slot.lowerBound]) + #""customers":["# + page.joined(separator: ",") + "]"
            + String(text[slot.upperBound...])
    }

    /// One customer of the state answer: `customer`, `entitlements`, `subscriptions`, `family` and `transactions`,
    /// each list at most ``stateListLimit`` long (the first entitlements and subscriptions, the latest transactions),
    /// with its total (`entitlementCount`, `subscriptionCount`, `transactionCount`).
    static func customerJSON(_ name: String, _ store: SimulatedStore, _ families: [String: JSONValue]) -> JSONValue {
        let entitlements = store.entitlements(for: name)
        let subscriptions = store.subscriptions(for: name)
        let transactions = store.transactions(for: name)
        return .object([
            "customer": .string(name),
            "entitlements": .array(entitlements.prefix(stateListLimit).map { .string($0) }),
            "entitlementCount": .integer(Int64(entitlements.count)),
            "subscriptions": .array(subscriptions.prefix(stateListLimit).map { subscriptionJSON($0, store) }),
            "subscriptionCount": .integer(Int64(subscriptions.count)),
            "family": families[name] ?? .null,
            "transactions": .array(transactions.suffix(stateListLimit).map { transactionJSON($0, store) }),
            "transactionCount": .integer(Int64(transactions.count)),
        ])
    }

    /// Each customer's family group, `{"organizer", "members"}`, looked up once per answer rather than once per
    /// customer.
    static func familyGroups(_ store: SimulatedStore) -> [String: JSONValue] {
        var families: [String: JSONValue] = [:]
        for family in store.families {
            let group = JSONValue.object([
                "organizer": .string(family.organizer), "members": .array(family.members.map { .string($0) }),
            ])
            for customer in family.everyone { families[customer] = group }
        }
        return families
    }

    /// The fingerprint of every customer as the state's pages show them, in the store's order: the part of every
    /// page's `digest` no single page holds. Made once per version of the state (a change forgets it: ``changed()``),
    /// outside the lock, so polling a large store costs one pass over it per change, not per request; `known`: the
    /// fingerprint a page of every customer already made.
    func customersFingerprint(_ state: ServerState, known: UInt64? = nil) -> UInt64 {
        if let cached = locked({ stateFingerprint }), cached.version == state.version { return cached.value }
        let hash: UInt64
        if let known {
            hash = known
        } else {
            let store = state.store
            let families = Self.familyGroups(store)
            hash = Self.customersFingerprint(
                store.customers.lazy.map { CanonicalJSON.string(Self.customerJSON($0, store, families)) })
        }
        locked {
            // Versions only grow (a reset carries the version on), so an equal version is the same state.
            if self.state.version == state.version { stateFingerprint = (state.version, hash) }
        }
        return hash
    }

    /// FNV-1a 64 of the customers' texts, each followed by a newline (which canonical JSON never holds unescaped).
    static func customersFingerprint(_ customers: some Sequence<String>) -> UInt64 {
        var hash = fingerprint("customers:")
        for customer in customers { hash = fingerprint(customer + "\n", continuing: hash) }
        return hash
    }
}
