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

    /// The instant `milliseconds` later (exact, not calendar-aware). Saturates at the ends of `Int64` instead of
    /// trapping; use ``checkedAdding(milliseconds:)`` where the result must be in ``supportedRange``.
    public func adding(milliseconds: Int64) -> Instant {
        let (sum, overflow) = millisecondsSince1970.addingReportingOverflow(milliseconds)
        if overflow { return Instant(millisecondsSince1970: milliseconds < 0 ? .min : .max) }
        return Instant(millisecondsSince1970: sum)
    }

    /// The instant `duration` later on the fixed Gregorian UTC calendar (see ``CalendarMath``). Saturates instead of
    /// trapping; use ``checkedAdding(_:)`` where the result must be in ``supportedRange``.
    public func adding(_ duration: CalendarDuration) -> Instant {
        CalendarMath.add(duration, to: self)
    }

    // MARK: - The supported range

    /// The first supported instant: 1970-01-01T00:00:00Z (Apple's dates are milliseconds since then, never negative).
    public static let earliest = Instant(millisecondsSince1970: 0)
    /// The last supported instant: 9999-12-31T23:59:59.999Z, the last one ISO 8601's four-digit years can write
    /// (so every date simctl prints is one it can read back).
    public static let latest = Instant(millisecondsSince1970: 253_402_300_799_999)
    /// Every instant a scenario, the command line or a run may produce: years 1970 to 9999. Anything outside is an
    /// error (``InstantRangeError``), never a trap or a five-digit year.
    public static let supportedRange = earliest...latest

    /// Whether the instant lies in ``supportedRange``.
    public var isSupported: Bool { Self.supportedRange.contains(self) }

    /// `self + milliseconds`, or an error when the sum overflows or leaves ``supportedRange``.
    public func checkedAdding(milliseconds: Int64) throws(InstantRangeError) -> Instant {
        let (sum, overflow) = millisecondsSince1970.addingReportingOverflow(milliseconds)
        guard !overflow else { throw InstantRangeError(base: self, offset: .milliseconds(milliseconds)) }
        let result = Instant(millisecondsSince1970: sum)
        guard result.isSupported else {
            throw InstantRangeError(base: self, offset: .milliseconds(milliseconds), result: result)
        }
        return result
    }

    /// `self + duration` on the calendar, or an error when any step overflows or the result leaves
    /// ``supportedRange``.
    public func checkedAdding(_ duration: CalendarDuration) throws(InstantRangeError) -> Instant {
        guard let result = CalendarMath.checkedAdd(duration, to: self) else {
            throw InstantRangeError(base: self, offset: .duration(duration))
        }
        guard result.isSupported else {
            throw InstantRangeError(base: self, offset: .duration(duration), result: result)
        }
        return result
    }

    /// Milliseconds from `self` to `other` (negative when `other` is earlier).
    public func milliseconds(to other: Instant) -> Int64 {
        other.millisecondsSince1970 - millisecondsSince1970
    }

    /// ISO 8601 in UTC with millisecond precision only when needed, e.g. `2026-03-01T09:00:00Z`.
    public var description: String { CalendarMath.iso8601(self) }
}

/// An instant outside ``Instant/supportedRange`` (years 1970 to 9999), or arithmetic that would leave it.
public struct InstantRangeError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Offset: Hashable, Sendable {
        case milliseconds(Int64)
        case duration(CalendarDuration)
    }

    /// The instant the arithmetic started from (nil when an instant was given directly).
    public var base: Instant?
    public var offset: Offset?
    /// The result, when it could be computed without overflow.
    public var result: Instant?

    public init(base: Instant? = nil, offset: Offset? = nil, result: Instant? = nil) {
        self.base = base
        self.offset = offset
        self.result = result
    }

    /// An instant given directly (a parsed date) that lies outside the range.
    public init(instant: Instant) {
        self.init(base: nil, offset: nil, result: instant)
    }

    /// `1970-01-01T00:00:00Z ... 9999-12-31T23:59:59.999Z`, for messages.
    public static var rangeText: String { "\(Instant.earliest) to \(Instant.latest)" }

    public var description: String {
        var what: String
        switch (base, offset) {
        case (let base?, .duration(let duration)?): what = "\(base) + \(duration)"
        case (let base?, .milliseconds(let ms)?): what = "\(base) + \(ms) ms"
        default: what = result.map { "\($0) (year \(CalendarMath.components(of: $0).year))" } ?? "the instant"
        }
        if base != nil, let result { what += " falls in the year \(CalendarMath.components(of: result).year)," }
        if base != nil, result == nil { what += " is beyond any representable date," }
        if base == nil { what += " is" }
        return "\(what) outside the supported range of dates, \(Self.rangeText) (years 1970 to 9999)"
    }
}
