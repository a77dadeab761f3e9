/// Wall-clock timings of a run (R7.7), measured by the caller: the library never reads a clock.
package struct CohortTimings: Sendable, Equatable {
    /// Seconds from creating the simulation (and its N subscribers) to the end of the run.
    package var wallSeconds: Double
    /// Seconds in the run loop alone.
    package var runSeconds: Double

    package init(wallSeconds: Double, runSeconds: Double) {
        self.wallSeconds = wallSeconds
        self.runSeconds = runSeconds
    }
}

/// The outputs of the cohort model as JSON (every R7 output under its name) and as tables for people.
package enum CohortReport {
    /// A number as JSON: integers without a fraction, others in Swift's shortest round-trip form.
    package static func number(_ value: Double) -> String {
        if value.isFinite && value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return value.isFinite ? "\(value)" : "null"
    }

    /// Rounds to `places` decimals, as text (``DecimalText/fixed(_:places:)``).
    package static func fixed(_ value: Double, places: Int) -> String { DecimalText.fixed(value, places: places) }

    /// `1234567` -> `1,234,567` (``DecimalText/grouped(_:)``).
    package static func grouped(_ value: Int) -> String { DecimalText.grouped(value) }

    static func configurationJSON(_ c: CohortConfiguration, indent: String) -> String {
        var members: [(String, String)] = [
            ("subscribers", String(c.subscribers)), ("months", String(c.months)),
            ("days", number(c.horizonDays)), ("churn", number(c.churn)),
            ("billing_failure", number(c.billingFailure)), ("grace", String(c.grace)), ("seed", String(c.seed)),
            ("price", number(c.price)),
        ]
        // Only when used: cohort-v1's own output is unchanged.
        if c.commitmentShare > 0 { members.append(("commitment_share", number(c.commitmentShare))) }
        return "{\n" + members.map { "\(indent)  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n\(indent)}"
    }

    /// One run as a JSON object, keys in the order of R7 (then proceeds and the recovery curve, which are extras).
    package static func json(_ o: CohortOutputs, timings: CohortTimings? = nil, indent: String = "") -> String {
        var members: [(String, String)] = [
            ("model", "\"\(CohortModel.version)\""),
            ("implementation", "\"simctl-swift\""),
            ("configuration", configurationJSON(o.configuration, indent: indent + "  ")),
            ("paying_month_end", "[" + o.payingMonthEnd.map(String.init).joined(separator: ", ") + "]"),
            ("entitled_people_end", String(o.entitledPeopleEnd)),
            ("paying_end", String(o.payingEnd)),
            ("in_grace_end", String(o.inGraceEnd)),
            ("in_retry_end", String(o.inRetryEnd)),
            ("renewals", String(o.renewals)),
            ("billing_failures", String(o.billingFailures)),
            ("recovered_in_grace", String(o.recoveredInGrace)),
            ("recovered_after_grace", String(o.recoveredAfterGrace)),
            ("involuntary_expirations", String(o.involuntaryExpirations)),
            ("voluntary_expirations", String(o.voluntaryExpirations)),
            ("family_members", String(o.familyMembers)),
            (
                "closed_failures",
                "{\"failures\": \(o.closedFailures.failures), \"recovered_in_grace\": "
                    + "\(o.closedFailures.recoveredInGrace), \"recovered_after_grace\": "
                    + "\(o.closedFailures.recoveredAfterGrace), \"expired\": \(o.closedFailures.expired)}"
            ),
            ("paid_subscriber_days", number(o.paidSubscriberDays)),
            ("events", String(o.events)),
            ("monitor_events", String(o.monitorEvents)),
        ]
        if let timings {
            members.append(("wall_s", fixed(timings.wallSeconds, places: 6)))
            members.append(("run_s", fixed(timings.runSeconds, places: 6)))
            let rate = timings.wallSeconds > 0 ? Double(o.events) / timings.wallSeconds : 0
            members.append(("events_per_s", fixed(rate, places: 0)))
        }
        members.append(("charges_year_one", String(o.chargesYearOne)))
        members.append(("proceeds_year_one", fixed(o.proceedsYearOne, places: 2)))
        members.append(
            (
                "closed_recoveries_by_day",
                "[" + o.closedRecoveriesByDay.map(String.init).joined(separator: ", ") + "]"
            ))
        return "{\n" + members.map { "\(indent)  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n\(indent)}"
    }

    /// Rows of cells as aligned text: the first column left-aligned, the others right-aligned.
    package static func table(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        return rows.map { row in
            var line = ""
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                line += i == 0 ? cell + pad : "  " + pad + cell
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line + "\n"
        }.joined()
    }

    static func graceName(_ grace: Int) -> String { grace == 0 ? "off" : "\(grace) d" }

    /// `, commitment share S` for a header when the run puts a share of subscribers on the monthly plan with a
    /// 12-month commitment, else nothing (cohort-v1's own output is unchanged; docs/population.md, "Commitment plans").
    package static func commitmentShareNote(_ c: CohortConfiguration) -> String {
        c.commitmentShare > 0 ? ", commitment share \(number(c.commitmentShare))" : ""
    }

    /// One run for people: the configuration, the month-end series, the end state, the counts.
    package static func text(_ o: CohortOutputs, timings: CohortTimings? = nil) -> String {
        let c = o.configuration
        var out =
            "cohort model \(CohortModel.version): \(grouped(c.subscribers)) subscribers, \(c.months) months, "
            + "H = \(number(c.horizonDays)) days, churn \(number(c.churn)), billing failure \(number(c.billingFailure)), "
            + "grace \(graceName(c.grace)), seed \(c.seed)" + commitmentShareNote(c) + "\n\n"
        var months = [["month", "paying_month_end"]]
        for (offset, value) in o.payingMonthEnd.enumerated() { months.append(["\(offset + 1)", grouped(value)]) }
        out += table(months) + "\n"
        let rows: [[String]] = [
            ["entitled_people_end", grouped(o.entitledPeopleEnd)],
            ["paying_end", grouped(o.payingEnd)],
            ["in_grace_end", grouped(o.inGraceEnd)],
            ["in_retry_end", grouped(o.inRetryEnd)],
            ["renewals", grouped(o.renewals)],
            ["billing_failures", grouped(o.billingFailures)],
            ["recovered_in_grace", grouped(o.recoveredInGrace)],
            ["recovered_after_grace", grouped(o.recoveredAfterGrace)],
            ["involuntary_expirations", grouped(o.involuntaryExpirations)],
            ["voluntary_expirations", grouped(o.voluntaryExpirations)],
            ["family_members", grouped(o.familyMembers)],
            ["closed_failures.failures", grouped(o.closedFailures.failures)],
            ["closed_failures.recovered_in_grace", grouped(o.closedFailures.recoveredInGrace)],
            ["closed_failures.recovered_after_grace", grouped(o.closedFailures.recoveredAfterGrace)],
            ["closed_failures.expired", grouped(o.closedFailures.expired)],
            ["paid_subscriber_days", fixed(o.paidSubscriberDays, places: 1)],
            ["charges_year_one", grouped(o.chargesYearOne)],
            ["proceeds_year_one", fixed(o.proceedsYearOne, places: 2)],
            ["events", grouped(o.events)],
            ["monitor_events", grouped(o.monitorEvents)],
        ]
        out += table(rows)
        if let timings {
            let rate = timings.wallSeconds > 0 ? Double(o.events) / timings.wallSeconds : 0
            out +=
                "wall_s \(fixed(timings.wallSeconds, places: 3)), run_s \(fixed(timings.runSeconds, places: 3)), "
                + "events_per_s \(grouped(Int(rate.rounded())))\n"
        }
        return out
    }

    /// The grace comparison for people: paying by month per grace length, then the year's totals.
    package static func comparisonText(_ runs: [CohortOutputs]) -> String {
        guard let first = runs.first else { return "" }
        let c = first.configuration
        var out =
            "grace comparison (cohort model \(CohortModel.version)): \(grouped(c.subscribers)) subscribers, "
            + "churn \(number(c.churn)), billing failure \(number(c.billingFailure)), seed \(c.seed), "
            + "price \(fixed(c.price, places: 2))" + commitmentShareNote(c) + "\n\n"
        var months = [["paying at month end"] + runs.map { "grace " + graceName($0.configuration.grace) }]
        for month in 0..<c.months {
            months.append(["month \(month + 1)"] + runs.map { grouped($0.payingMonthEnd[month]) })
        }
        out += table(months) + "\n"
        var totals = [["over the year"] + runs.map { "grace " + graceName($0.configuration.grace) }]
        totals.append(["recovered_in_grace"] + runs.map { grouped($0.recoveredInGrace) })
        totals.append(["recovered_after_grace"] + runs.map { grouped($0.recoveredAfterGrace) })
        totals.append(["recovered (all)"] + runs.map { grouped($0.recoveredInGrace + $0.recoveredAfterGrace) })
        totals.append(["involuntary_expirations"] + runs.map { grouped($0.involuntaryExpirations) })
        totals.append(["paid_subscriber_days"] + runs.map { fixed($0.paidSubscriberDays, places: 1) })
        totals.append(["proceeds at 70%, year one"] + runs.map { fixed($0.proceedsYearOne, places: 2) })
        out += table(totals)
        return out
    }

    /// The grace comparison as JSON: one run object per grace length.
    package static func comparisonJSON(_ runs: [CohortOutputs]) -> String {
        "{\n  \"model\": \"\(CohortModel.version)\",\n  \"compare_grace\": [\n"
            + runs.map { "    " + json($0, indent: "    ") }.joined(separator: ",\n") + "\n  ]\n}\n"
    }
}
