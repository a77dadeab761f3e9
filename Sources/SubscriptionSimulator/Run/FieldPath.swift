/// Paths into a decoded notification as scenario files write them: `data.X`, `transaction.X` (the decoded
/// `signedTransactionInfo`), `renewal.X` (the decoded `signedRenewalInfo`), `appTransaction.X` (the decoded
/// `appData.signedAppTransactionInfo` of `RESCIND_CONSENT`), or a top-level field; how a scenario's
/// `fields:` expectations are looked up and compared (``ExpectationChecker``, ``ExpectedFieldPaths``).
public enum FieldPath {
    /// The value at `path` in a decoded notification (``NotificationEncoder/decodedView(of:app:)``), or nil.
    public static func lookup(_ path: String, in decoded: JSONValue) -> JSONValue? {
        if path.hasPrefix("transaction.") {
            return decoded.value(at: "data.signedTransactionInfo." + path.dropFirst("transaction.".count))
        }
        if path.hasPrefix("appTransaction.") {
            return decoded.value(at: "appData.signedAppTransactionInfo." + path.dropFirst("appTransaction.".count))
        }
        if path.hasPrefix("renewal.") {
            return decoded.value(at: "data.signedRenewalInfo." + path.dropFirst("renewal.".count))
        }
        return decoded.value(at: path)
    }

    /// Whether `value` equals the expected text. Date fields (names ending in `Date`) are compared as times: the
    /// expected text is an offset from the scenario's start or an ISO instant. A list of strings is its items joined
    /// by commas (`a,b`).
    public static func matches(_ value: JSONValue, expected: String, path: String, start: Instant) -> Bool {
        switch value {
        case .integer(let number):
            if path.hasSuffix("Date") {
                let instant =
                    CalendarDurationSyntax.parse(expected).map { start.adding($0) }
                    ?? CalendarDurationSyntax.parseInstant(expected)
                return instant?.millisecondsSince1970 == number
            }
            return Int64(expected) == number
        case .string(let text): return text == expected
        case .bool(let flag): return (flag ? "true" : "false") == expected
        case .decimal(let text): return text == expected
        case .array(let items):
            // A list of strings (`eligibleWinBackOfferIds`) is written as its items separated by commas.
            let texts = items.compactMap(\.stringValue)
            return texts.count == items.count && texts.joined(separator: ",") == expected
        case .null, .object: return false
        }
    }

    /// How a found value is shown in a failure message (dates also as ISO instants).
    public static func render(_ value: JSONValue, path: String) -> String {
        if path.hasSuffix("Date"), let ms = value.integerValue {
            return "\(ms) (\(Instant(millisecondsSince1970: ms)))"
        }
        return CanonicalJSON.string(value)
    }
}
