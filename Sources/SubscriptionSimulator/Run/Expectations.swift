/// Judges expectations against a finished run. `entitled` and `status` at T see every event at or before T.
public enum ExpectationChecker {
    public static func check(_ expectation: Expectation, against store: SimulatedStore, file: String)
        -> [ExpectationFailure]
    {
        func failure(_ location: SourceLocation, _ message: String) -> ExpectationFailure {
            ExpectationFailure(file: file, location: location, message: message)
        }
        switch expectation {
        case .entitled(let at, let products, let location):
            return products.keys.sorted().compactMap { customer in
                let actual = store.entitlements(for: customer, at: at)
                let expected = products[customer]!
                guard actual != expected else { return nil }
                return failure(
                    location,
                    "at \(at), \(customer) is entitled to \(list(actual)); expected \(list(expected))")
            }
        case .status(let at, let codes, let location):
            var failures: [ExpectationFailure] = []
            for customer in codes.keys.sorted() {
                for productId in codes[customer]!.keys.sorted() {
                    let expected = codes[customer]![productId]!
                    let actual = store.status(of: productId, for: customer, at: at)?.statusCode
                    if actual != expected {
                        failures.append(
                            failure(
                                location,
                                "at \(at), \(customer)'s status for \(productId) is \(actual.map(String.init) ?? "none (never subscribed)"); expected \(expected)"
                            ))
                    }
                }
            }
            return failures
        case .notifications(let subject, let mode, let items, let location):
            let actual =
                subject.map { store.notifications(for: $0) } ?? store.notifications.filter(\.isAboutTheApp)
            let customer = subject ?? "the app"
            switch mode {
            case .exactly:
                var failures: [ExpectationFailure] = []
                for (index, item) in items.enumerated() {
                    guard index < actual.count else {
                        failures.append(
                            failure(
                                item.location,
                                "\(customer) received no notification #\(index + 1); expected \(describe(item))"))
                        continue
                    }
                    if let problem = mismatch(item, actual[index], start: store.start, app: store.app) {
                        failures.append(failure(item.location, "\(customer)'s notification #\(index + 1): \(problem)"))
                    }
                }
                if actual.count > items.count {
                    let extra = actual[items.count...].map(describe).joined(separator: "; ")
                    failures.append(
                        failure(
                            location,
                            "\(customer) received \(actual.count) notifications, \(actual.count - items.count) more than expected: \(extra)"
                        ))
                }
                return failures
            case .includes:
                var next = 0
                for item in items {
                    guard
                        let found = actual[next...].firstIndex(where: {
                            mismatch(item, $0, start: store.start, app: store.app) == nil
                        })
                    else {
                        // A notification of the expected type and time whose fields differ: name the field and
                        // both values rather than listing everything received.
                        if let near = actual[next...].first(where: {
                            $0.type == item.type && $0.subtype == item.subtype && $0.instant == item.at
                        }), let problem = mismatch(item, near, start: store.start, app: store.app) {
                            return [failure(item.location, "\(customer)'s \(describe(near)): \(problem)")]
                        }
                        let received = actual.map(describe).joined(separator: "; ")
                        return [
                            failure(
                                item.location,
                                "\(customer) did not receive \(describe(item)) (in order); received: \(received.isEmpty ? "nothing" : received)"
                            )
                        ]
                    }
                    next = found + 1
                }
                return []
            }
        }
    }

    /// Why `actual` does not match `item`, or nil when it does.
    static func mismatch(
        _ item: ExpectedNotification, _ actual: SentNotification, start: Instant, app: AppConfiguration
    ) -> String? {
        if actual.type != item.type || actual.subtype != item.subtype || actual.instant != item.at {
            return "expected \(describe(item)), found \(describe(actual))"
        }
        if item.fields.isEmpty { return nil }
        let decoded = NotificationEncoder.decodedView(of: actual, app: app)
        for field in item.fields {
            guard let value = FieldPath.lookup(field.path, in: decoded) else {
                return
                    "expected \(field.path) = \(field.expected) in \(describe(actual)), but the payload has no \(field.path)"
            }
            if !FieldPath.matches(value, expected: field.expected, path: field.path, start: start) {
                return
                    "expected \(field.path) = \(field.expected) in \(describe(actual)), found \(FieldPath.render(value, path: field.path))"
            }
        }
        return nil
    }

    static func describe(_ item: ExpectedNotification) -> String {
        "\(item.type.rawValue)\(item.subtype.map { "/\($0.rawValue)" } ?? "") at \(item.at)"
    }

    static func describe(_ n: SentNotification) -> String {
        "\(n.type.rawValue)\(n.subtype.map { "/\($0.rawValue)" } ?? "") at \(n.instant)"
    }

    static func list(_ products: [String]) -> String {
        products.isEmpty ? "nothing" : "[" + products.joined(separator: ", ") + "]"
    }

}

/// Judges a scenario's expectations while it streams (``ScenarioRunner/stream(_:retention:into:)``), with the same
/// verdicts and messages as ``ExpectationChecker`` on the finished run, keeping only what each kind needs:
/// - `entitled` and `status` at T: the last entitlement change, and the last status sent, of each customer and
///   product they name; judged once the stream passes T (every event at or before T has been seen) or at the end.
/// - `notifications` `exactly`: a count, the message of each item that did not match, and the description of
///   each notification beyond the expected ones.
/// - `notifications` `includes`: the next item to find and the first near miss for it; the customer's received
///   notifications are kept as one short description each, only until every item is found (the failure message
///   lists them).
public struct ExpectationTracker {
    let file: String
    let start: Instant
    let app: AppConfiguration
    let expectations: [Expectation]
    /// Indices of the `entitled` and `status` expectations not judged yet, latest instant first.
    var waiting: [Int]
    var failuresByExpectation: [[ExpectationFailure]]
    /// Current products of the customers `entitled` names.
    var entitlements: [String: [String]] = [:]
    /// Last status code sent per customer and product that `status` names.
    var statuses: [String: [String: Int]] = [:]
    var progress: [Int: NotificationProgress] = [:]
    /// Expectation indices by customer, for `notifications`; `watchingApp` for those about the app.
    var watching: [String: [Int]] = [:]
    var watchingApp: [Int] = []

    struct NotificationProgress {
        var received = 0
        /// `exactly`: mismatch messages by item; `includes`: unused.
        var itemProblems: [Int: String] = [:]
        var extra: [String] = []
        /// `includes`: the next item to find, its first near miss, and what the customer received.
        var next = 0
        var nearMiss: String?
        var receivedDescriptions: [String] = []
    }

    public init(_ scenario: Scenario) {
        file = scenario.file
        start = scenario.start
        app = scenario.app
        expectations = scenario.expectations
        failuresByExpectation = Array(repeating: [], count: expectations.count)
        var timed: [(Instant, Int)] = []
        for (index, expectation) in expectations.enumerated() {
            switch expectation {
            case .entitled(let at, let products, _):
                timed.append((at, index))
                for customer in products.keys { entitlements[customer] = [] }
            case .status(let at, _, _):
                timed.append((at, index))
            case .notifications(let subject, _, _, _):
                if let subject { watching[subject, default: []].append(index) } else { watchingApp.append(index) }
                progress[index] = NotificationProgress()
            }
        }
        waiting = timed.sorted { ($0.0, $0.1) > ($1.0, $1.1) }.map(\.1)
        watchedStatusProducts = Set(
            expectations.flatMap { expectation -> [String] in
                if case .status(_, let codes, _) = expectation {
                    return codes.flatMap { customer, products in products.keys.map { customer + "\u{0}" + $0 } }
                }
                return []
            })
    }

    var watchedStatusProducts: Set<String> = []

    /// Takes what the store sent since the previous call (in the order sent).
    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        // A scenario without expectations (a large generated one, usually) has nothing to judge.
        if expectations.isEmpty { return }
        var n = notifications.startIndex
        var c = changes.startIndex
        while n < notifications.endIndex || c < changes.endIndex {
            // In instant order; at one instant the order between the two kinds does not matter for any judgement.
            let takeNotification =
                c == changes.endIndex
                || (n < notifications.endIndex && notifications[n].instant <= changes[c].instant)
            let instant = takeNotification ? notifications[n].instant : changes[c].instant
            judge(before: instant)
            if takeNotification {
                see(notifications[n])
                n += 1
            } else {
                let change = changes[c]
                if entitlements[change.customer] != nil { entitlements[change.customer] = change.products }
                c += 1
            }
        }
    }

    /// The failures, in the order of the expectations (as ``ExpectationChecker`` gives them), once the run is over.
    public func failures() -> [ExpectationFailure] {
        var copy = self
        copy.judge(before: nil)
        for (index, expectation) in expectations.enumerated() {
            guard case .notifications(let subject, let mode, let items, let location) = expectation,
                let state = copy.progress[index]
            else { continue }
            copy.failuresByExpectation[index] = Self.notificationFailures(
                subject ?? "the app", mode, items, location, state, file: file)
        }
        return copy.failuresByExpectation.flatMap { $0 }
    }

    /// Judges the `entitled` and `status` expectations before `instant` (all of them when nil).
    mutating func judge(before instant: Instant?) {
        while let index = waiting.last {
            let expectation = expectations[index]
            switch expectation {
            case .entitled(let at, let products, let location):
                if let instant, at >= instant { return }
                failuresByExpectation[index] = products.keys.sorted().compactMap { customer in
                    let actual = entitlements[customer] ?? []
                    let expected = products[customer]!
                    guard actual != expected else { return nil }
                    return ExpectationFailure(
                        file: file, location: location,
                        message:
                            "at \(at), \(customer) is entitled to \(ExpectationChecker.list(actual)); expected \(ExpectationChecker.list(expected))"
                    )
                }
            case .status(let at, let codes, let location):
                if let instant, at >= instant { return }
                var found: [ExpectationFailure] = []
                for customer in codes.keys.sorted() {
                    for productId in codes[customer]!.keys.sorted() {
                        let expected = codes[customer]![productId]!
                        let actual = statuses[customer]?[productId]
                        if actual != expected {
                            found.append(
                                ExpectationFailure(
                                    file: file, location: location,
                                    message:
                                        "at \(at), \(customer)'s status for \(productId) is \(actual.map(String.init) ?? "none (never subscribed)"); expected \(expected)"
                                ))
                        }
                    }
                }
                failuresByExpectation[index] = found
            case .notifications:
                break
            }
            waiting.removeLast()
        }
    }

    mutating func see(_ n: SentNotification) {
        if !watchedStatusProducts.isEmpty, let status = n.status, let recipient = n.recipient,
            let productId = n.transaction?.productId, watchedStatusProducts.contains(recipient + "\u{0}" + productId)
        {
            statuses[recipient, default: [:]][productId] = status.statusCode
        }
        let indices: [Int]
        if let recipient = n.recipient {
            guard !watching.isEmpty, let found = watching[recipient] else { return }
            indices = found
        } else {
            indices = watchingApp
        }
        for index in indices {
            guard case .notifications(_, let mode, let items, _) = expectations[index] else { continue }
            var state = progress[index]!
            defer {
                state.received += 1
                progress[index] = state
            }
            switch mode {
            case .exactly:
                if state.received < items.count {
                    if let problem = ExpectationChecker.mismatch(items[state.received], n, start: start, app: app) {
                        state.itemProblems[state.received] = problem
                    }
                } else {
                    state.extra.append(ExpectationChecker.describe(n))
                }
            case .includes:
                guard state.next < items.count else { continue }
                state.receivedDescriptions.append(ExpectationChecker.describe(n))
                let item = items[state.next]
                if ExpectationChecker.mismatch(item, n, start: start, app: app) == nil {
                    state.next += 1
                    state.nearMiss = nil
                    if state.next == items.count { state.receivedDescriptions = [] }
                } else if state.nearMiss == nil, n.type == item.type, n.subtype == item.subtype, n.instant == item.at,
                    let problem = ExpectationChecker.mismatch(item, n, start: start, app: app)
                {
                    state.nearMiss = "\(ExpectationChecker.describe(n)): \(problem)"
                }
            }
        }
    }

    static func notificationFailures(
        _ customer: String, _ mode: NotificationMatchMode, _ items: [ExpectedNotification],
        _ location: SourceLocation, _ state: NotificationProgress, file: String
    ) -> [ExpectationFailure] {
        func failure(_ location: SourceLocation, _ message: String) -> ExpectationFailure {
            ExpectationFailure(file: file, location: location, message: message)
        }
        switch mode {
        case .exactly:
            var failures: [ExpectationFailure] = []
            for (index, item) in items.enumerated() {
                guard index < state.received else {
                    failures.append(
                        failure(
                            item.location,
                            "\(customer) received no notification #\(index + 1); expected \(ExpectationChecker.describe(item))"
                        ))
                    continue
                }
                if let problem = state.itemProblems[index] {
                    failures.append(failure(item.location, "\(customer)'s notification #\(index + 1): \(problem)"))
                }
            }
            if state.received > items.count {
                failures.append(
                    failure(
                        location,
                        "\(customer) received \(state.received) notifications, \(state.received - items.count) more than expected: \(state.extra.joined(separator: "; "))"
                    ))
            }
            return failures
        case .includes:
            guard state.next < items.count else { return [] }
            let item = items[state.next]
            if let nearMiss = state.nearMiss { return [failure(item.location, "\(customer)'s \(nearMiss)")] }
            let received = state.receivedDescriptions.joined(separator: "; ")
            return [
                failure(
                    item.location,
                    "\(customer) did not receive \(ExpectationChecker.describe(item)) (in order); received: \(received.isEmpty ? "nothing" : received)"
                )
            ]
        }
    }
}
