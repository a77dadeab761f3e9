/// Calendar arithmetic on one fixed proleptic Gregorian calendar in UTC.
///
/// Written with integer civil-date algorithms (days from 1970-01-01) rather than Foundation's `Calendar`, so the
/// result never depends on the host's time zone, locale or Foundation version.
///
/// The rule (issue 2; the reference's Appendix A-2 for clamping, which Apple does not document): a duration applies
/// years and months first, keeping the day of month and time of day and clamping the day to the last day of a
/// shorter month; then weeks and days; then hours, minutes, seconds and milliseconds. So from 2026-01-05, `P1M40D`
/// is 2026-02-05 + 40 days = 2026-03-17, and from 2026-01-31, `P1M` is 2026-02-28.
public enum CalendarMath {
    static let millisecondsPerDay: Int64 = 86_400_000

    /// `instant + duration` under the rule above. Never traps: a result beyond `Int64` milliseconds saturates to
    /// `Int64.min` or `Int64.max` (far outside ``Instant/supportedRange``, so every check refuses it). Code that
    /// takes durations or instants from input uses ``checkedAdd(_:to:)`` instead.
    public static func add(_ duration: CalendarDuration, to instant: Instant) -> Instant {
        if let result = checkedAdd(duration, to: instant) { return result }
        return Instant(millisecondsSince1970: duration.approximateSign < 0 ? .min : .max)
    }

    /// `instant + duration` under the rule above, or nil when any step overflows 64-bit arithmetic. The result may
    /// still lie outside ``Instant/supportedRange``; ``Instant/checkedAdding(_:)`` checks that too.
    public static func checkedAdd(_ duration: CalendarDuration, to instant: Instant) -> Instant? {
        var result = instant
        guard let years = duration.years.multipliedChecked(by: 12),
            let totalMonths = years.addingChecked(duration.months)
        else { return nil }
        if totalMonths != 0 {
            let (dayNumber, timeOfDay) = split(instant)
            let civil = civilFromDays(dayNumber)
            guard let base = civil.year.multipliedChecked(by: 12),
                let monthIndex = base.addingChecked(civil.month - 1)?.addingChecked(totalMonths),
                // Keeps the civil-date algorithms far from overflow (about ±7.6e14 years fit; this allows ±1e12).
                abs(monthIndex) < 12_000_000_000_000
            else { return nil }
            let year = floorDiv(monthIndex, 12)
            let month = monthIndex - year * 12 + 1
            let day = min(civil.day, daysInMonth(year: year, month: month))
            let newDay = daysFromCivil(year: year, month: month, day: day)
            guard let ms = newDay.multipliedChecked(by: millisecondsPerDay)?.addingChecked(timeOfDay) else {
                return nil
            }
            result = Instant(millisecondsSince1970: ms)
        }
        guard let fixed = duration.checkedFixedMilliseconds,
            let ms = result.millisecondsSince1970.addingChecked(fixed)
        else { return nil }
        return Instant(millisecondsSince1970: ms)
    }

    /// The instant at midnight UTC of the given civil date, plus an optional time of day.
    public static func instant(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0
    ) -> Instant {
        let days = daysFromCivil(year: year, month: month, day: day)
        let time = ((Int64(hour) * 60 + Int64(minute)) * 60 + Int64(second)) * 1000 + Int64(millisecond)
        return Instant(millisecondsSince1970: days * millisecondsPerDay + time)
    }

    /// Civil fields of an instant in UTC.
    public static func components(
        of instant: Instant
    ) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        let (dayNumber, timeOfDay) = split(instant)
        let civil = civilFromDays(dayNumber)
        let ms = Int(timeOfDay % 1000)
        let totalSeconds = Int(timeOfDay / 1000)
        return (
            civil.year, civil.month, civil.day, totalSeconds / 3600, (totalSeconds / 60) % 60, totalSeconds % 60, ms
        )
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.mmm` before the `Z` only when the milliseconds are not zero.
    ///
    /// Only years 0000 to 9999 have this form. An instant outside them (never one in ``Instant/supportedRange``;
    /// only an error message can show one) is written in ISO 8601's expanded form with a sign, such as
    /// `+10000-01-01T00:00:00Z`, so a five-digit year is never printed as if it were a basic date.
    public static func iso8601(_ instant: Instant) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(instant, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``iso8601(_:)`` appended to `out` as ASCII bytes (the one place the form is written; output formats that
    /// write many instants call this and build no strings).
    public static func appendISO8601(_ instant: Instant, to out: inout [UInt8]) {
        let c = components(of: instant)
        if (0...9999).contains(c.year) {
            appendDigits(c.year, width: 4, to: &out)
        } else {
            out.append(c.year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            appendDigits(abs(c.year), width: 5, to: &out)
        }
        out.append(UInt8(ascii: "-"))
        appendDigits(c.month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(c.day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(c.hour, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(c.minute, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(c.second, width: 2, to: &out)
        if c.millisecond != 0 {
            out.append(UInt8(ascii: "."))
            appendDigits(c.millisecond, width: 3, to: &out)
        }
        out.append(UInt8(ascii: "Z"))
    }

    /// The decimal digits of `value`'s magnitude, zero-padded on the left to at least `width`.
    static func appendDigits(_ value: Int, width: Int, to out: inout [UInt8]) {
        let magnitude = value.magnitude
        var count = 1
        var rest = magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        for _ in count..<max(count, width) { out.append(UInt8(ascii: "0")) }
        let first = out.count
        for _ in 0..<count { out.append(0) }
        rest = magnitude
        var position = out.count - 1
        while position >= first {
            out[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            position -= 1
        }
    }

    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // MARK: - Civil date algorithms (Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms")

    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    static func split(_ instant: Instant) -> (day: Int64, timeOfDay: Int64) {
        let ms = instant.millisecondsSince1970
        let day = ms >= 0 ? ms / millisecondsPerDay : (ms - millisecondsPerDay + 1) / millisecondsPerDay
        return (day, ms - day * millisecondsPerDay)
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int {
        // a - b + 1 cannot overflow for the callers' ranges (month indexes below 1.2e13, b = 12).
        a >= 0 ? a / b : (a - b + 1) / b
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

extension FixedWidthInteger {
    /// `self * other`, or nil on overflow.
    @inlinable func multipliedChecked(by other: Self) -> Self? {
        let (value, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? nil : value
    }

    /// `self + other`, or nil on overflow.
    @inlinable func addingChecked(_ other: Self) -> Self? {
        let (value, overflow) = addingReportingOverflow(other)
        return overflow ? nil : value
    }
}
