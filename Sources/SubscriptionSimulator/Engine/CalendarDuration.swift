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

    /// This duration repeated `factor` times (each component multiplied). Traps on overflow, like `*`; durations
    /// from input are bounded (``CalendarDurationSyntax`` reads at most nine digits) and factors are counts of
    /// periods bounded by ``RunLimits``.
    public func times(_ factor: Int) -> CalendarDuration {
        CalendarDuration(
            years: years * factor, months: months * factor, weeks: weeks * factor, days: days * factor,
            hours: hours * factor, minutes: minutes * factor, seconds: seconds * factor,
            milliseconds: milliseconds * factor)
    }

    /// True when the duration has no calendar (year or month) part, so it is a fixed number of milliseconds.
    public var isFixedLength: Bool { years == 0 && months == 0 }

    /// The exact length in milliseconds of the week/day/time part (years and months excluded). Saturates at the
    /// ends of `Int64` instead of trapping (see ``checkedFixedMilliseconds``).
    public var fixedMilliseconds: Int64 {
        checkedFixedMilliseconds
            ?? (CalendarDuration(
                weeks: weeks, days: days, hours: hours, minutes: minutes, seconds: seconds, milliseconds: milliseconds
            ).approximateSign < 0 ? .min : .max)
    }

    /// The exact length in milliseconds of the week/day/time part, or nil when it does not fit in `Int64`.
    public var checkedFixedMilliseconds: Int64? {
        guard let weekDays = Int64(weeks).multipliedChecked(by: 7),
            let dayCount = weekDays.addingChecked(Int64(days)),
            let hourCount = dayCount.multipliedChecked(by: 24)?.addingChecked(Int64(hours)),
            let minuteCount = hourCount.multipliedChecked(by: 60)?.addingChecked(Int64(minutes)),
            let secondCount = minuteCount.multipliedChecked(by: 60)?.addingChecked(Int64(seconds)),
            let total = secondCount.multipliedChecked(by: 1000)?.addingChecked(Int64(milliseconds))
        else { return nil }
        return total
    }

    /// The sign of the whole duration (a month counted as 30.436875 days), computed in floating point so it
    /// cannot overflow; only saturating arithmetic uses it.
    var approximateSign: Int {
        let days =
            (Double(years) * 12 + Double(months)) * 30.436875 + Double(weeks) * 7 + Double(days)
        let total =
            ((days * 24 + Double(hours)) * 60 + Double(minutes)) * 60 + Double(seconds) + Double(milliseconds) / 1000
        return total < 0 ? -1 : (total > 0 ? 1 : 0)
    }

    /// ISO 8601 form, e.g. `P1M`, `P1W`, `P1M10D`, `PT1H`, `PT0.5S`; zero is `PT0S`.
    public var description: String { CalendarDurationSyntax.iso8601(self) }
}
