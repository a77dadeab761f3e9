/// What a timeline picture shows (``TimelinePicture``): which customers, which time window, which axis. The same
/// options for `simctl run --format svg`, the picture beside `--out DIR` and the server's `timeline.svg` (as query
/// parameters); docs/scenario-format.md, "The picture".
package struct PictureView: Equatable, Sendable {
    /// How the axis is labelled.
    package enum Axis: String, CaseIterable, Sendable {
        /// Dated ticks on calendar boundaries (hours, midnights, Mondays, month starts), UTC.
        case dates
        /// Offsets from the start, written as a scenario's `at:` is (`+10d`, `+1h`, `P1M`).
        case offsets
    }

    /// Customer names or patterns (`*` any text, `?` one character); empty: every customer, the most eventful
    /// first when they do not all fit.
    package var customers: [String] = []
    /// The window drawn; nil: the scenario's start, the run's end.
    package var from: Instant? = nil
    package var to: Instant? = nil
    package var axis: Axis = .dates

    package init(customers: [String] = [], from: Instant? = nil, to: Instant? = nil, axis: Axis = .dates) {
        self.customers = customers
        self.from = from
        self.to = to
        self.axis = axis
    }

    /// Whether `customer` is one the view asks for.
    package func selects(_ customer: String) -> Bool {
        customers.isEmpty || customers.contains { Self.matches(customer, $0) }
    }

    /// A pattern has `*` or `?`.
    static func isPattern(_ text: String) -> Bool { text.contains("*") || text.contains("?") }

    /// Shell-style matching: `*` any text (also none), `?` one character, anything else itself.
    package static func matches(_ name: String, _ pattern: String) -> Bool {
        let n = Array(name)
        let p = Array(pattern)
        // Iterative wildcard matching with backtracking to the last `*`.
        var i = 0
        var j = 0
        var star = -1
        var mark = 0
        while i < n.count {
            if j < p.count && (p[j] == "?" || p[j] == n[i]) {
                i += 1
                j += 1
            } else if j < p.count && p[j] == "*" {
                star = j
                mark = i
                j += 1
            } else if star >= 0 {
                j = star + 1
                mark += 1
                i = mark
            } else {
                return false
            }
        }
        while j < p.count && p[j] == "*" { j += 1 }
        return j == p.count
    }

    /// The options as given on the command line or in a query (`customers` comma-separated; `from`, `to` an offset
    /// from `start` such as 10d, 1h, P1M or an ISO 8601 instant; `axis` dates or offsets), checked against the
    /// scenario's customers: a name that is not one of them, a pattern that matches none, a window that ends before
    /// it starts are errors naming the option (`optionPrefix` + name: `--customers`, or `customers` in a query).
    package static func parse(
        customers: String?, from: String?, to: String?, axis: String?, start: Instant, known: [String],
        optionPrefix: String = "--"
    ) -> Result<PictureView, PictureViewError> {
        var view = PictureView()
        if let customers {
            let names = customers.split(separator: ",", omittingEmptySubsequences: false).map {
                Self.trimmed(String($0))
            }
            guard customers.utf8.count <= 10_000, names.count <= 1_000, !names.contains(where: \.isEmpty) else {
                return .failure(
                    PictureViewError(
                        option: optionPrefix + "customers",
                        message: "needs customer names or patterns separated by commas (at most 1,000, none empty), "
                            + "such as alice,bob or 'user-1*'"))
            }
            let knownSet = Set(known)
            for name in names {
                if isPattern(name) {
                    guard known.contains(where: { matches($0, name) }) else {
                        return .failure(
                            PictureViewError(
                                option: optionPrefix + "customers",
                                message: "the pattern '\(shown(name))' matches none of the scenario's customers"
                                    + Self.listed(known)))
                    }
                } else if !knownSet.contains(name) {
                    return .failure(
                        PictureViewError(
                            option: optionPrefix + "customers",
                            message: "no customer '\(shown(name))' in the scenario" + Self.listed(known)))
                }
            }
            view.customers = names
        }
        func instant(_ text: String?, _ option: String) -> Result<Instant?, PictureViewError> {
            guard let text else { return .success(nil) }
            if let instant = CalendarDurationSyntax.parseInstant(text) { return .success(instant) }
            if let duration = CalendarDurationSyntax.parse(text),
                let instant = CalendarMath.checkedAdd(duration, to: start)
            {
                return .success(instant)
            }
            return .failure(
                PictureViewError(
                    option: optionPrefix + option,
                    message: "needs an offset from the start such as 0, 30m, 1h, 10d, 2w, P1M or an ISO instant "
                        + "such as 2026-06-01T00:00:00Z, found '\(shown(text))'"))
        }
        switch instant(from, "from") {
        case .failure(let error): return .failure(error)
        case .success(let value): view.from = value
        }
        switch instant(to, "to") {
        case .failure(let error): return .failure(error)
        case .success(let value): view.to = value
        }
        if let from = view.from, let to = view.to, to <= from {
            return .failure(
                PictureViewError(
                    option: optionPrefix + "to",
                    message: "must be later than \(optionPrefix)from (\(CalendarMath.iso8601(from))), found "
                        + CalendarMath.iso8601(to)))
        }
        if let axis {
            guard let parsed = Axis(rawValue: axis) else {
                return .failure(
                    PictureViewError(
                        option: optionPrefix + "axis", message: "needs dates or offsets, found '\(shown(axis))'"))
            }
            view.axis = parsed
        }
        return .success(view)
    }

    static func trimmed(_ text: String) -> String {
        var cut = Substring(text)
        while cut.first == " " { cut.removeFirst() }
        while cut.last == " " { cut.removeLast() }
        return String(cut)
    }

    static func shown(_ text: String) -> String {
        let escaped = SourceText.escapingControlCharacters(text)
        return escaped.count > 80 ? String(escaped.prefix(80)) + "..." : escaped
    }

    static func listed(_ known: [String]) -> String {
        guard !known.isEmpty else { return " (it has none)" }
        let first = known.prefix(8).joined(separator: ", ")
        return " (its customers: \(first)\(known.count > 8 ? ", ... \(known.count) in all" : ""))"
    }
}

/// A picture option that cannot be used: the option (`--customers`, or `customers` in a query) and why.
package struct PictureViewError: Error, Equatable, Sendable, CustomStringConvertible {
    package var option: String
    package var message: String
    package var description: String { "option '\(option)' \(message)" }
}
