/// Where a backend's view first differs from the store's ground truth.
public struct Divergence: Hashable, Sendable, CustomStringConvertible {
    /// The class of a mismatch: shrinking keeps it.
    public enum Kind: String, Hashable, Sendable {
        /// The store gives access; the backend answers not active (or unknown).
        case deniesAccess
        /// The store gives no access; the backend answers active.
        case grantsWithoutAccess
        /// Both give access, to different products.
        case wrongProduct
        /// The backend answered a valid notification with a non-2xx status on every attempt (``refusal``).
        case refusesNotification
    }

    public var kind: Kind
    /// The checkpoint: every notification due by then was delivered.
    public var instant: Instant
    public var customer: String
    public var originalTransactionId: String
    /// The store's truth.
    public var expected: OriginalTransactionAccess
    /// The backend's answer; nil: unknown (a 404), which counts as not active.
    public var answered: BackendAnswer?
    /// The last notifications delivered for this `originalTransactionId`, oldest first (at most five), as the
    /// delivery log recorded them.
    public var lastDelivered: [DeliveryLogEntry]
    /// `TYPE/SUBTYPE` of the last notification delivered for this `originalTransactionId` (or of the refused one);
    /// `none` (``FindingClass``).
    public var notification = "none"
    /// The action that notification followed from, or `clock` (``FindingClass/cause(of:to:at:in:)``).
    public var cause = "clock"
    /// What was refused, for ``Kind/refusesNotification``.
    public var refusal: Refusal?

    /// What the store expected, as text: `active, product X` or `not active`.
    public var expectedText: String {
        BackendAnswer(active: expected.grantsAccess, productId: expected.grantsAccess ? expected.productId : nil)
            .description
    }

    /// Several lines: where, who, expected and answered, and the last notifications delivered for it.
    public var description: String {
        if let refusal {
            let subtype = refusal.subtype.map { " / \($0)" } ?? ""
            return [
                "at \(instant): the backend refuses a valid notification: \(refusal.notificationType)\(subtype) "
                    + "\(refusal.notificationUUID)" + (customer.isEmpty ? "" : " to \(customer)"),
                "  answered HTTP \(refusal.httpStatus)" + (refusal.responseStart.map { ": \($0)" } ?? "")
                    + " on each of its \(refusal.attempts) attempts",
            ].joined(separator: "\n")
        }
        var lines = [
            "at \(instant): customer \(customer), originalTransactionId \(originalTransactionId)",
            "  expected: \(expectedText)",
            "  answered: \(answered?.description ?? "unknown (not active)")",
            "  last notifications delivered for it:",
        ]
        for entry in lastDelivered {
            let subtype = entry.subtype.map { " / \($0)" } ?? ""
            let kind = entry.chaos == "duplicate" ? ", a duplicate" : ""
            lines.append(
                "    \(entry.notificationType)\(subtype) \(entry.notificationUUID), delivered at \(entry.instant) "
                    + "(attempt \(entry.attempt)\(kind))")
        }
        if lastDelivered.isEmpty { lines.append("    none") }
        return lines.joined(separator: "\n")
    }
}

/// How one case went.
public enum CaseOutcome: Hashable, Sendable {
    /// Every checkpoint agreed.
    case agrees
    /// The first checkpoint where the backend disagreed.
    case diverges(Divergence)
    /// The backend cannot be judged: an entitlement query failed, or a notification was still undelivered after its
    /// last attempt.
    case cannotJudge(String)
    /// The case itself cannot run: an action the rules refuse (a shrinking candidate), or faults that would reorder
    /// two notifications of one `originalTransactionId` with the same `signedDate`.
    case invalid(String)
}

/// What one run of a case did.
public struct CaseResult: Hashable, Sendable {
    public var outcome: CaseOutcome
    /// Attempts that reached the backend.
    public var deliveries: Int
    /// Checkpoints judged (instants with every due notification delivered).
    public var checkpoints: Int
    /// Notifications the store sent.
    public var notifications: Int
    /// Answers that differed from the truth but matched the one that held until less than
    /// ``CheckedBackend/toleranceMilliseconds`` earlier (reported, not hidden).
    public var tolerated = 0
    /// Attempts answered with a status ``CheckedBackend/acceptedRefusals`` allows for their kind.
    public var acceptedRefusals = 0
}

/// Runs one case against a backend and judges it (docs/check.md, "The contract"): the store moves along the case's
/// timeline; after every instant at which something happened (store events, timeline entries, delivery attempts),
/// the notifications sent so far are delivered through the pump with the case's faults (``DeliveryFault``) on
/// Apple's production retry schedule; at every such instant where every notification sent so far has been
/// delivered and no timeline entry is left at that instant, each `originalTransactionId` delivered so far (of a
/// subscription, a family share or a non-consumable) is asked about and compared with
/// ``SimulatedStore/access(ofOriginalTransactionId:)``. Checks end at the case's `until`; attempts due later are
/// still made.
public enum CaseRunner {
    /// The kinds of `originalTransactionId` a backend is asked about: consumables grant nothing lasting, and no
    /// notification marks the end of a non-renewing subscription's term.
    static func isQueried(_ kind: OriginalTransactionAccess.Kind) -> Bool {
        switch kind {
        case .subscription, .familySharedSubscription, .nonConsumable, .familySharedNonConsumable: return true
        case .consumable, .nonRenewingSubscription: return false
        }
    }

    /// The status and body start of an attempt's answer, ` HTTP 400: ...`; empty without an answer.
    static func answer(_ entry: DeliveryLogEntry) -> String {
        guard let status = entry.httpStatus else { return "" }
        return " HTTP \(status)" + (entry.responseStart.map { ": " + $0 } ?? "")
    }

    /// Added when no delivery of a case succeeded: the endpoint refuses everything, most often a verifier set up
    /// for another environment, bundle id or root.
    static let everyDeliveryRefused =
        "; every delivery of this case was refused: check the endpoint's verifier (the root from 'simctl certs "
        + "export', the scenario's environment, bundleId and appAppleId; docs/check.md)"

    /// Added when every delivery was refused and the notifications carry the placeholder signature (issue 47): a
    /// verifier for Sandbox or Production refuses them, and Apple's libraries call it INVALID_CERTIFICATE, which
    /// reads like a trust problem.
    static func placeholderHint(_ app: AppConfiguration) -> String {
        switch app.environment {
        case .localTesting, .xcode:
            return "; the notifications are signed for \(app.environment.rawValue), whose placeholder signatures a "
                + "verifier for Sandbox or Production refuses (Apple's libraries say INVALID_CERTIFICATE: the cause "
                + "is the environment, not trust): give --environment Sandbox"
        case .sandbox, .production:
            return ""
        }
    }

    /// Runs `scenario` (a case, or a counterexample) against `backend`, with the store's identities of `epoch`
    /// (rule ids-change-with-the-epoch); nil: the scenario's own (``Scenario/epoch``).
    public static func run(_ scenario: Scenario, against backend: CheckedBackend, epoch: UInt32? = nil) -> CaseResult {
        var result = CaseResult(outcome: .agrees, deliveries: 0, checkpoints: 0, notifications: 0)
        var store: SimulatedStore
        do throws(ScenarioError) { store = try TimelineDriver.prepare(scenario, epoch: epoch) } catch {
            result.outcome = .invalid("\(error)")
            return result
        }
        var delivery: NotificationDelivery
        do throws(DeliveryConfigurationError) {
            delivery = try NotificationDelivery(
                start: scenario.start, schedule: .production, faults: scenario.deliveryFaults, seed: scenario.seed)
        } catch {
            result.outcome = .invalid("\(error)")
            return result
        }
        let encoder = NotificationEncoder(app: scenario.app, signer: backend.signer)
        var sent = 0
        /// Per notification UUID: the originalTransactionId it is about, when a backend is asked about it.
        var queried: [String: String] = [:]
        var deliveredOrder: [String] = []
        var deliveredLog: [String: [DeliveryLogEntry]] = [:]
        var firstUndelivered = 0
        var changed = false
        var finished: CaseOutcome?
        let maximumAttempts = RetrySchedule.production.maximumAttempts

        var deliveries = 0
        /// An attempt of this case succeeded (when none did, the report says every delivery was refused).
        var anyDelivered = false
        var backendError: (any Error)?
        /// Makes attempts through the backend; an error it throws is kept (the case cannot be judged) and the attempt
        /// counts as failed.
        func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome] {
            deliveries += requests.count
            let outcomes: [DeliveryOutcome]
            if let batch = backend.deliverBatch {
                outcomes = batch(requests)
            } else {
                outcomes = requests.map { request in
                    do { return try backend.deliver(request) } catch {
                        if backendError == nil { backendError = error }
                        return .failure(.other)
                    }
                }
            }
            guard !backend.acceptedRefusals.isEmpty else { return outcomes }
            return zip(requests, outcomes).map { request, outcome in
                guard backend.accepts(outcome.httpStatus, for: request.item) else { return outcome }
                result.acceptedRefusals += 1
                return .status(200)
            }
        }
        var items: [String: DeliveryItem] = [:]
        /// The class fields of a divergence about notification `uuid`: its `TYPE/SUBTYPE` and the action it followed.
        func describe(_ uuid: String?) -> (notification: String, cause: String) {
            guard let uuid, let item = items[uuid] else { return ("none", "clock") }
            return (
                item.notificationType + (item.subtype.map { "/" + $0 } ?? ""),
                FindingClass.cause(
                    of: item.notificationType, to: item.recipient, at: item.instant, in: scenario.timeline)
            )
        }
        /// A notification refused on its last attempt: a finding when the backend accepted others in this case, a
        /// case that cannot be judged when it accepted none (most often a verifier set up for another environment).
        func refused(
            _ uuid: String, status: Int?, start: String?, attempts: Int, at instant: Instant,
            in current: SimulatedStore, _ text: String
        ) -> CaseOutcome {
            guard let status, anyDelivered, let item = items[uuid] else {
                return .cannotJudge(
                    text + (anyDelivered ? "" : Self.everyDeliveryRefused + Self.placeholderHint(scenario.app)))
            }
            let id = queried[uuid]
            let truth =
                id.flatMap { current.access(ofOriginalTransactionId: $0) }
                ?? OriginalTransactionAccess(
                    originalTransactionId: id ?? "", customer: item.recipient ?? "", kind: .consumable,
                    grantsAccess: false, productId: "")
            let (notification, cause) = describe(uuid)
            return .diverges(
                Divergence(
                    kind: .refusesNotification, instant: instant, customer: item.recipient ?? "",
                    originalTransactionId: id ?? "", expected: truth, answered: nil, lastDelivered: [],
                    notification: notification, cause: cause,
                    refusal: Refusal(
                        notificationType: item.notificationType, subtype: item.subtype, notificationUUID: uuid,
                        httpStatus: status, responseStart: start, attempts: attempts)))
        }
        var history = TruthHistory()

        func deliverDue(_ store: SimulatedStore) {
            if store.notifications.count > sent {
                let new = store.notifications[sent...]
                for n in new {
                    guard let transaction = n.transaction else { continue }
                    switch transaction.productType {
                    case .autoRenewable, .nonConsumable: queried[n.notificationUUID] = transaction.originalTransactionId
                    case .consumable, .nonRenewing: break
                    }
                }
                let added = new.map { DeliveryItem($0, encoder: encoder) }
                for item in added { items[item.notificationUUID] = item }
                delivery.append(added)
                sent = store.notifications.count
                changed = true
            }
            delivery.pump(
                notAfter: store.now, limit: backend.connections, attempt: attempt,
                recorded: { entry in
                    guard entry.sendAttemptResult == .success else {
                        if entry.chaos == nil && entry.attempt >= maximumAttempts && finished == nil {
                            finished = refused(
                                entry.notificationUUID, status: entry.httpStatus, start: entry.responseStart,
                                attempts: entry.attempt, at: entry.instant, in: store,
                                "notification \(entry.notificationType) \(entry.notificationUUID) to "
                                    + "\(entry.recipient ?? "the app") was not delivered after its last attempt "
                                    + "(\(entry.sendAttemptResult.rawValue)\(Self.answer(entry)))")
                        }
                        return
                    }
                    anyDelivered = true
                    changed = true
                    guard let id = queried[entry.notificationUUID] else { return }
                    if deliveredLog[id] == nil { deliveredOrder.append(id) }
                    deliveredLog[id, default: []].append(entry)
                })
            if finished == nil, let error = backendError {
                finished = .cannotJudge("the backend failed a delivery: \(error)")
            }
        }

        func allDelivered() -> Bool {
            while firstUndelivered < delivery.items.count && delivery.isDelivered(at: firstUndelivered) {
                firstUndelivered += 1
            }
            return firstUndelivered == delivery.items.count
        }

        func judge(_ store: SimulatedStore) {
            result.checkpoints += 1
            backend.settle()
            for id in deliveredOrder {
                guard let truth = store.access(ofOriginalTransactionId: id), isQueried(truth.kind) else { continue }
                let answer: BackendAnswer?
                do {
                    if let query = backend.entitlementAt {
                        answer = try query(id, store.now)
                    } else {
                        answer = try backend.entitlement(id)
                    }
                } catch {
                    finished = .cannotJudge("the entitlement query for \(id) failed: \(error)")
                    return
                }
                let active = answer?.active ?? false
                let kind: Divergence.Kind?
                if truth.grantsAccess && !active {
                    kind = .deniesAccess
                } else if !truth.grantsAccess && active {
                    kind = .grantsWithoutAccess
                } else if truth.grantsAccess, let product = answer?.productId, product != truth.productId {
                    kind = .wrongProduct
                } else {
                    kind = nil
                }
                if let kind {
                    if history.tolerates(
                        answer, about: id, at: store.now, tolerance: backend.toleranceMilliseconds)
                    {
                        result.tolerated += 1
                        continue
                    }
                    let log = deliveredLog[id] ?? []
                    // The class names the newest notification delivered (by the instant it was sent, its
                    // signedDate; the last delivered among equals): a late retry or a duplicate arriving after it
                    // does not change the class.
                    var newest: (uuid: String, sent: Instant)?
                    for entry in log {
                        guard let sent = items[entry.notificationUUID]?.instant else { continue }
                        if newest == nil || sent >= newest!.sent { newest = (entry.notificationUUID, sent) }
                    }
                    let (notification, cause) = describe(newest?.uuid)
                    finished = .diverges(
                        Divergence(
                            kind: kind, instant: store.now, customer: truth.customer, originalTransactionId: id,
                            expected: truth, answered: answer, lastDelivered: Array(log.suffix(5)),
                            notification: notification, cause: cause))
                    return
                }
            }
        }

        /// After everything at the store's instant ran: deliver what is due, then judge when all of it arrived.
        func step(_ store: SimulatedStore) {
            guard finished == nil else { return }
            if backend.toleranceMilliseconds > 0 {
                for id in deliveredOrder {
                    if let truth = store.access(ofOriginalTransactionId: id) { history.note(truth, at: store.now) }
                }
            }
            backend.observe(store, epoch ?? scenario.epoch)
            deliverDue(store)
            guard finished == nil, changed, allDelivered() else { return }
            changed = false
            judge(store)
        }

        // The one driver moves the clock from stop to stop (``TimelineDriver/nextStop(_:deliveryDue:through:)``: the
        // store's events, the timeline entries, the delivery attempts due, `until`); at each, the store's events and
        // the entries at that instant run by the driver's rule, and delivery and judgement follow once no entry is
        // left at that instant.
        var driver = TimelineDriver(scenario)
        while finished == nil,
            let stop = driver.nextStop(store, deliveryDue: delivery.nextAttemptInstant, through: scenario.until)
        {
            // The driver steps before the clock moves, too; only its steps at `stop` count here.
            let stopped = driver.advance(&store, to: stop, stepping: .instants) { store, pending, _ in
                if store.now == stop && pending != stop { step(store) }
            }
            switch stopped {
            case nil: break
            case .refused(let error): finished = finished ?? .invalid("\(error)")
            case .store(let error): finished = finished ?? .invalid("\(error)")
            }
        }
        result.notifications = store.notifications.count
        if case .diverges = finished, let problem = reorderProblem(store.notifications, scenario.deliveryFaults) {
            finished = .invalid(problem)
        }
        if finished == nil {
            // Attempts due after the end are still made (nothing more is judged).
            delivery.pump(limit: backend.connections, attempt: attempt, recorded: { _ in })
            if let error = backendError { finished = .cannotJudge("the backend failed a delivery: \(error)") }
            if finished == nil, let undelivered = delivery.report.undelivered.first {
                let answer =
                    undelivered.lastHTTPStatus.map { status in
                        " (HTTP \(status)" + (undelivered.lastResponseStart.map { ": " + $0 } ?? "") + ")"
                    } ?? ""
                anyDelivered = !delivery.report.delivered.isEmpty
                finished = refused(
                    undelivered.item.notificationUUID, status: undelivered.lastHTTPStatus,
                    start: undelivered.lastResponseStart, attempts: undelivered.sendAttempts.count,
                    at: max(scenario.until, store.now), in: store,
                    "notification \(undelivered.item.notificationType) \(undelivered.item.notificationUUID) was not "
                        + "delivered after its last attempt\(answer)")
            }
        }
        result.deliveries = deliveries
        result.outcome = finished ?? .agrees
        return result
    }

    /// Why `faults` would make a backend see two notifications of one `originalTransactionId` with the same
    /// `signedDate` out of order (a fault that fails the first of them), or nil.
    static func reorderProblem(_ notifications: [SentNotification], _ faults: [DeliveryFault]) -> String? {
        let failing = faults.filter { $0.failedAttempts > 0 }
        guard !failing.isEmpty else { return nil }
        var byKey: [String: Int] = [:]
        for n in notifications {
            guard let id = n.transaction?.originalTransactionId else { continue }
            byKey["\(id)\u{0}\(n.instant.millisecondsSince1970)", default: 0] += 1
        }
        for n in notifications {
            guard let id = n.transaction?.originalTransactionId,
                byKey["\(id)\u{0}\(n.instant.millisecondsSince1970)", default: 0] > 1
            else { continue }
            let item = DeliveryItem(
                notificationUUID: "", recipient: n.recipient, instant: n.instant, notificationType: n.type.rawValue,
                subtype: n.subtype?.rawValue, body: "")
            if failing.contains(where: { $0.matches(item) }) {
                return "a delivery fault fails \(n.type.rawValue) to \(n.recipient ?? "the app") at \(n.instant), "
                    + "which shares its signedDate with another notification of originalTransactionId \(id)"
            }
        }
        return nil
    }
}
