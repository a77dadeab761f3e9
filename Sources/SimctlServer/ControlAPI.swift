import SubscriptionSimulator

/// The control API (docs/server-control.openapi.yaml): synchronous and deterministic, in the spirit of Stripe's test
/// clocks. Every call returns when every store event due has run and every delivery attempt due has been made.
/// A rejected request (400, 409) changes nothing: an advance (also the one of an action's later `at`) is tried on a
/// copy first, and only made when it reaches its target (docs/reliability.md, "Refused changes").
extension SimulatorServer {
    /// `POST /simctl/v1/advance` with `{"by": "P1M"}` (the scenario time syntax: 90s, 30m, 1h, 16d, 2w, P1M,
    /// PT1H, ...) or `{"to": "2026-04-01T00:00:00Z"}`.
    func advance(_ request: ServerRequest) -> ServerResponse {
        let members: [String: JSONValue]
        switch Self.jsonObject(request.body) {
        case .failure(let response): return response
        case .success(let object): members = object
        }
        if let unknown = members.keys.sorted().first(where: { $0 != "by" && $0 != "to" }) {
            return .problem(400, "unknown key '\(unknown)' in the advance request; expected one of: by, to")
        }
        return exclusively("POST /simctl/v1/advance", refused: { .problem(409, $0) }) {
            let now = locked { state.store.now }
            let target: Instant
            switch (members["by"], members["to"]) {
            case (let by?, nil):
                guard let text = by.stringValue, let duration = CalendarDurationSyntax.parse(text) else {
                    return .problem(
                        400,
                        "expected `by` as a duration such as 90s, 30m, 1h, 16d, 2w, P1M or PT1H, found \(Self.shown(by))"
                    )
                }
                do throws(InstantRangeError) { target = try now.checkedAdding(duration) } catch {
                    return .problem(400, "`by` (\(text)): \(error)")
                }
            case (nil, let to?):
                guard let text = to.stringValue, let instant = CalendarDurationSyntax.parseInstant(text) else {
                    return .problem(
                        400,
                        "expected `to` as an ISO 8601 UTC instant such as 2026-04-01T00:00:00Z, found \(Self.shown(to))"
                    )
                }
                guard instant.isSupported else {
                    return .problem(400, "`to` (\(text)) is outside the supported range \(InstantRangeError.rangeText)")
                }
                target = instant
            default:
                return .problem(400, "expected exactly one of `by` (a duration) or `to` (an instant)")
            }
            if target < now {
                return .problem(400, "`to` (\(target)) is before the store's clock (\(now)); the clock never goes back")
            }
            var summary = AdvanceSummary()
            // Tried on a copy first: an advance that would stop (a timeline entry the rules refuse, a run limit such
            // as 10,000 renewals of one subscription) is refused with nothing changed and nothing delivered.
            switch trial(to: target) {
            case .failure(let error):
                return locked {
                    var o = clockJSON(state)
                    o["notificationsSent"] = .integer(0)
                    o["deliveryAttempts"] = .integer(0)
                    o["timelineEntriesApplied"] = .integer(0)
                    o["error"] = .string(error.reason + Self.nothingChanged)
                    return .json(409, .object(o))
                }
            case .success(let tried): adopt(tried, summary: &summary)
            }
            // The trial reached the target, so this does too (kept as a guard: the answer would then say so).
            let error = drive(to: target, summary: &summary)
            if summary.cutShortAt != nil { return locked { stoppedAnswer(summary) } }
            let views = answerCancellationViews()
            return locked {
                var o = clockJSON(state)
                if !views.isEmpty { o["cancellationViews"] = .array(views) }
                o["notificationsSent"] = .integer(Int64(summary.notificationsSent))
                o["deliveryAttempts"] = .integer(Int64(summary.deliveryAttempts))
                o["timelineEntriesApplied"] = .integer(Int64(summary.timelineEntries))
                if let error {
                    o["error"] = .string(error)
                    return .json(409, .object(o))
                }
                return .json(200, .object(o))
            }
        }
    }

    /// `POST /simctl/v1/actions` with one timeline action, e.g. `{"purchase": {"customer": "alice", "product":
    /// "pro.monthly"}}`, and an optional `at` (a time counted from the store's clock, default now): the scenario
    /// decoder's vocabulary, checks and messages (400, nothing changes); an action the rules forbid is 409 (nothing
    /// changes, except the advance to a later `at`).
    func perform(_ request: ServerRequest) -> ServerResponse {
        let body: JSONValue
        switch Self.jsonObject(request.body) {
        case .failure(let response): return response
        case .success(let object): body = .object(object)
        }
        return exclusively("POST /simctl/v1/actions", refused: { .problem(409, $0) }) {
            let decoded: Result<TimelineEntry, ServerResponse> = locked {
                do throws(ScenarioError) {
                    return .success(
                        try ScenarioDecoder(file: "request").decodeAction(
                            json: body, now: state.store.now, catalog: state.store.catalog))
                } catch { return .failure(.problem(400, error.message)) }
            }
            let entry: TimelineEntry
            switch decoded {
            case .failure(let response): return response
            case .success(let value): entry = value
            }
            var summary = AdvanceSummary()
            if let problem = locked({ customerProblem(entry) }) { return problem }
            if entry.at > locked({ state.store.now }) {
                // A later `at`: the clock advances first, exactly as `/advance` would, tried on a copy together with
                // the action, so that an advance that would stop, or an action then refused, changes nothing.
                switch trial(to: entry.at, then: entry) {
                case .failure(let error):
                    return locked {
                        var o = clockJSON(state)
                        o["error"] = .string(error.reason + Self.nothingChanged)
                        return .json(409, .object(o))
                    }
                case .success(let tried): adopt(tried, summary: &summary)
                }
                _ = drive(to: entry.at, summary: &summary)
                if summary.cutShortAt != nil { return locked { stoppedAnswer(summary) } }
            }
            let performed: Result<Int, ServerResponse> = locked {
                if let problem = customerProblem(entry) { return .failure(problem) }
                var copy = state.store
                if let customer = entry.action.customer { copy.addCustomer(customer) }
                let before = copy.notifications.count
                do throws(StoreError) { try TimelineDriver.perform(entry.action, on: &copy) } catch {
                    return .failure(
                        .problem(409, TimelineDriver.refusal(of: entry, error, file: "request").message))
                }
                state.store = copy
                changed()
                return .success(before)
            }
            let before: Int
            switch performed {
            case .failure(let response): return response
            case .success(let value): before = value
            }
            _ = drive(to: nil, summary: &summary)
            let views = answerCancellationViews()
            return locked {
                var o = clockJSON(state)
                o["action"] = .string(entry.action.name)
                // A deprecated spelling still runs as written; the answer says so, as `run` does on standard error.
                if let deprecation = entry.deprecation { o["warnings"] = .array([.string(deprecation)]) }
                if !views.isEmpty { o["cancellationViews"] = .array(views) }
                o["notifications"] = .array(
                    state.store.notifications[before...].map { n in
                        var item: [String: JSONValue] = [
                            "notificationType": .string(n.type.rawValue),
                            "notificationUUID": .string(n.notificationUUID),
                        ]
                        if let recipient = n.recipient { item["recipient"] = .string(recipient) }
                        if let subtype = n.subtype { item["subtype"] = .string(subtype.rawValue) }
                        return .object(item)
                    })
                o["deliveryAttempts"] = .integer(Int64(summary.deliveryAttempts))
                return .json(200, .object(o))
            }
        }
    }

    /// Under the lock: the answer of a change the server's shutdown cut short (``beginShutdown()``): 503, the clock
    /// it reached and what it did.
    func stoppedAnswer(_ summary: AdvanceSummary) -> ServerResponse {
        var o = clockJSON(state)
        o["notificationsSent"] = .integer(Int64(summary.notificationsSent))
        o["deliveryAttempts"] = .integer(Int64(summary.deliveryAttempts))
        o["error"] = .string(
            "the server is stopping: this change stopped at \(state.store.now); the delivery attempts still due were "
                + "not made")
        return .json(503, .object(o))
    }

    /// Said after the reason of a refused advance: the store is as it was.
    static let nothingChanged =
        "; nothing changed: the clock, the store, the notifications and the deliveries are as they were"

    /// Why a ``trial(to:then:)`` stopped (the 409's reason).
    struct TrialStop: Error {
        var reason: String
    }

    /// A store and driver moved to a target on a copy (``trial(to:then:)``), before the action tried there.
    struct Trial {
        var store: SimulatedStore
        var driver: TimelineDriver
    }

    /// Moves a copy of the store and its timeline to `target` and performs `entry` there, if given, on a second copy,
    /// without the lock (only the one mutating request runs, and readers keep the state as it is) and without
    /// delivering anything. Returns why it stops (a timeline entry the rules refuse, a run limit, the action refused),
    /// or the copy moved to `target`. The store's rules do not depend on deliveries, so the same advance made again
    /// with its deliveries reaches the target too.
    func trial(to target: Instant, then entry: TimelineEntry? = nil) -> Result<Trial, TrialStop> {
        var (store, driver) = locked { (state.store, state.driver) }
        switch driver.advance(&store, to: target) {
        case nil: break
        case .refused(let error): return .failure(TrialStop(reason: error.description))
        case .store(let error): return .failure(TrialStop(reason: "\(error)"))
        }
        if let entry {
            if let customer = entry.action.customer, !store.customers.contains(customer),
                store.customers.count >= RunLimits.standard.maximumCustomers
            {
                let limit = RunLimits.standard.maximumCustomers
                return .failure(
                    TrialStop(reason: "\(RunLimitExceeded.customers(limit: limit, found: store.customers.count + 1))"))
            }
            var acted = store
            if let customer = entry.action.customer { acted.addCustomer(customer) }
            do throws(StoreError) { try TimelineDriver.perform(entry.action, on: &acted) } catch {
                return .failure(TrialStop(reason: TimelineDriver.refusal(of: entry, error, file: "request").message))
            }
        }
        return .success(Trial(store: store, driver: driver))
    }

    /// Without a transport nothing is delivered on the way, so the copy a successful ``trial(to:then:)`` moved
    /// becomes the store (its work is not done twice; ``drive(to:summary:)`` then only encodes what it sent); with
    /// one, ``drive(to:summary:)`` makes the advance again with its deliveries, one instant at a time.
    func adopt(_ trial: Trial, summary: inout AdvanceSummary) {
        guard transport == nil else { return }
        locked {
            summary.timelineEntries += trial.driver.nextEntry - state.driver.nextEntry
            state.store = trial.store
            state.driver = trial.driver
            changed()
        }
    }

    /// Under the lock: the 409 for an action naming a new customer when the store is full; nil otherwise.
    func customerProblem(_ entry: TimelineEntry) -> ServerResponse? {
        guard let customer = entry.action.customer, !state.store.customers.contains(customer),
            state.store.customers.count >= RunLimits.standard.maximumCustomers
        else { return nil }
        return .problem(
            409,
            "\(RunLimitExceeded.customers(limit: RunLimits.standard.maximumCustomers, found: state.store.customers.count + 1))"
        )
    }

    /// `POST /simctl/v1/reset`: back to the scenario's start (the store, its timeline, the deliveries and their
    /// log, test notifications), at the next epoch by default, so every id and UUID is new (body `{}`); `{"epoch":
    /// "same"}` keeps the epoch (the same bytes again), `{"epoch": N}` picks one. Notifications already delivered
    /// stay delivered.
    func reset(_ request: ServerRequest) -> ServerResponse {
        let members: [String: JSONValue]
        switch Self.jsonObject(request.body) {
        case .failure(let response): return response
        case .success(let object): members = object
        }
        if let unknown = members.keys.sorted().first(where: { $0 != "epoch" }) {
            return .problem(400, "unknown key '\(unknown)' in the reset request; expected: epoch")
        }
        let choice = members["epoch"]
        return exclusively("POST /simctl/v1/reset", refused: { .problem(409, $0) }) {
            let current = locked { state.epoch }
            let epoch: UInt32
            switch choice {
            case nil:
                guard current < UInt32.max else {
                    return .problem(409, "the epoch is \(current), the largest; reset with {\"epoch\": 0}")
                }
                epoch = current + 1
            case .string("same")?: epoch = current
            case .integer(let n)? where n >= 0 && n <= Int64(UInt32.max): epoch = UInt32(n)
            case let other?:
                return .problem(
                    400,
                    "expected `epoch` as \"same\" or a whole number from 0 to \(UInt32.max), found \(Self.shown(other))"
                )
            }
            let fresh: ServerState
            do throws(ServerSetupError) {
                fresh = try Self.initialState(configuration, delivering: transport != nil, epoch: epoch)
            } catch { return .problem(409, error.message) }
            var summary = AdvanceSummary()
            locked {
                // The version goes on growing across resets: equal versions are one state (``customersFingerprint``).
                let version = state.version
                state = fresh
                state.version = version
                changed()
            }
            let error = drive(to: configuration.scenario.start, summary: &summary)
            return locked {
                var o = clockJSON(state)
                o["epoch"] = .integer(Int64(state.epoch))
                if let error { o["error"] = .string(error) }
                return .json(200, .object(o))
            }
        }
    }

    // MARK: reads

    func clockJSON(_ state: ServerState) -> [String: JSONValue] {
        [
            "now": .integer(state.store.now.millisecondsSince1970), "at": .string(state.store.now.description),
            "pendingDeliveryAttempts": .integer(Int64(state.delivery?.pendingAttempts ?? 0)),
        ]
    }

    /// One subscription in the state: its ids, product, `status` (Apple's code) and `statusName`, `expiresDate` (the
    /// current transaction's, ISO 8601), `autoRenewStatus` (1 on, 0 off) and `autoRenewProductId` (the renewal
    /// info's), `entitled` (the status gives access, rule of ``SubscriptionPhase/isEntitled``),
    /// `inAppOwnershipType` and `purchaser` (the customer who paid: a family member's share names the purchaser).
    static func subscriptionJSON(_ s: SubscriptionSummary, _ store: SimulatedStore) -> JSONValue {
        let shared = s.latestTransaction.ownership == .familyShared
        return .object([
            "originalTransactionId": .string(s.originalTransactionId),
            "subscriptionGroupIdentifier": .string(s.subscriptionGroupIdentifier),
            "productId": .string(s.latestTransaction.productId),
            "transactionId": .string(s.latestTransaction.transactionId),
            "status": .integer(Int64(s.state.phase.statusCode)),
            "statusName": .string(statusName(s.state.phase)),
            "expiresDate": .string(s.state.expiresDate.description),
            "autoRenewStatus": .integer(s.renewal.autoRenewOn ? 1 : 0),
            "autoRenewProductId": .string(s.renewal.autoRenewProductId),
            "entitled": .bool(s.state.isEntitled),
            "inAppOwnershipType": .string(shared ? "FAMILY_SHARED" : "PURCHASED"),
            "purchaser": .string(store.purchaser(of: s.originalTransactionId, for: s.customer) ?? s.customer),
        ])
    }

    /// The name of a status code, as docs/server.md lists them: `active` (1), `expired` (2), `billingRetry` (3),
    /// `gracePeriod` (4), `revoked` (5).
    static func statusName(_ phase: SubscriptionPhase) -> String {
        switch phase {
        case .active: return "active"
        case .expired: return "expired"
        case .billingRetry: return "billingRetry"
        case .gracePeriod: return "gracePeriod"
        case .revoked: return "revoked"
        }
    }

    /// One transaction in the state: `transactionId`, `productId`, its `orderId` (a purchase's, rule
    /// order-id-from-the-seed), its `appAccountToken` if it has one, `finished: true` once Finish Transaction was called for it, and the consumption
    /// information received for it (`consumptionInformation`: `{version, receivedAt, body}` each).
    static func transactionJSON(_ t: TransactionRecord, _ store: SimulatedStore) -> JSONValue {
        var o: [String: JSONValue] = ["transactionId": .string(t.transactionId), "productId": .string(t.productId)]
        if let orderId = store.orderId(of: t) { o["orderId"] = .string(orderId) }
        if let token = t.appAccountToken { o["appAccountToken"] = .string(token) }
        if store.isFinished(t.transactionId) { o["finished"] = .bool(true) }
        let received = store.consumptionInformation.filter { $0.transactionId == t.transactionId }
        if !received.isEmpty {
            o["consumptionInformation"] = .array(
                received.map {
                    .object([
                        "version": .integer(Int64($0.version)), "receivedAt": .string($0.receivedAt.description),
                        "body": $0.body,
                    ])
                })
        }
        return .object(o)
    }

    /// `GET /simctl/v1/deliveries`: the delivery log's attempts (its JSON objects, in the log's order), the
    /// notifications not delivered yet and the resends, each bounded (rule deliveries-answer-cap [assumed]): the
    /// latest ``deliveryPageLimit`` attempts by default, or `limit` of them; `before=N` gives the attempts before the
    /// log's N-th (1-based), and `nextBefore` names the page before this one while older attempts exist. The counts
    /// (`attemptCount`, `undeliveredCount`, `resendCount`) are always the totals; `undelivered` lists the first
    /// ``deliveryPageLimit`` notifications not delivered yet and `resends` the latest ``deliveryPageLimit``.
    func deliveriesJSON(_ state: ServerState, page: DeliveryPage = DeliveryPage()) -> JSONValue {
        var o = clockJSON(state)
        o["destination"] = transport.map { .string($0.destination) } ?? .null
        let log = state.delivery?.log ?? []
        let end = min(page.before.map { $0 - 1 } ?? log.count, log.count)
        let start = max(0, end - page.limit)
        o["attemptCount"] = .integer(Int64(log.count))
        o["attempts"] = .array(log[start..<end].map(\.json))
        if start > 0 { o["nextBefore"] = .integer(Int64(start + 1)) }
        let undelivered = state.records.indices.filter { !(state.delivery?.isDelivered(at: $0) ?? false) }
        o["undeliveredCount"] = .integer(Int64(undelivered.count))
        o["undelivered"] = .array(
            undelivered.prefix(Self.deliveryPageLimit).map { .string(state.records[$0].item.notificationUUID) })
        o["resendCount"] = .integer(Int64(state.resends.count))
        o["resends"] = .array(state.resends.suffix(Self.deliveryPageLimit).map(\.json))
        return .object(o)
    }

    /// The most attempts (and undelivered notifications, and resends) one `GET /simctl/v1/deliveries` lists: about
    /// 400 KB of JSON at most (rule deliveries-answer-cap [assumed]; docs/server.md).
    package static let deliveryPageLimit = 1000

    /// The page `GET /simctl/v1/deliveries` asks for: `limit` attempts before the log's `before`-th.
    struct DeliveryPage {
        var limit = SimulatorServer.deliveryPageLimit
        var before: Int?
    }

    /// `deliveries`' query (``pageQuery(_:of:limit:maximum:before:)``): `limit` 1 to ``deliveryPageLimit``, `before`
    /// an attempt's 1-based place in the log.
    static func deliveryPage(_ query: [(name: String, value: String)]) -> Result<DeliveryPage, ServerResponse> {
        pageQuery(
            query, of: "deliveries", limit: deliveryPageLimit, maximum: deliveryPageLimit,
            before: "an attempt's place in the log"
        ).map { DeliveryPage(limit: $0.limit, before: $0.before) }
    }

    /// The paging query of a list answer (`GET /simctl/v1/notifications`, `GET /simctl/v1/deliveries`): `limit`, a
    /// whole number from 1 to `maximum` (default `limit`), and `before`, a 1-based place in the list (`before`
    /// says what it counts), each at most once; anything else is a 400 that says what was expected.
    static func pageQuery(
        _ query: [(name: String, value: String)], of endpoint: String, limit: Int, maximum: Int, before meaning: String
    ) -> Result<(limit: Int, before: Int?), ServerResponse> {
        var limit = limit
        var before: Int?
        var seen: Set<String> = []
        for item in query {
            guard seen.insert(item.name).inserted else {
                return .failure(.problem(400, "query parameter '\(shownQuery(item.name))' is given twice"))
            }
            switch item.name {
            case "limit":
                guard item.value.count <= String(maximum).count, let value = Int(item.value),
                    (1...maximum).contains(value)
                else {
                    return .failure(
                        .problem(
                            400,
                            "expected `limit` as a whole number from 1 to \(maximum), found "
                                + "'\(shownQuery(item.value))'"))
                }
                limit = value
            case "before":
                guard item.value.count <= 18, item.value.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let value = Int(item.value), value >= 1
                else {
                    return .failure(
                        .problem(
                            400,
                            "expected `before` as \(meaning) (a whole number from 1), found "
                                + "'\(shownQuery(item.value))'"))
                }
                before = value
            default:
                return .failure(
                    .problem(
                        400, "unknown query parameter '\(shownQuery(item.name))'; \(endpoint) takes limit and before"))
            }
        }
        return .success((limit, before))
    }

    /// `GET /simctl/v1/timeline.svg`: the picture of the store so far (``TimelinePicture``, the `svg` format of
    /// `simctl run`), drawn from the scenario's start to the clock.
    /// The query (``pictureQuery(_:_:start:)``) chooses customers, a window and the axis; the picture says "now" and
    /// draws a line at the clock.
    func timelinePicture(_ state: ServerState, view: PictureView = PictureView()) -> ServerResponse {
        let store = state.store
        let scenario = configuration.scenario
        var picture = TimelinePicture(
            name: scenario.name, start: scenario.start, seed: scenario.seed, customers: store.customers,
            families: store.families.map { ($0.organizer, $0.members) }, view: view,
            familyDelay: scenario.app.familyDelay,
            shareable: Set(scenario.catalog.products.filter(\.familyShareable).map(\.id)),
            familyActions: scenario.timeline.map { ($0.at, $0.action) })
        picture.add(store.notifications[...], store.entitlementChanges[...])
        return ServerResponse(
            status: 200, headers: [ServerHeader(name: "Content-Type", value: "image/svg+xml; charset=utf-8")],
            body: Array(picture.svg(until: store.now, now: store.now).utf8))
    }

    /// `timeline.svg`'s query: `customers=NAME,...` (names or patterns), `from=` and `to=` (offsets from the
    /// scenario's start such as 10d or ISO instants), `axis=dates|offsets`; each at most once. Anything else, or a
    /// value that is not one of these, is a 400 that says what was expected.
    static func pictureQuery(_ query: [(name: String, value: String)], _ state: ServerState, start: Instant)
        -> Result<PictureView, ServerResponse>
    {
        var values: [String: String] = [:]
        for item in query {
            guard ["customers", "from", "to", "axis"].contains(item.name) else {
                return .failure(
                    .problem(
                        400,
                        "unknown query parameter '\(shownQuery(item.name))'; timeline.svg takes customers=NAME,..., "
                            + "from=, to= (an offset such as 10d or an ISO instant) and axis=dates|offsets"))
            }
            guard values.updateValue(item.value, forKey: item.name) == nil else {
                return .failure(.problem(400, "query parameter '\(item.name)' is given twice"))
            }
        }
        switch PictureView.parse(
            customers: values["customers"], from: values["from"], to: values["to"], axis: values["axis"], start: start,
            known: state.store.customers, optionPrefix: "")
        {
        case .success(let view): return .success(view)
        case .failure(let error):
            return .failure(.problem(400, "query parameter '\(error.option)' \(error.message)"))
        }
    }

    // MARK: helpers

    /// The body as a JSON object (an empty body is `{}`), or the 400 answer.
    static func jsonObject(_ body: [UInt8]) -> Result<[String: JSONValue], ServerResponse> {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .success([:]) }
        let text = String(decoding: body, as: UTF8.self)
        let value: JSONValue
        do throws(JSONParseError) { value = try CanonicalJSON.parse(text) } catch {
            return .failure(.problem(400, "the request body is not JSON: \(error)"))
        }
        guard case .object(let members) = value else {
            return .failure(.problem(400, "expected a JSON object as the request body"))
        }
        return .success(members)
    }

    static func shown(_ value: JSONValue) -> String {
        let text = CanonicalJSON.string(value)
        return SourceText.escapingControlCharacters(text.count > 80 ? String(text.prefix(80)) + "…" : text)
    }
}
