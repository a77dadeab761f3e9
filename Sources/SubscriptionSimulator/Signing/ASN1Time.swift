/// X.509 `Time` (RFC 5280 §4.1.2.5): UTCTime for years 1950 through 2049, GeneralizedTime from 2050, both in
/// UTC with seconds and without fractions (`YYMMDDHHMMSSZ`, `YYYYMMDDHHMMSSZ`). Certificates carry whole seconds,
/// so instants are truncated to the second when encoded (test data only; see ``DER``).
public enum ASN1Time {
    /// The latest instant a certificate can name: 9999-12-31T23:59:59Z, RFC 5280's "no well-defined expiration
    /// date" (§4.1.2.5).
    public static let noWellDefinedExpiration = CalendarMath.instant(
        year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)

    /// The DER encoding of `instant` in the form RFC 5280 requires for its year (1950-9999).
    public static func encode(_ instant: Instant) -> [UInt8] {
        let c = CalendarMath.components(of: instant)
        precondition(c.year >= 1950 && c.year <= 9999, "RFC 5280 times cover 1950-9999, found \(c.year)")
        let rest = [c.month, c.day, c.hour, c.minute, c.second].map { pad($0, 2) }.joined() + "Z"
        if c.year < 2050 { return DER.tlv(DER.Tag.utcTime, Array((pad(c.year % 100, 2) + rest).utf8)) }
        return DER.tlv(DER.Tag.generalizedTime, Array((pad(c.year, 4) + rest).utf8))
    }

    /// Decodes a `Time`, refusing the forms RFC 5280 forbids: other lengths, missing `Z`, fractions, a
    /// GeneralizedTime before 2050, and out-of-range fields.
    public static func decode(_ node: DERNode, _ what: String) throws(DERError) -> Instant {
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
        guard (1...12).contains(month), day >= 1, day <= CalendarMath.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { throw DERError("\(what): '\(String(decoding: text, as: UTF8.self))' is not a valid date and time") }
        return CalendarMath.instant(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
