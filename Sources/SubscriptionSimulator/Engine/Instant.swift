/// A point on the virtual timeline: whole milliseconds since 1970-01-01T00:00:00Z (UTC).
///
/// Apple's payloads carry every date as an integer number of milliseconds since the epoch, so the simulator
/// never holds time in any other form. `Date` appears only at the edges (formatting for people).
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var millisecondsSince1970: Int64

    @inlinable
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// The instant `milliseconds` later (exact, not calendar-aware).
    public func adding(milliseconds: Int64) -> Instant {
        Instant(millisecondsSince1970: millisecondsSince1970 + milliseconds)
    }

    /// The instant `duration` later on the fixed Gregorian UTC calendar (see ``CalendarMath``).
    public func adding(_ duration: CalendarDuration) -> Instant {
        CalendarMath.add(duration, to: self)
    }

    /// Milliseconds from `self` to `other` (negative when `other` is earlier).
    public func milliseconds(to other: Instant) -> Int64 {
        other.millisecondsSince1970 - millisecondsSince1970
    }

    /// ISO 8601 in UTC with millisecond precision only when needed, e.g. `2026-03-01T09:00:00Z`.
    public var description: String { CalendarMath.iso8601(self) }
}
