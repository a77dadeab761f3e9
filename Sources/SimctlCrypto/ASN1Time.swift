/// X.509 `Time` (RFC 5280 §4.1.2.5): a date and time in UTC to the second, in years 1950 through 9999. Encoded as
/// UTCTime for years 1950 through 2049 and GeneralizedTime from 2050, both with seconds and without fractions
/// (`YYMMDDHHMMSSZ`, `YYYYMMDDHHMMSSZ`). Certificates carry whole seconds; callers with finer times truncate them
/// (test data only; see ``DER``).
package struct ASN1Time: Hashable, Sendable {
    /// The year, 1950-9999 for a time that can be encoded.
    package var year: Int
    /// The month, 1-12.
    package var month: Int
    /// The day of the month, from 1.
    package var day: Int
    /// The hour, 0-23 (UTC).
    package var hour: Int
    /// The minute, 0-59.
    package var minute: Int
    /// The second, 0-59.
    package var second: Int

    /// A time from its fields in UTC. Not checked here; ``derEncoded`` checks the year.
    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The latest time a certificate can name: 9999-12-31T23:59:59Z, RFC 5280's "no well-defined expiration
    /// date" (§4.1.2.5).
    package static let noWellDefinedExpiration = ASN1Time(
        year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)

    /// The DER encoding in the form RFC 5280 requires for the year (1950-9999).
    var derEncoded: [UInt8] {
        precondition(year >= 1950 && year <= 9999, "RFC 5280 times cover 1950-9999, found \(year)")
        let rest = [month, day, hour, minute, second].map { Self.pad($0, 2) }.joined() + "Z"
        if year < 2050 { return DER.tlv(DER.Tag.utcTime, Array((Self.pad(year % 100, 2) + rest).utf8)) }
        return DER.tlv(DER.Tag.generalizedTime, Array((Self.pad(year, 4) + rest).utf8))
    }

    /// Decodes a `Time`, refusing the forms RFC 5280 forbids: other lengths, missing `Z`, fractions, a
    /// GeneralizedTime before 2050, and out-of-range fields.
    init(node: DERNode, _ what: String) throws(DERError) {
        let text = Array(node.contents)
        let digitCount: Int
        switch node.tag {
        case DER.Tag.utcTime: digitCount = 12
        case DER.Tag.generalizedTime: digitCount = 14
        default:
            throw DERError("\(what): expected UTCTime or GeneralizedTime, found tag 0x\(DERNode.hex(node.tag))")
        }
        guard text.count == digitCount + 1, text.last == UInt8(ascii: "Z"),
            text.dropLast().allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            let form = digitCount == 12 ? "YYMMDDHHMMSSZ" : "YYYYMMDDHHMMSSZ"
            throw DERError(
                "\(what): expected \(form) (RFC 5280 §4.1.2.5), found '\(String(decoding: text, as: UTF8.self))'")
        }
        var index = 0
        func number(_ width: Int) -> Int {
            var value = 0
            for _ in 0..<width {
                value = value * 10 + Int(text[index] - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }
        var year: Int
        if digitCount == 12 {
            year = number(2)
            year += year >= 50 ? 1900 : 2000
        } else {
            year = number(4)
            guard year >= 2050 else {
                throw DERError("\(what): years before 2050 must be UTCTime (RFC 5280 §4.1.2.5), found \(year)")
            }
        }
        let (month, day, hour, minute, second) = (number(2), number(2), number(2), number(2), number(2))
        guard (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { throw DERError("\(what): '\(String(decoding: text, as: UTF8.self))' is not a valid date and time") }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Days in `month` of `year` in the Gregorian calendar, the one ASN.1's UTCTime and GeneralizedTime use
    /// (X.680 defines them by ISO 8601): February has 29 days in years divisible by 4, except in centuries not
    /// divisible by 400.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
