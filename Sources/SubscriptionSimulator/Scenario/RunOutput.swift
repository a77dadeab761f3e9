/// The three ways a run is printed. All deterministic: the same run gives the same bytes.
public enum RunOutput {
    /// `jsonl`: exactly one App Store POST body (`{"signedPayload":"..."}`) per line, in virtual-time order.
    /// Signed by `signer`, or by the environment's default signer when it is `nil`.
    public static func jsonl(_ run: ScenarioRun, signer: (any PayloadSigner)? = nil) -> String {
        let encoder = NotificationEncoder(app: run.store.app, signer: signer)
        return run.store.notifications.map { encoder.encode($0).postBody + "\n" }.joined()
    }

    /// `decoded`: one JSON object per line: the recipient, the instant (ms and ISO) and the payload with its nested
    /// JWS decoded.
    public static func decoded(_ run: ScenarioRun) -> String {
        // Only the decoded payload is printed, so nothing needs a real signature.
        let encoder = NotificationEncoder(app: run.store.app, signer: UnsignedTestSigner())
        return run.store.notifications.map { n in
            var line = JSONObjectBuilder()
            line.set("recipient", n.recipient)  // absent for a notification about the app
            line.set("instant", n.instant.millisecondsSince1970)
            line.set("at", n.instant.description)
            line.set("payload", encoder.encode(n).decodedPayload)
            return CanonicalJSON.string(line.value) + "\n"
        }.joined()
    }

    /// `timeline`: a table for people: virtual time, offset from the start, customer, notification type/subtype,
    /// status and key fields, with a line wherever a customer's access changes.
    public static func timeline(_ run: ScenarioRun) -> String {
        let start = run.scenario.start
        var rows: [(Instant, Int, [String])] = []
        for (index, n) in run.store.notifications.enumerated() {
            rows.append((n.instant, index * 2, timelineRow(n, start: start)))
        }
        var previous: [String: [String]] = [:]
        for (index, change) in run.store.entitlementChanges.enumerated() {
            rows.append((change.instant, Int.max / 2 + index, timelineRow(change, start: start, previous: &previous)))
        }
        rows.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        var widths = [Int](repeating: 0, count: timelineHeader.count)
        for row in [timelineHeader] + rows.map(\.2) {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        var out = timelineTitle(run.scenario, notifications: run.store.notifications.count)
        for row in [timelineHeader] + rows.map(\.2) { out += timelineLine(row, widths: widths) }
        return out
    }

    static let timelineHeader = ["TIME", "OFFSET", "CUSTOMER", "NOTIFICATION", "STATUS", "DETAILS"]

    /// The lines above the table.
    static func timelineTitle(_ scenario: Scenario, notifications: Int) -> String {
        "\(scenario.name)\n"
            + "start \(scenario.start) · seed \(scenario.seed) · until \(scenario.until) · \(notifications) notifications\n\n"
    }

    /// One table line: every cell but the last padded to its column's width and two spaces, no trailing spaces.
    static func timelineLine(_ row: [String], widths: [Int]) -> String {
        var line = ""
        for (i, cell) in row.enumerated() {
            line += i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2)
        }
        while line.last == " " { line.removeLast() }
        return line + "\n"
    }

    /// A notification's row.
    static func timelineRow(_ n: SentNotification, start: Instant) -> [String] {
        var details: [String] = n.transaction.map { ["tx \($0.transactionId)"] } ?? []
        if n.transaction?.ownership == .familyShared { details.append("family shared") }
        if let expires = n.transaction?.expiresDate { details.append("expires \(expires)") }
        if let grace = n.renewal?.gracePeriodExpiresDate, n.status == .gracePeriod {
            details.append("grace until \(grace)")
        }
        if let revocation = n.transaction?.revocation { details.append("revoked (reason \(revocation.reason))") }
        if let renewal = n.renewal, !renewal.autoRenewOn, n.type != .refund, n.type != .revoke {
            details.append("auto-renew off")
        }
        let type = n.type.rawValue + (n.subtype.map { " " + $0.rawValue } ?? "")
        return [
            n.instant.description, offset(from: start, to: n.instant), n.recipient ?? "(app)", type,
            n.status.map { String($0.statusCode) } ?? "-", details.joined(separator: ", "),
        ]
    }

    /// An access row: what the customer gained and lost since their previous change (`previous` is updated).
    static func timelineRow(_ change: EntitlementChange, start: Instant, previous: inout [String: [String]])
        -> [String]
    {
        let before = Set(previous[change.customer] ?? [])
        let after = Set(change.products)
        previous[change.customer] = change.products
        let gained = after.subtracting(before).sorted().map { "+" + $0 }
        let lost = before.subtracting(after).sorted().map { "-" + $0 }
        return [
            change.instant.description, offset(from: start, to: change.instant), change.customer, "access", "",
            (gained + lost).joined(separator: " "),
        ]
    }

    /// `+1h`, `+40d`, `+31d 2h 30m`: the time from `start` in days, hours, minutes and seconds.
    public static func offset(from start: Instant, to instant: Instant) -> String {
        var ms = start.milliseconds(to: instant)
        if ms == 0 { return "0" }
        let sign = ms < 0 ? "-" : "+"
        ms = abs(ms)
        let units: [(Int64, String)] = [(86_400_000, "d"), (3_600_000, "h"), (60_000, "m"), (1000, "s"), (1, "ms")]
        var parts: [String] = []
        for (size, name) in units where ms >= size {
            parts.append("\(ms / size)\(name)")
            ms %= size
        }
        return sign + parts.joined(separator: " ")
    }

    /// The fixture folder's files: `NNNN.json` (one POST body each, numbered from 0001 in virtual-time order) and
    /// `manifest.json` listing each file's recipient, instant, type and subtype. Signed by `signer`, or by the
    /// environment's default signer when it is `nil`.
    public static func fixtureFiles(_ run: ScenarioRun, signer: (any PayloadSigner)? = nil) -> [(
        name: String, contents: String
    )] {
        let encoder = NotificationEncoder(app: run.store.app, signer: signer)
        var files: [(String, String)] = []
        var manifest: [JSONValue] = []
        let width = max(4, String(run.store.notifications.count).count)
        for (index, n) in run.store.notifications.enumerated() {
            let number = String(index + 1)
            let name = String(repeating: "0", count: width - number.count) + number + ".json"
            files.append((name, encoder.encode(n).postBody + "\n"))
            var entry = JSONObjectBuilder()
            entry.set("file", name)
            entry.set("recipient", n.recipient)
            entry.set("instant", n.instant)
            entry.set("at", n.instant.description)
            entry.set("notificationType", n.type.rawValue)
            entry.set("subtype", n.subtype?.rawValue)
            entry.set("notificationUUID", n.notificationUUID)
            manifest.append(entry.value)
        }
        let header: JSONValue = .object([
            "scenario": .string(run.scenario.name),
            "seed": .integer(Int64(bitPattern: run.scenario.seed)),
            "start": .string(run.scenario.start.description),
            "until": .string(run.scenario.until.description),
            "notifications": .array(manifest),
        ])
        files.append(("manifest.json", CanonicalJSON.pretty(header) + "\n"))
        return files
    }
}
