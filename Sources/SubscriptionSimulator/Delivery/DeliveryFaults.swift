/// One delivery fault written down as data: which notification it hits and what happens to it. Chaos draws its
/// disturbances from a seed; a fault names them, so a scenario file can carry exactly the disturbances a
/// counterexample needs (the `delivery:` block, docs/scenario-format.md) and every replay makes the same ones
/// [assumed: simctl's invention for tests, like ``DeliveryChaos``].
public struct DeliveryFault: Hashable, Sendable {
    /// The customer the notification is sent to; nil for a notification about the app.
    public var recipient: String?
    /// The notification's instant (its `signedDate`).
    public var instant: Instant
    /// Its `notificationType`, as on the wire (`DID_RENEW`).
    public var notificationType: String
    /// Its `subtype`, as on the wire; nil matches only a notification without one.
    public var subtype: String?
    /// Its first this many attempts fail without reaching the server (recorded as `OTHER`, as chaos failures are),
    /// so it arrives on a retry, after later notifications (0: none fail).
    public var failedAttempts: Int
    /// After its successful attempt it is sent once more, ``DeliveryChaos/duplicateDelayMilliseconds`` later.
    public var duplicate: Bool

    public init(
        recipient: String?, instant: Instant, notificationType: String, subtype: String?, failedAttempts: Int = 0,
        duplicate: Bool = false
    ) {
        self.recipient = recipient
        self.instant = instant
        self.notificationType = notificationType
        self.subtype = subtype
        self.failedAttempts = failedAttempts
        self.duplicate = duplicate
    }

    /// Whether the fault names this notification: same recipient, instant, type and subtype. Every notification it
    /// names gets it (two alike at one instant both do).
    public func matches(_ item: DeliveryItem) -> Bool {
        item.recipient == recipient && item.instant == instant && item.notificationType == notificationType
            && item.subtype == subtype
    }
}

extension DeliveryChaos.Plan {
    /// The plan with the faults that name `item` added: the most failed attempts of the two, a duplicate when
    /// either has one. The chaos delay stays as drawn.
    func adding(_ faults: [DeliveryFault], for item: DeliveryItem) -> Self {
        var plan = self
        for fault in faults where fault.matches(item) {
            plan.failedAttempts = max(plan.failedAttempts, fault.failedAttempts)
            plan.duplicate = plan.duplicate || fault.duplicate
        }
        return plan
    }
}

extension NotificationDelivery {
    /// An empty delivery (``init(start:schedule:chaos:seed:)``) that also makes `faults`: each notification a fault
    /// names gets it on top of what `chaos` draws for it. Throws the problem of the chaos options or of a fault (a
    /// negative number of failed attempts).
    public init(
        start: Instant, schedule: RetrySchedule, chaos: DeliveryChaos = .none, faults: [DeliveryFault], seed: UInt64
    ) throws(DeliveryConfigurationError) {
        if let bad = faults.first(where: { $0.failedAttempts < 0 }) {
            throw DeliveryConfigurationError(
                message: "a delivery fault's failed attempts cannot be negative, found \(bad.failedAttempts)")
        }
        try self.init(start: start, schedule: schedule, chaos: chaos, seed: seed)
        self.faults = faults
    }
}

extension NotificationDelivery {
    /// ``init(items:schedule:chaos:seed:)`` that also makes `faults` (``DeliveryFault``), on top of what `chaos`
    /// draws. The faults of a decoded scenario are always valid; a negative number of failed attempts counts as 0.
    public init(
        items: [DeliveryItem], schedule: RetrySchedule, chaos: DeliveryChaos = .none, faults: [DeliveryFault],
        seed: UInt64
    ) {
        precondition(chaos.problem == nil, chaos.problem ?? "")
        self.init(
            unchecked: items.map(\.instant).min() ?? Instant(millisecondsSince1970: 0), schedule: schedule,
            chaos: chaos, seed: seed, history: .everything)
        self.faults = faults
        append(items)
    }
}
