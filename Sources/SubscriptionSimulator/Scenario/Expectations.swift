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

/// The paths an expected notification's `fields` may name: every field Apple documents for the notification payload
/// (`responseBodyV2DecodedPayload`), its `data`, the decoded transaction (`JWSTransactionDecodedPayload`, written
/// `transaction.X`) and the decoded renewal info (`JWSRenewalInfoDecodedPayload`, written `renewal.X`); reference
/// §2.3–§2.6. A field Apple documents but this simulator does not send yet is still a known path: the expectation
/// then fails at run time saying the payload has no such field. Anything else is a typo, refused when the scenario
/// is read.
public enum ExpectedFieldPaths {
    static let topLevel = [
        "notificationType", "subtype", "notificationUUID", "version", "signedDate", "data", "summary",
        "externalPurchaseToken",
    ]
    static let data = [
        "appAppleId", "bundleId", "bundleVersion", "environment", "status", "signedTransactionInfo",
        "signedRenewalInfo", "consumptionRequestReason",
    ]
    static let transaction = [
        "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
        "subscriptionGroupIdentifier", "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity", "type",
        "inAppOwnershipType", "appAccountToken", "signedDate", "revocationDate", "revocationReason", "revocationType",
        "revocationPercentage", "isUpgraded", "offerType", "offerIdentifier", "offerDiscountType", "offerPeriod",
        "environment", "storefront", "storefrontId", "transactionReason", "price", "currency", "appTransactionId",
    ]
    /// `summary`, in `RENEWAL_EXTENSION` / `SUMMARY` (library model `Summary`).
    static let summary = [
        "requestIdentifier", "environment", "appAppleId", "bundleId", "productId", "storefrontCountryCodes",
        "failedCount", "succeededCount",
    ]
    static let renewal = [
        "originalTransactionId", "productId", "autoRenewProductId", "autoRenewStatus", "expirationIntent",
        "isInBillingRetryPeriod", "gracePeriodExpiresDate", "priceIncreaseStatus", "offerType", "offerIdentifier",
        "offerDiscountType", "offerPeriod", "renewalPrice", "currency", "renewalDate", "recentSubscriptionStartDate",
        "eligibleWinBackOfferIds", "appAccountToken", "appTransactionId", "signedDate", "environment",
    ]

    /// Every path in the forms scenario files write: `transaction.X`, `renewal.X`, `data.X`, and top-level names.
    /// (`data.signedTransactionInfo.X` and `data.signedRenewalInfo.X`, the long forms, are accepted too.)
    public static let all: [String] =
        topLevel + data.map { "data." + $0 } + transaction.map { "transaction." + $0 } + renewal.map { "renewal." + $0 }
        + summary.map { "summary." + $0 }

    static let known: Set<String> = Set(
        all + transaction.map { "data.signedTransactionInfo." + $0 } + renewal.map { "data.signedRenewalInfo." + $0 })

    public static func isKnown(_ path: String) -> Bool { known.contains(path) }

    /// Why `path` is refused, with the closest known path; nil when it is known.
    public static func problem(with path: String) -> String? {
        guard !isKnown(path) else { return nil }
        let hint = Suggestions.closest(to: path, among: all).map { "; did you mean '\($0)'?" } ?? ""
        let owners = [
            ("transaction.", "the decoded signedTransactionInfo (JWSTransactionDecodedPayload)"),
            ("renewal.", "the decoded signedRenewalInfo (JWSRenewalInfoDecodedPayload)"),
            ("data.", "the notification's data"),
            ("summary.", "the notification's summary"),
        ]
        if let (prefix, owner) = owners.first(where: { path.hasPrefix($0.0) }) {
            return "unknown field path '\(path)': \(owner) has no field '\(path.dropFirst(prefix.count))'\(hint)"
        }
        return
            "unknown field path '\(path)': expected data.X, transaction.X, renewal.X, summary.X or a top-level field ("
            + topLevel.joined(separator: ", ") + ")\(hint)"
    }
}

/// The YAML `status:` expectation accepts Apple's code or the ``SubscriptionPhase`` name Swift code uses for it, so
/// a scenario and a Swift test say the same thing: `gracePeriod` and `4` are one status.
public enum ExpectedStatus {
    /// The names, in code order (1...5).
    public static let names = SubscriptionPhase.allCases.sorted { $0.statusCode < $1.statusCode }.map { "\($0)" }

    /// The code for a ``SubscriptionPhase`` name; nil for anything else.
    public static func code(named name: String) -> Int? {
        SubscriptionPhase.allCases.first { "\($0)" == name }?.statusCode
    }
}
