/// The scenario's checks and delivery faults (docs/scenario-format.md, "`expect`" and "`delivery`").
extension ScenarioDecoder {
    func decodeExpectation(
        _ node: YAMLNode, start: Instant, until: Instant, customers: [String], catalog: Catalog
    ) throws(ScenarioError) -> Expectation {
        let map = try mapping(node, "an expectation", keys: ["at", "entitled", "status", "notifications"])
        func customer(_ node: YAMLNode) throws(ScenarioError) -> String {
            let name = try text(node, "a customer")
            guard customers.contains(name) else {
                throw fail(
                    node,
                    "unknown customer '\(name)': customers are the family's people and anyone a timeline entry names\(hint(name, customers))"
                )
            }
            return name
        }
        if let notifications = map.optional("notifications") {
            if let at = map.optional("at") {
                throw fail(at, "`notifications` expectations give `at` per item, not for the whole list")
            }
            let m = try mapping(notifications, "notifications", keys: ["customer", "app", "exactly", "includes"])
            // `app: true` instead of `customer`: the notifications about the app (TEST, RENEWAL_EXTENSION/SUMMARY).
            let who: String?
            if let appNode = m.optional("app") {
                if let other = m.optional("customer") {
                    throw fail(other, "a `notifications` expectation names one `customer` or `app: true`, not both")
                }
                guard try bool(appNode, "app") else {
                    throw fail(appNode, "expected `app: true` (the notifications about the app) or a `customer`")
                }
                who = nil
            } else {
                who = try customer(m.required("customer"))
            }
            let exactly = m.optional("exactly")
            let includes = m.optional("includes")
            guard (exactly == nil) != (includes == nil) else {
                throw fail(
                    notifications,
                    "expected exactly one of `exactly` (every notification, in order) or `includes` (an ordered subsequence)"
                )
            }
            let itemsNode = exactly ?? includes!
            var items: [ExpectedNotification] = []
            for item in try list(itemsNode, exactly != nil ? "exactly" : "includes") {
                items.append(try decodeExpectedNotification(item, start: start))
            }
            return .notifications(
                customer: who, mode: exactly != nil ? .exactly : .includes, items: items,
                location: notifications.location)
        }
        let atNode = try map.required("at")
        let at = try time(atNode, start: start, "at")
        if at > until { throw fail(atNode, "this expectation is at \(at), after the run ends (`until` is \(until))") }
        if let entitled = map.optional("entitled") {
            if let status = map.optional("status") {
                throw fail(status, "one expectation checks one thing: put `status` in its own item")
            }
            var products: [String: [String]] = [:]
            for entry in try mapping(entitled, "entitled", keys: nil).entries {
                let who = try customer(entry.key)
                var ids: [String] = []
                for item in try list(entry.value, "entitled products of \(who)") {
                    ids.append(try productId(item, catalog))
                }
                products[who] = ids.sorted()
            }
            return .entitled(at: at, products: products, location: entitled.location)
        }
        if let status = map.optional("status") {
            var codes: [String: [String: Int]] = [:]
            for entry in try mapping(status, "status", keys: nil).entries {
                let who = try customer(entry.key)
                var perProduct: [String: Int] = [:]
                for productEntry in try mapping(entry.value, "statuses of \(who)", keys: nil).entries {
                    let id = try productId(productEntry.key, catalog)
                    // A status is its code or its `SubscriptionPhase` name (`gracePeriod` is 4), as Swift writes it.
                    let written = try text(productEntry.value, "status")
                    var code = UInt64(ExpectedStatus.code(named: written) ?? 0)
                    if code == 0 {
                        guard written.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                            throw fail(
                                productEntry.value,
                                "expected a status code 1-5 or its name (\(ExpectedStatus.names.joined(separator: ", "))), found '\(written)'\(hint(written, ExpectedStatus.names))"
                            )
                        }
                        code = try unsigned(productEntry.value, "status")
                    }
                    guard (1...5).contains(code) else {
                        throw fail(
                            productEntry.value,
                            "expected a status code 1 (active), 2 (expired), 3 (billing retry), 4 (grace period) or 5 (revoked), found \(code)"
                        )
                    }
                    perProduct[id] = Int(code)
                }
                codes[who] = perProduct
            }
            return .status(at: at, codes: codes, location: status.location)
        }
        throw fail(node, "expected `entitled`, `status` or `notifications` in this expectation")
    }

    func decodeExpectedNotification(_ node: YAMLNode, start: Instant) throws(ScenarioError) -> ExpectedNotification {
        let map = try mapping(node, "an expected notification", keys: ["at", "type", "subtype", "fields"])
        let at = try time(try map.required("at"), start: start, "at")
        let typeNode = try map.required("type")
        let typeText = try text(typeNode, "type")
        guard let type = NotificationType(rawValue: typeText) else {
            throw fail(
                typeNode,
                "unknown notification type '\(typeText)'\(hint(typeText, NotificationType.allCases.map(\.rawValue)))")
        }
        var subtype: NotificationSubtype?
        if let node = map.optional("subtype") {
            let value = try text(node, "subtype")
            guard let parsed = NotificationSubtype(rawValue: value) else {
                throw fail(
                    node,
                    "unknown notification subtype '\(value)'\(hint(value, NotificationSubtype.allCases.map(\.rawValue)))"
                )
            }
            subtype = parsed
        }
        var fields: [ExpectedField] = []
        if let node = map.optional("fields") {
            for entry in try mapping(node, "fields", keys: nil).entries {
                let path = entry.key.scalarText ?? ""
                if let problem = ExpectedFieldPaths.problem(with: path) { throw fail(entry.key, problem) }
                fields.append(
                    ExpectedField(
                        path: path, expected: try text(entry.value, path, bounded: false),
                        location: entry.value.location))
            }
        }
        return ExpectedNotification(at: at, type: type, subtype: subtype, fields: fields, location: node.location)
    }

    /// `delivery:`: `{ faults: [...] }`, each fault naming one notification (`customer` or `app: true`, `at`, `type`,
    /// optional `subtype`) and what happens to it (`failedAttempts`, `duplicate`).
    func decodeDelivery(_ node: YAMLNode, start: Instant, customers: [String]) throws(ScenarioError)
        -> [DeliveryFault]
    {
        let top = try mapping(node, "delivery", keys: ["faults"])
        var faults: [DeliveryFault] = []
        for item in try list(try top.required("faults"), "faults") {
            let m = try mapping(
                item, "a delivery fault",
                keys: ["customer", "app", "at", "type", "subtype", "failedAttempts", "duplicate"])
            var recipient: String?
            if let appNode = m.optional("app") {
                if let other = m.optional("customer") {
                    throw fail(other, "a delivery fault names one `customer` or `app: true`, not both")
                }
                guard try bool(appNode, "app") else {
                    throw fail(appNode, "expected `app: true` (a notification about the app) or a `customer`")
                }
            } else {
                let customerNode = try m.required("customer")
                let name = try text(customerNode, "a customer")
                guard customers.contains(name) else {
                    throw fail(
                        customerNode,
                        "unknown customer '\(name)': customers are the family's people and anyone a timeline entry names\(hint(name, customers))"
                    )
                }
                recipient = name
            }
            let at = try time(try m.required("at"), start: start, "at")
            let typeNode = try m.required("type")
            let typeText = try text(typeNode, "type")
            guard NotificationType(rawValue: typeText) != nil else {
                throw fail(
                    typeNode,
                    "unknown notification type '\(typeText)'\(hint(typeText, NotificationType.allCases.map(\.rawValue)))"
                )
            }
            var subtype: String?
            if let subtypeNode = m.optional("subtype") {
                let value = try text(subtypeNode, "subtype")
                guard NotificationSubtype(rawValue: value) != nil else {
                    throw fail(
                        subtypeNode,
                        "unknown notification subtype '\(value)'\(hint(value, NotificationSubtype.allCases.map(\.rawValue)))"
                    )
                }
                subtype = value
            }
            var failed = 0
            if let failedNode = m.optional("failedAttempts") {
                let value = try unsigned(failedNode, "failedAttempts")
                let most = UInt64(RetrySchedule.production.maximumAttempts)
                guard value <= most else {
                    throw fail(
                        failedNode,
                        "expected `failedAttempts` from 0 to \(most) (the App Store makes at most \(most) attempts), found \(value)"
                    )
                }
                failed = Int(value)
            }
            let duplicate = try m.optional("duplicate").map { (node) throws(ScenarioError) in
                try bool(node, "duplicate")
            }
            guard failed > 0 || duplicate == true else {
                throw fail(item, "a delivery fault needs `failedAttempts` (1 or more) or `duplicate: true`")
            }
            faults.append(
                DeliveryFault(
                    recipient: recipient, instant: at, notificationType: typeText, subtype: subtype,
                    failedAttempts: failed, duplicate: duplicate ?? false))
        }
        return faults
    }
}
