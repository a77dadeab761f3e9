import SubscriptionSimulator

/// A notification sent again by hand (`POST /simctl/v1/notifications/{notificationUUID}/resend`): one more attempt,
/// outside Apple's retry schedule, kept beside the delivery log (`GET /simctl/v1/deliveries`' `resends`).
struct ResendRecord: Sendable {
    var item: DeliveryItem
    /// The attempt's number: one more than the attempts made of the notification before it.
    var attempt: Int
    /// The virtual clock when it was made.
    var instant: Instant
    var outcome: DeliveryOutcome

    /// The delivery log's shape (``DeliveryLogEntry/json``) with `"resend": true`.
    var json: JSONValue {
        var o: [String: JSONValue] = [
            "notificationUUID": .string(item.notificationUUID), "notificationType": .string(item.notificationType),
            "attempt": .integer(Int64(attempt)), "instant": .integer(instant.millisecondsSince1970),
            "at": .string(instant.description), "sendAttemptResult": .string(outcome.sendAttemptResult.rawValue),
            "resend": .bool(true),
        ]
        if let recipient = item.recipient { o["recipient"] = .string(recipient) }
        if let subtype = item.subtype { o["subtype"] = .string(subtype) }
        if let status = outcome.httpStatus { o["httpStatus"] = .integer(Int64(status)) }
        if let start = outcome.responseStart { o["responseStart"] = .string(start) }
        return .object(o)
    }
}

/// The control API's endpoints the dashboard uses, usable by any client (docs/server-control.openapi.yaml): the
/// notification list, the description of the actions, and a resend.
extension SimulatorServer {
    /// Most notifications in one page of `GET /simctl/v1/notifications`; 20 when `limit` is not given.
    static let notificationPageLimit = 100

    /// `GET /simctl/v1/notifications[?limit=N][&before=SEQUENCE]`: the notifications sent, newest first, each with its
    /// `sequence` (1 for the first sent), type, subtype, recipient, instant, `signedPayload` and `payload` (the JWS
    /// decoded, with the nested `signedTransactionInfo` and `signedRenewalInfo` decoded too); `before` lists those
    /// older than that sequence, `nextBefore` gives the next page's.
    func notificationList(_ request: ServerRequest) -> ServerResponse {
        let limit: Int
        let before: Int?
        switch Self.pageQuery(
            request.query, of: "notifications", limit: 20, maximum: Self.notificationPageLimit,
            before: "a notification's `sequence`")
        {
        case .failure(let response): return response
        case .success(let page): (limit, before) = page
        }
        let snapshot = locked { state }
        let records = snapshot.records
        let end = min((before ?? Int.max) - 1, records.count)
        let start = max(0, end - limit)
        var o = clockJSON(snapshot)
        o["total"] = .integer(Int64(records.count))
        o["notifications"] = .array(
            (start..<end).reversed().map { index in
                notificationJSON(records[index], sequence: index + 1, snapshot)
            })
        if start > 0 { o["nextBefore"] = .integer(Int64(start + 1)) }
        return .json(200, .object(o))
    }

    /// One notification of the list.
    func notificationJSON(_ record: SentRecord, sequence: Int, _ state: ServerState) -> JSONValue {
        let item = record.item
        var o: [String: JSONValue] = [
            "sequence": .integer(Int64(sequence)), "notificationUUID": .string(item.notificationUUID),
            "notificationType": .string(item.notificationType), "instant": .integer(item.instant.millisecondsSince1970),
            "at": .string(item.instant.description), "signedPayload": .string(record.signedPayload),
            "payload": Self.decoded(record.signedPayload),
        ]
        if let recipient = item.recipient { o["recipient"] = .string(recipient) }
        if let subtype = item.subtype { o["subtype"] = .string(subtype) }
        if let delivery = state.delivery {
            o["delivered"] = .bool(delivery.isDelivered(at: sequence - 1))
            o["sendAttempts"] = .integer(Int64(delivery.sendAttempts(at: sequence - 1).count))
        }
        return .object(o)
    }

    /// A notification's JWS decoded, with its nested JWS (`data.signedTransactionInfo`, `data.signedRenewalInfo`)
    /// decoded in place, as `simctl run --format decoded` shows them; the decoding error as text for a JWS that does
    /// not decode (never for the server's own).
    static func decoded(_ jws: String) -> JSONValue {
        guard case .object(var payload) = (try? JWS.decodePayload(jws)) ?? .null else {
            return .string("not a decodable JWS")
        }
        if case .object(var data)? = payload["data"] {
            for key in ["signedTransactionInfo", "signedRenewalInfo"] {
                if case .string(let nested)? = data[key], let value = try? JWS.decodePayload(nested) {
                    data[key] = value
                }
            }
            payload["data"] = .object(data)
        }
        return .object(payload)
    }

    /// `GET /simctl/v1/actions`: every action `POST /simctl/v1/actions` takes, from the one action table
    /// (``ScenarioActionSpec/all``): its name and arguments (name, kind, JSON type, required, documentation, the
    /// values a few-valued argument takes), the `at` every action may carry, and the store's products and customers
    /// (the values of `product`, and the customers known so far).
    func actionsDescription(_ request: ServerRequest) -> ServerResponse {
        if let unknown = request.query.first {
            return .problem(400, "unknown query parameter '\(Self.shownQuery(unknown.name))'; actions takes none")
        }
        let snapshot = locked { state }
        let products = snapshot.store.catalog.products.map(\.id)
        func argumentJSON(_ a: ActionArgument) -> JSONValue {
            var o: [String: JSONValue] = [
                "name": .string(a.name), "kind": .string(a.kind.rawValue), "type": .string(Self.jsonType(of: a.kind)),
                "required": .bool(a.required), "documentation": .string(a.documentation),
            ]
            let choices = a.kind == .product ? products : a.choices
            if !choices.isEmpty { o["choices"] = .array(choices.map { .string($0) }) }
            return .object(o)
        }
        return .json(
            200,
            .object([
                "actions": .array(
                    ScenarioActionSpec.all.map { spec in
                        .object(["name": .string(spec.name), "arguments": .array(spec.arguments.map(argumentJSON))])
                    }),
                "at": .object([
                    "name": .string("at"), "kind": .string(ActionArgument.Kind.time.rawValue),
                    "type": .string("string"),
                    "required": .bool(false),
                    "documentation": .string(
                        "when, counted from the clock: 0 (the default), 90s, 1h, 16d, P1M, or an ISO 8601 instant; a "
                            + "later `at` advances the clock first"),
                ]),
                "products": .array(products.map { .string($0) }),
                "customers": .array(snapshot.store.customers.map { .string($0) }),
            ]))
    }

    /// The JSON type a client sends for an argument of `kind` (the decoder reads numbers and booleans written as
    /// text too).
    static func jsonType(of kind: ActionArgument.Kind) -> String {
        switch kind {
        case .wholeNumber: return "integer"
        case .bool: return "boolean"
        case .storefronts: return "array"
        case .customer, .product, .text, .price, .time, .storefront, .plan, .choice: return "string"
        }
    }

    /// `POST /simctl/v1/notifications/{notificationUUID}/resend`: one more attempt of a notification already sent,
    /// to the `--deliver` URL, now (outside Apple's retry schedule, which goes on as before); answered with the
    /// attempt's outcome. One change at a time, as the other calls that deliver.
    func resend(notificationUUID uuid: String) -> ServerResponse {
        let shown = Self.shownQuery(uuid)
        guard let transport else {
            return .problem(
                409, "no --deliver URL: simctl serve keeps notifications without sending them, so none can be resent")
        }
        return exclusively("POST /simctl/v1/notifications/\(shown)/resend", refused: { .problem(409, $0) }) {
            let found: (index: Int, item: DeliveryItem, attempt: Int, now: Instant)? = locked {
                guard let index = state.records.firstIndex(where: { $0.item.notificationUUID == uuid }) else {
                    return nil
                }
                let made =
                    (state.delivery?.sendAttempts(at: index).count ?? 0)
                    + state.resends.filter { $0.item.notificationUUID == uuid }.count
                return (index, state.records[index].item, made + 1, state.store.now)
            }
            guard let found else {
                return .problem(
                    404,
                    "no notification '\(shown)' was sent (GET /simctl/v1/notifications lists them, with their "
                        + "notificationUUID)")
            }
            // Without the lock: the attempt is network I/O.
            let request = DeliveryRequest.resend(
                of: found.item, index: found.index, attempt: found.attempt, at: found.now)
            let outcome = transport.attempt([request])[0]
            return locked {
                let record = ResendRecord(
                    item: found.item, attempt: found.attempt, instant: found.now, outcome: outcome)
                state.resends.append(record)
                changed()
                log(
                    "resend \(uuid) \(found.item.notificationType)" + (found.item.subtype.map { "/" + $0 } ?? "")
                        + " to \(found.item.recipient ?? "the app") attempt \(found.attempt) at \(found.now): "
                        + outcome.sendAttemptResult.rawValue + (outcome.httpStatus.map { " \($0)" } ?? ""))
                var o = clockJSON(state)
                o["resend"] = record.json
                return .json(200, .object(o))
            }
        }
    }
}
