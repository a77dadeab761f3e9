/// One notification to deliver: its POST body and what the delivery log says about it.
public struct DeliveryItem: Hashable, Sendable {
    public var notificationUUID: String
    /// The customer it is about; `nil` for a notification about the app (TEST, RENEWAL_EXTENSION/SUMMARY).
    public var recipient: String?
    /// When the store sent it (its `signedDate`): the instant of its first attempt.
    public var instant: Instant
    public var notificationType: String
    public var subtype: String?
    /// The App Store's POST body, `{"signedPayload":"<JWS>"}`, byte-identical to a line of `--format jsonl`.
    public var body: String

    public init(
        notificationUUID: String, recipient: String?, instant: Instant, notificationType: String, subtype: String?,
        body: String
    ) {
        self.notificationUUID = notificationUUID
        self.recipient = recipient
        self.instant = instant
        self.notificationType = notificationType
        self.subtype = subtype
        self.body = body
    }

    /// The one way to make a delivery item from a notification: its POST body as `encoder` writes it (byte-identical
    /// to the notification's line of `simctl run --format jsonl` with the same signer).
    public init(_ n: SentNotification, encoder: NotificationEncoder) {
        self.init(
            notificationUUID: n.notificationUUID, recipient: n.recipient, instant: n.instant,
            notificationType: n.type.rawValue, subtype: n.subtype?.rawValue, body: encoder.postBody(of: n))
    }

    /// The JWS the body carries (`{"signedPayload":"<JWS>"}`, canonical JSON, so the JWS is the text between the
    /// fixed prefix and suffix); empty for a body of another shape (an item made by hand in a test).
    public var signedPayload: String {
        let prefix = #"{"signedPayload":""#
        let suffix = #""}"#
        guard body.hasPrefix(prefix), body.hasSuffix(suffix), body.utf8.count >= prefix.utf8.count + suffix.utf8.count
        else { return "" }
        return String(body.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// The notifications a store has sent, in virtual-time order, encoded as the App Store POSTs them. Reads the
    /// store; changes nothing. `signer` signs the bodies as `simctl run --format jsonl` does with the same signer
    /// (`nil`: the environment's default signer).
    public static func items(of store: SimulatedStore, signer: (any PayloadSigner)? = nil) -> [DeliveryItem] {
        let encoder = NotificationEncoder(app: store.app, signer: signer)
        return store.notifications.map { DeliveryItem($0, encoder: encoder) }
    }
}

/// Delivery options that cannot work (a chaos rate outside 0–1, ...).
public struct DeliveryConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// One attempt the handler is asked to make.
public struct DeliveryRequest: Hashable, Sendable {
    /// The notification's position in the delivered list.
    public var index: Int
    public var item: DeliveryItem
    /// 1 for the first attempt.
    public var attempt: Int
    /// The virtual instant of this attempt.
    public var instant: Instant
    /// A chaos duplicate of a notification already delivered (``DeliveryChaos/duplicateRate``).
    public var isDuplicate: Bool

    /// The POST body.
    public var body: String { item.body }
}

/// What one attempt came to, as the handler reports it.
public struct DeliveryOutcome: Hashable, Sendable {
    public var sendAttemptResult: SendAttemptResult
    /// The HTTP status of a complete answer.
    public var httpStatus: Int?
    /// Wall-clock time the attempt took, in microseconds, when the handler measured it (the HTTP handler does; the
    /// library never reads a clock).
    public var wallLatencyMicroseconds: Int64?
    /// The start of the answer's body when the status is not a success (``responseStart(of:)``), for reports and
    /// the delivery log: what a refusing endpoint said. nil for a success, no answer or an empty body.
    public var responseStart: String?
    /// The attempt did not complete: the sender cut it short because simctl was stopping (SIGINT or SIGTERM;
    /// docs/reliability.md, "Shutdown"). Its result is then `OTHER`.
    public var cutShort: Bool

    public init(
        sendAttemptResult: SendAttemptResult, httpStatus: Int? = nil, wallLatencyMicroseconds: Int64? = nil,
        responseStart: String? = nil, cutShort: Bool = false
    ) {
        self.sendAttemptResult = sendAttemptResult
        self.httpStatus = httpStatus
        self.wallLatencyMicroseconds = wallLatencyMicroseconds
        self.responseStart = responseStart
        self.cutShort = cutShort
    }

    /// How much of a refusing answer's body is kept: its first 200 bytes.
    public static let responseStartLimit = 200

    /// The first ``responseStartLimit`` bytes of `body` as text (bytes that are not UTF-8 replaced, a character cut
    /// at the limit dropped), control characters escaped so that it stays on one line; nil for an empty body.
    public static func responseStart(of body: some Collection<UInt8>) -> String? {
        guard !body.isEmpty else { return nil }
        var bytes = Array(body.prefix(responseStartLimit))
        // A multi-byte character cut at the limit: drop its first bytes rather than show a replacement character.
        if body.count > responseStartLimit {
            var back = 0
            while back < 3, back < bytes.count, bytes[bytes.count - 1 - back] & 0xC0 == 0x80 { back += 1 }
            if back < bytes.count, bytes[bytes.count - 1 - back] & 0xC0 == 0xC0 { bytes.removeLast(back + 1) }
        }
        return SourceText.escapingControlCharacters(String(decoding: bytes, as: UTF8.self))
    }

    /// A complete answer with this HTTP status: `SUCCESS` for 200–206, otherwise `UNSUCCESSFUL_HTTP_RESPONSE_CODE`.
    public static func status(_ code: Int) -> DeliveryOutcome {
        DeliveryOutcome(sendAttemptResult: .forHTTPStatus(code), httpStatus: code)
    }

    /// A failure without an HTTP status (`TIMED_OUT`, `SOCKET_ISSUE`, ...).
    public static func failure(_ result: SendAttemptResult) -> DeliveryOutcome {
        DeliveryOutcome(sendAttemptResult: result)
    }
}

/// One attempt as Apple's notification history records it: `{attemptDate, sendAttemptResult}`.
public struct SendAttempt: Hashable, Sendable {
    public var attemptDate: Instant
    public var sendAttemptResult: SendAttemptResult
}

/// One line of the delivery log.
public struct DeliveryLogEntry: Hashable, Sendable {
    public var notificationUUID: String
    public var recipient: String?
    public var notificationType: String
    public var subtype: String?
    public var attempt: Int
    /// The virtual instant of the attempt.
    public var instant: Instant
    public var httpStatus: Int?
    public var sendAttemptResult: SendAttemptResult
    public var wallLatencyMicroseconds: Int64?
    /// `duplicate` or `failFirst` when chaos made this attempt; nil otherwise.
    public var chaos: String?
    /// The start of a refusing answer's body (``DeliveryOutcome/responseStart``).
    public var responseStart: String? = nil
    /// The attempt did not complete: cut short because simctl was stopping (``DeliveryOutcome/cutShort``).
    public var cutShort: Bool = false

    /// One JSON object (canonical: sorted keys): `notificationUUID`, `attempt`, `instant` (ms), `at` (ISO 8601),
    /// `httpStatus`, `sendAttemptResult`, `wallLatencyMs` (decimal milliseconds), `recipient`, `notificationType`,
    /// `subtype`, `chaos`, `responseStart`, `cutShort` (only when true); absent values are left out.
    public var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("notificationUUID", notificationUUID)
        o.set("recipient", recipient)
        o.set("notificationType", notificationType)
        o.set("subtype", subtype)
        o.set("attempt", Int64(attempt))
        o.set("instant", instant)
        o.set("at", instant.description)
        o.set("httpStatus", httpStatus.map(Int64.init))
        o.set("sendAttemptResult", sendAttemptResult.rawValue)
        o.set("wallLatencyMs", wallLatencyMicroseconds.map { JSONValue.decimal(Self.milliseconds($0)) })
        o.set("chaos", chaos)
        o.set("responseStart", responseStart)
        if cutShort { o.set("cutShort", true) }
        return o.value
    }

    /// Microseconds as decimal milliseconds with three places: 1234 -> "1.234".
    static func milliseconds(_ microseconds: Int64) -> String {
        let value = max(0, microseconds)
        let fraction = String(value % 1000)
        return "\(value / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// How every notification ended.
public struct DeliveryReport: Hashable, Sendable {
    /// One per notification, in the order given.
    public var notifications: [NotificationDeliveryRecord]
    /// Every attempt in the order made.
    public var log: [DeliveryLogEntry]
    /// The virtual instant of the last attempt (the clock runs past the scenario's `until` for retries).
    public var finishedAt: Instant?

    public var delivered: [NotificationDeliveryRecord] { notifications.filter(\.delivered) }
    /// Notifications whose every attempt failed.
    public var undelivered: [NotificationDeliveryRecord] { notifications.filter { !$0.delivered } }
    public var allDelivered: Bool { notifications.allSatisfy(\.delivered) }

    /// The log as JSON Lines, one ``DeliveryLogEntry/json`` per line.
    public var logJSONL: String { log.map { CanonicalJSON.string($0.json) + "\n" }.joined() }
}

/// One notification's attempts.
public struct NotificationDeliveryRecord: Hashable, Sendable {
    public var item: DeliveryItem
    /// Its attempts in order, chaos ones included, at most the schedule's maximum plus a duplicate.
    public var sendAttempts: [SendAttempt]
    /// True once an attempt succeeded.
    public var delivered: Bool
    /// The HTTP status of the last attempt that had an answer, and the start of that answer's body
    /// (``DeliveryOutcome/responseStart``): what the endpoint said when it refused.
    public var lastHTTPStatus: Int? = nil
    public var lastResponseStart: String? = nil
}

/// What a ``NotificationDelivery`` keeps of notifications whose delivery is over.
public enum DeliveryHistory: Sendable {
    /// Everything: every notification, its attempts and every log line, readable by index and in
    /// ``NotificationDelivery/report`` (`simctl serve` answers Get Notification History from it).
    case everything
    /// Only what is in flight: a notification is forgotten once it is delivered (and its chaos duplicate made) or out
    /// of attempts, and log lines are forgotten once the pump has handed them on, so memory is bounded by the pending
    /// attempts, not by the run's length (`simctl run --deliver`: docs/delivery.md, "Streaming"). What is left is
    /// ``NotificationDelivery/summary``: the counts, and each undelivered notification with its attempts (without
    /// its body).
    case inFlight
}

/// How a delivery ended, in a size that does not grow with the number of notifications delivered: the counts, and
/// the undelivered notifications.
public struct DeliverySummary: Hashable, Sendable {
    /// Notifications given to the delivery.
    public var notifications: Int
    /// Notifications with a successful attempt.
    public var delivered: Int
    /// Attempts made (lines of the delivery log), chaos ones included.
    public var attempts: Int
    /// The virtual instant of the last attempt.
    public var finishedAt: Instant?
    /// Notifications whose every attempt failed, in the order given. With ``DeliveryHistory/inFlight`` their items
    /// have an empty body (the rest of the item is kept).
    public var undelivered: [NotificationDeliveryRecord]

    /// Notifications not delivered whose delivery is not over: an attempt is still scheduled (a retry on Apple's
    /// schedule) or was not made because the delivery was cut short.
    public var pending = 0

    /// Every notification was delivered.
    public var allDelivered: Bool { delivered == notifications }

    /// Notifications out of attempts: every attempt Apple's schedule allows failed (not delivered, not pending).
    public var failedAfterRetries: Int { notifications - delivered - pending }
}

extension DeliveryReport {
    /// The counts and the undelivered notifications.
    public var summary: DeliverySummary {
        DeliverySummary(
            notifications: notifications.count, delivered: delivered.count, attempts: log.count, finishedAt: finishedAt,
            undelivered: undelivered)
    }
}

/// Delivers notifications the way the App Store does, on a virtual clock: each is first tried at its instant (plus
/// any chaos delay), in virtual-time order; a failed attempt is tried again after the ``RetrySchedule``'s delay,
/// so a retried notification arrives after later ones; retries due after the scenario's end are still made (the
/// clock runs on), and the delivery ends only when every notification is delivered or out of attempts.
///
/// A pure state machine: it never performs I/O or reads a clock. Ask it for the next requests, make them with any
/// handler (in process, or HTTP), and record each outcome; or use ``deliver(_:mode:chaos:seed:handler:)``.
/// Attempts run on the Engine's ``EventScheduler``: at one instant, first attempts before retries and chaos
/// duplicates; first attempts in the order the notifications were given, the others in the order they were
/// scheduled. So the order does not depend on when notifications are given (all at once, or as a store sends them).
public struct NotificationDelivery: Sendable {
    struct Step: Sendable {
        var index: Int32
        var attempt: Int32
        var duplicate: Bool
    }

    /// What the delivery needs of a notification until its delivery is over.
    struct Pending: Sendable {
        /// The notification.
        var item: DeliveryItem
        /// Its chaos draws.
        var plan: DeliveryChaos.Plan
        /// Its attempts so far.
        var attempts: [SendAttempt] = []
        /// An attempt succeeded (a chaos duplicate is still to come).
        var delivered = false
        /// The last answer's status and body start (``NotificationDeliveryRecord/lastHTTPStatus``).
        var lastHTTPStatus: Int?
        var lastResponseStart: String?
    }

    /// Every notification given so far (at creation and by ``append(_:)``), in the order given; empty with
    /// ``DeliveryHistory/inFlight``.
    public private(set) var items: [DeliveryItem] = []
    public let schedule: RetrySchedule
    public let chaos: DeliveryChaos
    /// What is kept of notifications whose delivery is over.
    public let history: DeliveryHistory
    var scheduler: EventScheduler<Step>
    /// Notifications whose delivery is not over (an attempt pending or in flight), by position.
    var pending: [Int32: Pending] = [:]
    /// With ``DeliveryHistory/everything``: each notification's attempts, by position.
    var attempts: [[SendAttempt]] = []
    /// With ``DeliveryHistory/everything``: whether each notification was delivered, by position.
    var delivered: [Bool] = []
    /// Every attempt recorded so far, in order; with ``DeliveryHistory/inFlight``, only those the pump has not
    /// handed on yet.
    public internal(set) var log: [DeliveryLogEntry] = []
    /// Notifications given, delivered, and attempts recorded, for ``summary``.
    var counts = (notifications: 0, delivered: 0, attempts: 0)
    /// Undelivered notifications whose attempts are over, with ``DeliveryHistory/inFlight`` (bodies dropped), by
    /// position.
    var givenUp: [(index: Int, record: NotificationDeliveryRecord)] = []
    var finishedAt: Instant?
    var inFlight = 0
    /// The shortest wait before an attempt can schedule another: requests handed out together all fall before it,
    /// so recording their outcomes in any order schedules nothing in the past.
    let batchWindow: Int64
    /// Chaos draws, one plan per item in the order given, so items appended later draw what they would have drawn
    /// had they been given at creation.
    var random: RandomSource
    /// Each recipient's latest first attempt: a chaos delay never reorders one recipient's notifications.
    var lastOfRecipient: [String: Instant] = [:]
    /// Faults written down as data (a scenario's `delivery:` block), added to what chaos draws (``DeliveryFault``).
    public internal(set) var faults: [DeliveryFault] = []

    /// The scheduler priority of first attempts: at one instant, before retries and duplicates.
    static let firstAttemptPriority = 0
    /// The scheduler priority of retries and chaos duplicates (in the order they were scheduled, at one instant).
    static let laterAttemptPriority = 1

    /// `seed` drives the chaos draws (the scenario's seed, mixed with a constant so delivery draws differ from the
    /// store's). Notifications must be in virtual-time order, as a store emits them.
    public init(items: [DeliveryItem], schedule: RetrySchedule, chaos: DeliveryChaos = .none, seed: UInt64) {
        precondition(chaos.problem == nil, chaos.problem ?? "")
        self.init(
            unchecked: items.map(\.instant).min() ?? Instant(millisecondsSince1970: 0), schedule: schedule,
            chaos: chaos, seed: seed, history: .everything)
        append(items)
    }

    /// An empty delivery whose clock starts at `start`, for notifications given later with ``append(_:)`` as a
    /// store sends them (`simctl serve`, `simctl run --deliver`). `history`: what is kept of notifications whose
    /// delivery is over. Throws the chaos options' problem instead of stopping the process.
    public init(
        start: Instant, schedule: RetrySchedule, chaos: DeliveryChaos = .none, seed: UInt64,
        history: DeliveryHistory = .everything
    ) throws(DeliveryConfigurationError) {
        if let problem = chaos.problem { throw DeliveryConfigurationError(message: problem) }
        self.init(unchecked: start, schedule: schedule, chaos: chaos, seed: seed, history: history)
    }

    init(
        unchecked start: Instant, schedule: RetrySchedule, chaos: DeliveryChaos, seed: UInt64, history: DeliveryHistory
    ) {
        self.schedule = schedule
        self.chaos = chaos
        self.history = history
        random = RandomSource(seed: seed ^ 0x6465_6C69_7665_7279)  // "delivery"
        batchWindow = (schedule.delays + [chaos.duplicateDelayMilliseconds]).min()!
        scheduler = EventScheduler(start: start)
    }

    /// Adds notifications the store sent since the last call (in virtual-time order, none before the delivery's
    /// clock, ``now``): each is first tried at its instant plus any chaos delay, never before an earlier
    /// notification to the same recipient, and never before ``now``.
    public mutating func append(_ newItems: [DeliveryItem]) {
        let newPlans = chaos.plans(count: newItems.count, random: &random)
        for (offset, item) in newItems.enumerated() {
            let index = counts.notifications
            counts.notifications += 1
            let plan = faults.isEmpty ? newPlans[offset] : newPlans[offset].adding(faults, for: item)
            pending[Int32(index)] = Pending(item: item, plan: plan)
            if history == .everything {
                items.append(item)
                attempts.append([])
                delivered.append(false)
            }
            var first = item.instant.adding(milliseconds: plan.delayMilliseconds)
            if let recipient = item.recipient, let previous = lastOfRecipient[recipient], first < previous {
                first = previous
            }
            if first < scheduler.now { first = scheduler.now }
            if let recipient = item.recipient { lastOfRecipient[recipient] = first }
            // Cannot throw: the instant is at or after the clock.
            _ = try? scheduler.schedule(
                Step(index: Int32(index), attempt: 1, duplicate: false), at: first, priority: Self.firstAttemptPriority)
        }
    }

    /// Attempts scheduled and not yet handed out (first attempts, retries and chaos duplicates).
    public var pendingAttempts: Int { scheduler.pendingCount }

    /// The virtual instant of the next attempt due, if any.
    public var nextAttemptInstant: Instant? { scheduler.nextEventInstant() }

    /// The virtual clock.
    public var now: Instant { scheduler.now }
    /// No attempt is due or awaiting its outcome.
    public var isFinished: Bool { scheduler.pendingCount == 0 && inFlight == 0 }

    /// Takes the next attempts due, in order: at most `limit`, all before the first of them plus the shortest retry
    /// delay (so none depends on another's outcome). Chaos failures are recorded here and never handed out. Empty
    /// when nothing is due; record every outcome before asking again when the returned list was empty.
    /// `notAfter`: only attempts due at or before this instant (`simctl serve` delivers up to the store's clock).
    public mutating func nextRequests(limit: Int = 1, notAfter: Instant? = nil) -> [DeliveryRequest] {
        nextRequests(limit: limit, notAfter: notAfter, wholeBatch: false)
    }

    /// ``nextRequests(limit:notAfter:)``; with `wholeBatch`, `notAfter` bounds only the first attempt, so the batch is
    /// the one an unbounded call would give (the caller knows every attempt of the window is scheduled).
    mutating func nextRequests(limit: Int, notAfter: Instant?, wholeBatch: Bool) -> [DeliveryRequest] {
        var requests: [DeliveryRequest] = []
        var windowEnd: Instant?
        while requests.count < max(1, limit) {
            var limitInstant = windowEnd ?? Instant(millisecondsSince1970: EventQueue<Step>.instantRange.upperBound)
            if let notAfter, notAfter < limitInstant, !(wholeBatch && windowEnd != nil) { limitInstant = notAfter }
            guard let event = scheduler.nextDueEvent(notAfter: limitInstant) else { break }
            if windowEnd == nil { windowEnd = event.instant.adding(milliseconds: batchWindow - 1) }
            let step = event.payload
            let index = Int(step.index)
            let attempt = Int(step.attempt)
            // Present: a notification stays pending while an attempt of it is scheduled.
            guard let entry = pending[step.index] else { continue }
            if !step.duplicate && attempt <= entry.plan.failedAttempts {
                record(
                    DeliveryOutcome.failure(.other), index: index, attempt: attempt, instant: event.instant,
                    duplicate: false, chaos: "failFirst")
                continue
            }
            inFlight += 1
            requests.append(
                DeliveryRequest(
                    index: index, item: entry.item, attempt: attempt, instant: event.instant,
                    isDuplicate: step.duplicate))
        }
        return requests
    }

    /// Records the outcome of a request handed out by ``nextRequests(limit:)``: a failure schedules the next
    /// attempt, if the schedule has one; a success schedules the chaos duplicate, if this notification has one.
    public mutating func record(_ outcome: DeliveryOutcome, for request: DeliveryRequest) {
        inFlight -= 1
        record(
            outcome, index: request.index, attempt: request.attempt, instant: request.instant,
            duplicate: request.isDuplicate, chaos: request.isDuplicate ? "duplicate" : nil)
    }

    mutating func record(
        _ outcome: DeliveryOutcome, index: Int, attempt: Int, instant: Instant, duplicate: Bool, chaos: String?
    ) {
        let key = Int32(index)
        guard var entry = pending.removeValue(forKey: key) else { return }
        let item = entry.item
        let sendAttempt = SendAttempt(attemptDate: instant, sendAttemptResult: outcome.sendAttemptResult)
        entry.attempts.append(sendAttempt)
        if outcome.httpStatus != nil {
            entry.lastHTTPStatus = outcome.httpStatus
            entry.lastResponseStart = outcome.responseStart
        }
        if history == .everything { attempts[index].append(sendAttempt) }
        counts.attempts += 1
        log.append(
            DeliveryLogEntry(
                notificationUUID: item.notificationUUID, recipient: item.recipient,
                notificationType: item.notificationType, subtype: item.subtype, attempt: attempt, instant: instant,
                httpStatus: outcome.httpStatus, sendAttemptResult: outcome.sendAttemptResult,
                wallLatencyMicroseconds: outcome.wallLatencyMicroseconds, chaos: chaos,
                responseStart: outcome.responseStart, cutShort: outcome.cutShort))
        finishedAt = max(finishedAt ?? instant, instant)
        // The delivery of this notification is over unless another attempt is scheduled below.
        if duplicate { return }
        if outcome.sendAttemptResult == .success {
            entry.delivered = true
            counts.delivered += 1
            if history == .everything { delivered[index] = true }
            if entry.plan.duplicate {
                let at = instant.adding(milliseconds: self.chaos.duplicateDelayMilliseconds)
                _ = try? scheduler.schedule(
                    Step(index: key, attempt: Int32(attempt + 1), duplicate: true), at: at,
                    priority: Self.laterAttemptPriority)
                pending[key] = entry
            }
        } else if let delay = schedule.delay(afterAttempt: attempt) {
            // Never in the past: requests are handed out within `batchWindow` of each other (see nextRequests).
            _ = try? scheduler.schedule(
                Step(index: key, attempt: Int32(attempt + 1), duplicate: false),
                at: instant.adding(milliseconds: delay), priority: Self.laterAttemptPriority)
            pending[key] = entry
        } else if history == .inFlight {
            var kept = entry.item
            kept.body = ""
            givenUp.append(
                (
                    index,
                    NotificationDeliveryRecord(
                        item: kept, sendAttempts: entry.attempts, delivered: false,
                        lastHTTPStatus: entry.lastHTTPStatus, lastResponseStart: entry.lastResponseStart)
                ))
        }
    }

    /// The attempts made so far for the notification at `index` (in the order given), chaos ones included. With
    /// ``DeliveryHistory/inFlight``, only for a notification still pending (empty otherwise).
    public func sendAttempts(at index: Int) -> [SendAttempt] {
        history == .everything ? attempts[index] : pending[Int32(index)]?.attempts ?? []
    }

    /// Whether an attempt for the notification at `index` succeeded. With ``DeliveryHistory/inFlight``, only for a
    /// notification still pending (false otherwise).
    public func isDelivered(at index: Int) -> Bool {
        history == .everything ? delivered[index] : pending[Int32(index)]?.delivered ?? false
    }

    /// Where every notification stands. With ``DeliveryHistory/inFlight`` nothing is kept of finished notifications
    /// (use ``summary``).
    public var report: DeliveryReport {
        // The last answer of each notification, from the log (kept whole with this history).
        var answers: [String: (status: Int, start: String?)] = [:]
        for entry in log where entry.chaos != "duplicate" {
            if let status = entry.httpStatus { answers[entry.notificationUUID] = (status, entry.responseStart) }
        }
        return DeliveryReport(
            notifications: items.indices.map {
                let answer = answers[items[$0].notificationUUID]
                return NotificationDeliveryRecord(
                    item: items[$0], sendAttempts: attempts[$0], delivered: delivered[$0],
                    lastHTTPStatus: answer?.status, lastResponseStart: answer?.start)
            }, log: log, finishedAt: finishedAt)
    }

    /// The counts so far, and each notification out of attempts without a delivery, in the order given.
    public var summary: DeliverySummary {
        var summary: DeliverySummary
        switch history {
        case .everything: summary = report.summary
        case .inFlight:
            summary = DeliverySummary(
                notifications: counts.notifications, delivered: counts.delivered, attempts: counts.attempts,
                finishedAt: finishedAt, undelivered: givenUp.sorted { $0.index < $1.index }.map(\.record))
        }
        summary.pending = pendingNotifications
        return summary
    }

    /// Notifications not delivered yet whose delivery is not over (an attempt scheduled or in flight).
    public var pendingNotifications: Int { pending.values.reduce(0) { $0 + ($1.delivered ? 0 : 1) } }

    /// With ``DeliveryHistory/inFlight``: the log lines not handed on yet are handed on; forgets them.
    mutating func forgetLog() {
        if history == .inFlight { log.removeAll(keepingCapacity: true) }
    }

    /// Delivers `items` one attempt at a time through `handler` until each is delivered or out of attempts (the
    /// pump, ``pump(notAfter:limit:attempt:recorded:)``, over a closure).
    public static func deliver<Failure: Error>(
        _ items: [DeliveryItem], schedule: RetrySchedule, chaos: DeliveryChaos = .none, seed: UInt64,
        handler: (DeliveryRequest) throws(Failure) -> DeliveryOutcome
    ) throws(Failure) -> DeliveryReport {
        var delivery = NotificationDelivery(items: items, schedule: schedule, chaos: chaos, seed: seed)
        try delivery.pump(
            attempt: { (requests) throws(Failure) in
                var outcomes: [DeliveryOutcome] = []
                for request in requests { outcomes.append(try handler(request)) }
                return outcomes
            }, recorded: { (_) throws(Failure) in })
        return delivery.report
    }
}
