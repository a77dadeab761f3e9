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
    /// status and key fields, with a line wherever a customer's access changes. The finished run handed to a
    /// ``TimelineSink`` at once: one writer for both.
    public static func timeline(_ run: ScenarioRun) -> String {
        var bytes: [UInt8] = []
        withoutActuallyEscaping({ (chunk: [UInt8]) in bytes.append(contentsOf: chunk) }) { write in
            var sink = TimelineSink(scenario: run.scenario, write: write)
            sink.receive(run.store.notifications[...], run.store.entitlementChanges[...])
            sink.finish()
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let timelineHeader = ["TIME", "OFFSET", "CUSTOMER", "NOTIFICATION", "STATUS", "DETAILS"]

    /// The lines above the table.
    static func timelineTitle(_ scenario: Scenario, notifications: Int) -> String {
        "\(scenario.name)\n"
            + "start \(scenario.start) · seed \(scenario.seed) · until \(scenario.until) · \(notifications) notifications\n\n"
    }

    /// A notification's row: time, offset, recipient (`(app)` for a notification about the app), type and subtype,
    /// status code (`-` without one), and the details: the transaction, family sharing, expiry, grace period,
    /// revocation, auto-renew off.
    static func appendTimelineRow(_ n: SentNotification, start: Instant, to rows: inout TimelineRows) {
        CalendarMath.appendISO8601(n.instant, to: &rows.bytes)
        rows.endCell()
        appendOffset(from: start, to: n.instant, to: &rows.bytes)
        rows.endCell()
        rows.append(n.recipient ?? "(app)")
        rows.endCell()
        rows.append(n.type.rawValue)
        if let subtype = n.subtype {
            rows.append(" ")
            rows.append(subtype.rawValue)
        }
        rows.endCell()
        if let status = n.status { appendInteger(Int64(status.statusCode), to: &rows.bytes) } else { rows.append("-") }
        rows.endCell()
        var first = true
        func detail(_ text: String) {
            if !first { rows.append(", ") }
            first = false
            rows.append(text)
        }
        // Fields are read through `?.`: binding the transaction or renewal info would copy the whole record.
        if let transactionId = n.transaction?.transactionId {
            detail("tx ")
            rows.append(transactionId)
            if n.transaction?.ownership == .familyShared { detail("family shared") }
            if let expires = n.transaction?.expiresDate {
                detail("expires ")
                CalendarMath.appendISO8601(expires, to: &rows.bytes)
            }
        }
        if let grace = n.renewal?.gracePeriodExpiresDate, n.status == .gracePeriod {
            detail("grace until ")
            CalendarMath.appendISO8601(grace, to: &rows.bytes)
        }
        if let revocation = n.transaction?.revocation {
            detail("revoked (reason ")
            appendInteger(Int64(revocation.reason), to: &rows.bytes)
            rows.append(")")
        }
        if n.renewal?.autoRenewOn == false, n.type != .refund, n.type != .revoke {
            detail("auto-renew off")
        }
        rows.endCell()
    }

    /// An access row: what the customer gained (`+product`) and lost (`-product`) since their previous change,
    /// each sorted (`previous` is updated).
    static func appendTimelineRow(
        _ change: EntitlementChange, start: Instant, previous: inout LastEntitlements, to rows: inout TimelineRows
    ) {
        let before = previous.update(change.customer, to: change.products)
        let after = change.products
        let gained: [String]
        let lost: [String]
        if before.count <= 1 && after.count <= 1 {
            // The usual case, without sets: at most one product before and after.
            let same = before.first == after.first
            gained = same ? [] : after
            lost = same ? [] : before
        } else {
            let beforeSet = Set(before)
            let afterSet = Set(after)
            gained = afterSet.subtracting(beforeSet).sorted()
            lost = beforeSet.subtracting(afterSet).sorted()
        }
        CalendarMath.appendISO8601(change.instant, to: &rows.bytes)
        rows.endCell()
        appendOffset(from: start, to: change.instant, to: &rows.bytes)
        rows.endCell()
        rows.append(change.customer)
        rows.endCell()
        rows.append("access")
        rows.endCell()
        rows.endCell()
        var first = true
        for (sign, products) in [("+", gained), ("-", lost)] {
            for product in products {
                if !first { rows.append(" ") }
                first = false
                rows.append(sign)
                rows.append(product)
            }
        }
        rows.endCell()
    }

    /// `+1h`, `+40d`, `+31d 2h 30m`: the time from `start` in days, hours, minutes and seconds.
    public static func offset(from start: Instant, to instant: Instant) -> String {
        var bytes: [UInt8] = []
        appendOffset(from: start, to: instant, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``offset(from:to:)`` appended as bytes.
    static func appendOffset(from start: Instant, to instant: Instant, to out: inout [UInt8]) {
        let difference = start.milliseconds(to: instant)
        if difference == 0 { return out.append(UInt8(ascii: "0")) }
        out.append(difference < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        var ms = difference.magnitude
        var first = true
        func unit(_ size: UInt64, _ letter: UInt8, _ second: UInt8? = nil) {
            guard ms >= size else { return }
            if !first { out.append(UInt8(ascii: " ")) }
            first = false
            CalendarMath.appendDigits(Int(ms / size), width: 1, to: &out)
            out.append(letter)
            if let second { out.append(second) }
            ms %= size
        }
        unit(86_400_000, UInt8(ascii: "d"))
        unit(3_600_000, UInt8(ascii: "h"))
        unit(60_000, UInt8(ascii: "m"))
        unit(1000, UInt8(ascii: "s"))
        unit(1, UInt8(ascii: "m"), UInt8(ascii: "s"))
    }

    /// A signed decimal integer appended as bytes.
    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        CalendarMath.appendDigits(Int(truncatingIfNeeded: value), width: 1, to: &out)
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

/// What each customer was last entitled to, for the timeline's access rows. Each distinct list of products is kept
/// once and a customer maps to its number: a run's customers share a handful of lists, so this costs a few bytes per
/// customer rather than an array each.
struct LastEntitlements {
    var lists: [[String]] = [[]]
    var numbers: [[String]: Int32] = [[]: 0]
    var byCustomer: [String: Int32] = [:]

    /// Records `products` as the customer's and returns what they were before (nothing, the first time).
    mutating func update(_ customer: String, to products: [String]) -> [String] {
        let number: Int32
        if let known = numbers[products] {
            number = known
        } else {
            number = Int32(lists.count)
            lists.append(products)
            numbers[products] = number
        }
        return lists[Int(byCustomer.updateValue(number, forKey: customer) ?? 0)]
    }
}
