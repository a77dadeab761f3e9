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
        case .notifications(let customer, let mode, let items, let location):
            let actual = store.notifications(for: customer)
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
