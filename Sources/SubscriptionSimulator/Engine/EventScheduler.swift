/// Why the clock refused a request.
public enum SchedulingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An event was scheduled before the current instant.
    case inThePast(requested: Instant, now: Instant)
    /// The clock was asked to move to an earlier instant.
    case clockMovesBackwards(requested: Instant, now: Instant)
    /// An event was scheduled, or the clock moved, outside ``Instant/supportedRange`` (years 1970 to 9999).
    case outsideSupportedRange(requested: Instant)

    public var description: String {
        switch self {
        case .inThePast(let requested, let now):
            return "cannot schedule an event at \(requested): the virtual clock is already at \(now); "
                + "events are scheduled at or after the current instant"
        case .clockMovesBackwards(let requested, let now):
            return "cannot move the virtual clock back to \(requested): it is already at \(now); "
                + "time only moves forward"
        case .outsideSupportedRange(let requested):
            return "cannot schedule an event at \(requested): it is after \(Instant.latest), the last supported "
                + "instant (dates run from 1970 to 9999); end the run earlier"
        }
    }
}

/// A virtual clock and its event queue: the domain-free discrete-event kernel. It never reads the wall clock.
///
/// The rule for the end of a window: ``advance(to:_:)`` runs every event due **at or before** the target, so an
/// event exactly at the target runs; `now` is set to each event's instant before it runs, and to the target at the
/// end. Time never moves backwards, and events cannot be scheduled in the past.
@usableFromInline package struct EventScheduler<Payload> {
    @usableFromInline package private(set) var now: Instant
    @usableFromInline var queue = EventQueue<Payload>()

    @usableFromInline package init(start: Instant) {
        self.now = start
    }

    @usableFromInline package var pendingCount: Int { queue.count }

    /// Schedules `payload` at `instant` (at or after `now`); `group` orders it among the events of the same instant
    /// and priority (lower first, then in the order scheduled: ``EventQueue``).
    @discardableResult
    @usableFromInline package mutating func schedule(
        _ payload: Payload, at instant: Instant, priority: Int = 0, group: UInt32 = 0
    )
        throws(SchedulingError)
        -> EventID
    {
        if instant < now { throw .inThePast(requested: instant, now: now) }
        // The one gate to the queue: it also keeps the queue's own precondition (±2^55 ms) out of reach.
        guard instant.isSupported else { throw .outsideSupportedRange(requested: instant) }
        return queue.schedule(payload, at: instant, priority: priority, group: group)
    }

    @discardableResult
    @usableFromInline package mutating func cancel(_ id: EventID) -> Bool {
        queue.cancel(id)
    }

    @usableFromInline package func nextEventInstant() -> Instant? {
        queue.nextInstant
    }

    /// Takes the next event due at or before `limit`, sets `now` to its instant, and returns it; nil (and `now`
    /// unchanged) when nothing is due.
    @usableFromInline package mutating func nextDueEvent(notAfter limit: Instant) -> ScheduledEvent<Payload>? {
        guard let event = queue.popNext(notAfter: limit) else { return nil }
        now = event.instant
        return event
    }

    /// Sets `now` to `instant` without running events (callers drain ``nextDueEvent(notAfter:)`` first).
    @usableFromInline package mutating func moveClock(to instant: Instant) throws(SchedulingError) {
        if instant < now { throw .clockMovesBackwards(requested: instant, now: now) }
        guard instant.isSupported else { throw .outsideSupportedRange(requested: instant) }
        now = instant
    }

    /// Runs every event due at or before `target` in order, handing each to `body` (which may schedule or cancel
    /// events; those due inside the window run too), then sets `now` to `target`.
    @usableFromInline package mutating func advance(
        to target: Instant, _ body: (ScheduledEvent<Payload>, inout EventScheduler<Payload>) throws -> Void
    ) throws {
        if target < now { throw SchedulingError.clockMovesBackwards(requested: target, now: now) }
        guard target.isSupported else { throw SchedulingError.outsideSupportedRange(requested: target) }
        while let event = nextDueEvent(notAfter: target) {
            try body(event, &self)
        }
        now = target
    }

    /// `advance(to: now + duration)` on the calendar.
    @usableFromInline package mutating func advance(
        by duration: CalendarDuration, _ body: (ScheduledEvent<Payload>, inout EventScheduler<Payload>) throws -> Void
    ) throws {
        try advance(to: now.adding(duration), body)
    }

    /// Same as ``advance(to:_:)``: runs the simulation until `target`, inclusive.
    @usableFromInline package mutating func run(
        until target: Instant, _ body: (ScheduledEvent<Payload>, inout EventScheduler<Payload>) throws -> Void
    ) throws {
        try advance(to: target, body)
    }
}

extension EventScheduler: Sendable where Payload: Sendable {}
