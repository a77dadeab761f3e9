/// Text forms of durations and instants.
///
/// Durations: `0`; a whole number with one unit, `500ms`, `90s`, `30m`, `1h`, `16d`, `2w`; or ISO 8601
/// `P[nY][nM][nW][nD][T[nH][nM][n[.fff]S]]` such as `P1M`, `P1M10D`, `P1M60D`, `PT1H`, `PT0.5S`.
/// Instants: ISO 8601 in UTC, `YYYY-MM-DDTHH:MM:SS[.fff]Z` (a `+00:00` offset is also accepted).
public enum CalendarDurationSyntax {
    /// Parses a duration; `nil` when the text is not one of the forms above.
    public static func parse(_ text: String) -> CalendarDuration? {
        let utf8 = text.utf8
        // Byte tests first: `hasPrefix("P")` can hold only when the first byte is a P.
        if utf8.count == 1 && utf8.first == UInt8(ascii: "0") { return .zero }
        if utf8.first == UInt8(ascii: "P") && text.hasPrefix("P") { return parseISO(text) }
        return parseShort(text)
    }

    /// Parses an absolute UTC instant; `nil` when the text is not of the form above.
    public static func parseInstant(_ text: String) -> Instant? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for b in bytes[from..<from + count] {
                guard b >= 48 && b <= 57 else { return nil }
                value = value * 10 + Int(b - 48)
            }
            return value
        }
        func byte(_ i: Int, _ c: Character) -> Bool { i < bytes.count && bytes[i] == c.asciiValue! }
        guard let year = number(0, 4), byte(4, "-"), let month = number(5, 2), byte(7, "-"),
            let day = number(8, 2), byte(10, "T"), let hour = number(11, 2), byte(13, ":"),
            let minute = number(14, 2), byte(16, ":"), let second = number(17, 2)
        else { return nil }
        var index = 19
        var millisecond = 0
        if byte(index, ".") {
            var digits = 0
            index += 1
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 3 { millisecond = millisecond * 10 + Int(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits >= 1 else { return nil }
            for _ in 0..<max(0, 3 - digits) { millisecond *= 10 }
            if digits > 3 { return nil }  // sub-millisecond precision would be silently lost
        }
        let rest = String(decoding: bytes[min(index, bytes.count)...], as: UTF8.self)
        guard rest == "Z" || rest == "+00:00" else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CalendarMath.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        return CalendarMath.instant(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond)
    }

    /// ISO 8601 text of a duration (weeks kept as `W`, zero as `PT0S`).
    public static func iso8601(_ d: CalendarDuration) -> String {
        var text = "P"
        if d.years != 0 { text += "\(d.years)Y" }
        if d.months != 0 { text += "\(d.months)M" }
        if d.weeks != 0 { text += "\(d.weeks)W" }
        if d.days != 0 { text += "\(d.days)D" }
        if d.hours != 0 || d.minutes != 0 || d.seconds != 0 || d.milliseconds != 0 {
            text += "T"
            if d.hours != 0 { text += "\(d.hours)H" }
            if d.minutes != 0 { text += "\(d.minutes)M" }
            if d.seconds != 0 || d.milliseconds != 0 {
                let totalMs = d.seconds * 1000 + d.milliseconds
                if totalMs % 1000 == 0 {
                    text += "\(totalMs / 1000)S"
                } else {
                    let fraction = CalendarMath.pad(abs(totalMs % 1000), 3)
                    var trimmed = Substring(fraction)
                    while trimmed.last == "0" { trimmed = trimmed.dropLast() }
                    text += "\(totalMs / 1000).\(trimmed)S"
                }
            }
        }
        return text == "P" ? "PT0S" : text
    }

    /// A whole number of 1 to 9 ASCII digits and one unit (`ms`, `s`, `m`, `h`, `d`, `w`), read byte by byte; nil
    /// for any other text (text with a non-ASCII byte is never one).
    static func parseShort(_ text: String) -> CalendarDuration? {
        let utf8 = text.utf8
        var count = utf8.count
        guard count >= 2, count <= 11 else { return nil }
        var index = utf8.index(before: utf8.endIndex)
        let unit = utf8[index]
        var isMilliseconds = false
        if unit == UInt8(ascii: "s") {
            let before = utf8[utf8.index(before: index)]
            if before == UInt8(ascii: "m") {
                // `ms`: the digits end before the m (`5ms`), never a number of seconds ending in m.
                isMilliseconds = true
                index = utf8.index(before: index)
                count -= 1
            }
        } else if unit != UInt8(ascii: "m") && unit != UInt8(ascii: "h") && unit != UInt8(ascii: "d")
            && unit != UInt8(ascii: "w")
        {
            return nil
        }
        let digits = count - 1
        guard digits >= 1, digits <= 9 else { return nil }
        var value = 0
        for byte in utf8[utf8.startIndex..<index] {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        if isMilliseconds { return .milliseconds(value) }
        switch unit {
        case UInt8(ascii: "s"): return .seconds(value)
        case UInt8(ascii: "m"): return .minutes(value)
        case UInt8(ascii: "h"): return .hours(value)
        case UInt8(ascii: "d"): return .days(value)
        default: return .weeks(value)
        }
    }

    static func parseISO(_ text: String) -> CalendarDuration? {
        var result = CalendarDuration()
        var inTime = false
        var number = ""
        var fraction: String?
        var sawComponent = false
        var lastRank = -1
        // Components must appear in ISO order: Y M W D, then T H M S.
        func apply(_ unit: Character) -> Bool {
            guard !number.isEmpty, number.count <= 9, let value = Int(number) else { return false }
            let rank: Int
            switch (inTime, unit) {
            case (false, "Y"): rank = 0; result.years = value
            case (false, "M"): rank = 1; result.months = value
            case (false, "W"): rank = 2; result.weeks = value
            case (false, "D"): rank = 3; result.days = value
            case (true, "H"): rank = 4; result.hours = value
            case (true, "M"): rank = 5; result.minutes = value
            case (true, "S"):
                rank = 6
                result.seconds = value
                if let fraction {
                    guard !fraction.isEmpty, fraction.count <= 3, let f = Int(fraction) else { return false }
                    var ms = f
                    for _ in 0..<(3 - fraction.count) { ms *= 10 }
                    result.milliseconds = ms
                }
            default: return false
            }
            if fraction != nil && unit != "S" { return false }
            guard rank > lastRank else { return false }
            lastRank = rank
            number = ""
            fraction = nil
            sawComponent = true
            return true
        }
        for character in text.dropFirst() {
            if character.isASCII && character.isNumber {
                if fraction != nil { fraction!.append(character) } else { number.append(character) }
            } else if character == "." && !number.isEmpty && fraction == nil && inTime {
                fraction = ""
            } else if character == "T" && !inTime && number.isEmpty {
                inTime = true
            } else if !apply(character) {
                return nil
            }
        }
        guard number.isEmpty, fraction == nil, sawComponent else { return nil }
        if inTime && lastRank < 4 { return nil }  // "P1DT" has a dangling T
        return result
    }
}
