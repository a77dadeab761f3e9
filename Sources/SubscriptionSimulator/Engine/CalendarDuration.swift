/// A calendar duration such as `P1M`, `P1M10D`, `PT1H` or `2w`.
///
/// Applying it follows one fixed rule (``CalendarMath/add(_:to:)``): years and months first, clamping the day to
/// the end of a shorter month, then weeks and days, then hours, minutes, seconds and milliseconds.
public struct CalendarDuration: Hashable, Sendable, CustomStringConvertible {
    public var years: Int
    public var months: Int
    public var weeks: Int
    public var days: Int
    public var hours: Int
    public var minutes: Int
    public var seconds: Int
    public var milliseconds: Int

    public init(
        years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0,
        hours: Int = 0, minutes: Int = 0, seconds: Int = 0, milliseconds: Int = 0
    ) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.milliseconds = milliseconds
    }

    public static let zero = CalendarDuration()
    public static func years(_ n: Int) -> CalendarDuration { CalendarDuration(years: n) }
    public static func months(_ n: Int) -> CalendarDuration { CalendarDuration(months: n) }
    public static func weeks(_ n: Int) -> CalendarDuration { CalendarDuration(weeks: n) }
    public static func days(_ n: Int) -> CalendarDuration { CalendarDuration(days: n) }
    public static func hours(_ n: Int) -> CalendarDuration { CalendarDuration(hours: n) }
    public static func minutes(_ n: Int) -> CalendarDuration { CalendarDuration(minutes: n) }
    public static func seconds(_ n: Int) -> CalendarDuration { CalendarDuration(seconds: n) }
    public static func milliseconds(_ n: Int) -> CalendarDuration { CalendarDuration(milliseconds: n) }

    /// This duration repeated `factor` times (each component multiplied).
    public func times(_ factor: Int) -> CalendarDuration {
        CalendarDuration(
            years: years * factor, months: months * factor, weeks: weeks * factor, days: days * factor,
            hours: hours * factor, minutes: minutes * factor, seconds: seconds * factor,
            milliseconds: milliseconds * factor)
    }

    /// True when the duration has no calendar (year or month) part, so it is a fixed number of milliseconds.
    public var isFixedLength: Bool { years == 0 && months == 0 }

    /// The exact length in milliseconds of the week/day/time part (years and months excluded).
    public var fixedMilliseconds: Int64 {
        let dayCount = Int64(weeks) * 7 + Int64(days)
        let secondCount = ((dayCount * 24 + Int64(hours)) * 60 + Int64(minutes)) * 60 + Int64(seconds)
        return secondCount * 1000 + Int64(milliseconds)
    }

    /// ISO 8601 form, e.g. `P1M`, `P1W`, `P1M10D`, `PT1H`, `PT0.5S`; zero is `PT0S`.
    public var description: String { CalendarDurationSyntax.iso8601(self) }
}
