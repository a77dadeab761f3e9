/// Writes a ``Scenario`` as a scenario file that ``ScenarioDecoder`` reads back as the same scenario (every value;
/// source locations and the file name aside): self-contained, the catalogue written out in full (a scenario made from
/// a `.storekit` file is written with its products, without the file), every time an offset from `start` in the
/// largest whole unit (`35d`, `25h`, `90s`). `simctl check` writes its counterexamples with it (docs/check.md).
public enum ScenarioYAMLWriter {
    /// The scenario as YAML text, ending with a newline.
    public static func yaml(_ scenario: Scenario) -> String {
        var out = Lines()
        out.add("name: \(scalar(scenario.name))")
        out.add("start: \(scenario.start)")
        out.add("seed: \(scenario.seed)")
        if scenario.epoch != 0 { out.add("epoch: \(scenario.epoch)") }
        writeApp(scenario.app, to: &out)
        out.add("products:")
        for product in scenario.catalog.products { writeProduct(product, start: scenario.start, to: &out) }
        let withStorefront = scenario.customers.filter { scenario.storefronts[$0] != nil }
        if !withStorefront.isEmpty {
            out.add("customers:")
            for customer in withStorefront {
                out.add("  \(scalar(customer)): { storefront: \(scenario.storefronts[customer]!.countryCode) }")
            }
        }
        if let family = scenario.family {
            out.add(
                "family: { organizer: \(scalar(family.organizer)), members: [\(family.members.map(scalar).joined(separator: ", "))] }"
            )
        }
        if scenario.timeline.isEmpty {
            out.add("timeline: []")
        } else {
            out.add("timeline:")
            for entry in scenario.timeline {
                out.add("  - at: \(time(entry.at, from: scenario.start))")
                out.add("    \(action(entry.action))")
            }
        }
        out.add("until: \(time(scenario.until, from: scenario.start))")
        if !scenario.expectations.isEmpty {
            out.add("expect:")
            for expectation in scenario.expectations {
                writeExpectation(expectation, start: scenario.start, to: &out)
            }
        }
        if !scenario.deliveryFaults.isEmpty {
            out.add("delivery:")
            out.add("  faults:")
            for fault in scenario.deliveryFaults { out.add("    - \(faultText(fault, start: scenario.start))") }
        }
        return out.text
    }

    /// Lines of text, joined with newlines.
    struct Lines {
        var lines: [String] = []
        mutating func add(_ line: String) { lines.append(line) }
        var text: String { lines.joined(separator: "\n") + "\n" }
    }

    static func writeApp(_ app: AppConfiguration, to out: inout Lines) {
        out.add("app:")
        out.add("  bundleId: \(scalar(app.bundleId))")
        out.add("  bundleVersion: \(scalar(app.bundleVersion))")
        if let id = app.appAppleId { out.add("  appAppleId: \(id)") }
        out.add("  environment: \(app.environment.rawValue)")
        let grace: String
        switch app.gracePeriod {
        case .off: grace = "off"
        case .threeDays: grace = "3d"
        case .sixteenDays: grace = "16d"
        case .twentyEightDays: grace = "28d"
        }
        out.add("  gracePeriod: \(grace)")
        switch app.graceEligibility {
        case .allRenewals: out.add("  graceEligibility: all")
        case .paidToPaidOnly: out.add("  graceEligibility: paidOnly")
        }
        out.add("  familyDelay: \(app.familyDelay)")
        out.add("  storefront: \(app.storefront.countryCode)")
        if app.originalPlatform != .iOS { out.add("  originalPlatform: \(app.originalPlatform.rawValue)") }
        if let id = app.versionExternalIdentifier { out.add("  versionExternalIdentifier: \(id)") }
    }

    static func writeProduct(_ product: Product, start: Instant, to out: inout Lines) {
        out.add("  - id: \(scalar(product.id))")
        out.add("    type: \(product.type.rawValue)")
        if let name = product.referenceName { out.add("    referenceName: \(scalar(name))") }
        if let group = product.group { out.add("    group: \(scalar(group))") }
        if product.type == .autoRenewable { out.add("    level: \(product.level)") }
        if let period = product.period { out.add("    period: \(period.rawValue)") }
        if let duration = product.duration { out.add("    duration: \(duration)") }
        out.add("    price: \(product.price)")
        out.add("    currency: \(product.currency)")
        if !product.prices.isEmpty {
            let prices = product.prices.keys.sorted().map { "\($0): \(product.prices[$0]!)" }
            out.add("    prices: { \(prices.joined(separator: ", ")) }")
        }
        if let plan = product.monthlyCommitment {
            let prices = plan.prices.keys.sorted().map { "\($0): \(plan.prices[$0]!)" }
            out.add(
                "    monthlyCommitment: { price: \(plan.monthlyPrice)"
                    + (prices.isEmpty ? "" : ", prices: { \(prices.joined(separator: ", ")) }") + " }")
        }
        if product.familyShareable { out.add("    familyShareable: true") }
        if product.introOffers.count == 1 {
            out.add("    introOffer: \(offerTerms(product.introOffers[0]))")
        } else if !product.introOffers.isEmpty {
            out.add("    introOffer:")
            for intro in product.introOffers { out.add("      - \(offerTerms(intro))") }
        }
        if !product.offers.isEmpty {
            out.add("    offers:")
            for offer in product.offers { out.add("      - \(offerText(offer))") }
        }
    }

    /// An offer's `mode`, `period`, `periods` and `price`, as a flow mapping's members.
    static func offerMembers(_ offer: SubscriptionOffer) -> [String] {
        var members = ["mode: \(offer.mode.rawValue)"]
        if offer.mode != .oneTime { members.append("period: \(offer.period)") }
        if offer.mode == .payAsYouGo { members.append("periods: \(offer.periods)") }
        if offer.mode != .freeTrial { members.append("price: \(offer.price)") }
        if let plan = offer.plan { members.append("plan: \(plan.rawValue)") }
        return members
    }

    static func offerTerms(_ offer: IntroductoryOffer) -> String {
        "{ \(offerMembers(offer).joined(separator: ", ")) }"
    }

    static func offerText(_ offer: SubscriptionOffer) -> String {
        let type: String
        switch offer.type {
        case .introductory: type = "introductory"
        case .promotional: type = "promotional"
        case .offerCode: type = "offerCode"
        case .winBack: type = "winBack"
        }
        var members = ["id: \(scalar(offer.identifier ?? ""))", "type: \(type)"] + offerMembers(offer)
        if let c = offer.winBackConditions {
            if let months = c.paidMonths { members.append("paidMonths: \(months)") }
            if c.minimumMonthsSinceLastSubscribed != nil || c.maximumMonthsSinceLastSubscribed != nil {
                var range: [String] = []
                if let low = c.minimumMonthsSinceLastSubscribed { range.append("minimum: \(low)") }
                if let high = c.maximumMonthsSinceLastSubscribed { range.append("maximum: \(high)") }
                members.append("monthsSinceLastSubscribed: { \(range.joined(separator: ", ")) }")
            }
            if let wait = c.waitBetweenOffersMonths { members.append("waitBetweenOffersMonths: \(wait)") }
            if let date = c.startDate { members.append("startDate: \(date)") }
            if let date = c.endDate { members.append("endDate: \(date)") }
            members.append("priority: \(c.priority.rawValue)")
        }
        return "{ \(members.joined(separator: ", ")) }"
    }

    /// One timeline action as `name: { arguments }` (``ScenarioActionSpec/write``).
    static func action(_ action: ScenarioAction) -> String {
        let spec = action.spec
        let members = spec.write(action)
        return members.isEmpty ? "\(spec.name): {}" : "\(spec.name): { \(members.joined(separator: ", ")) }"
    }

    static func writeExpectation(_ expectation: Expectation, start: Instant, to out: inout Lines) {
        switch expectation {
        case .entitled(let at, let products, _):
            out.add("  - at: \(time(at, from: start))")
            let members = products.keys.sorted().map {
                "\(scalar($0)): [\(products[$0]!.map(scalar).joined(separator: ", "))]"
            }
            out.add("    entitled: { \(members.joined(separator: ", ")) }")
        case .status(let at, let codes, _):
            out.add("  - at: \(time(at, from: start))")
            let members = codes.keys.sorted().map { customer in
                let perProduct = codes[customer]!.keys.sorted().map { "\(scalar($0)): \(codes[customer]![$0]!)" }
                return "\(scalar(customer)): { \(perProduct.joined(separator: ", ")) }"
            }
            out.add("    status: { \(members.joined(separator: ", ")) }")
        case .notifications(let customer, let mode, let items, _):
            out.add("  - notifications:")
            out.add(customer.map { "      customer: \(scalar($0))" } ?? "      app: true")
            if items.isEmpty {
                out.add("      \(mode.rawValue): []")
                return
            }
            out.add("      \(mode.rawValue):")
            for item in items {
                var members = ["at: \(time(item.at, from: start))", "type: \(item.type.rawValue)"]
                if let subtype = item.subtype { members.append("subtype: \(subtype.rawValue)") }
                if !item.fields.isEmpty {
                    let fields = item.fields.map { "\(scalar($0.path)): \(scalar($0.expected))" }
                    members.append("fields: { \(fields.joined(separator: ", ")) }")
                }
                out.add("        - { \(members.joined(separator: ", ")) }")
            }
        }
    }

    static func faultText(_ fault: DeliveryFault, start: Instant) -> String {
        var members = [fault.recipient.map { "customer: \(scalar($0))" } ?? "app: true"]
        members.append("at: \(time(fault.instant, from: start))")
        members.append("type: \(fault.notificationType)")
        if let subtype = fault.subtype { members.append("subtype: \(subtype)") }
        if fault.failedAttempts > 0 { members.append("failedAttempts: \(fault.failedAttempts)") }
        if fault.duplicate { members.append("duplicate: true") }
        return "{ \(members.joined(separator: ", ")) }"
    }

    /// A time as an offset from `start` in the largest unit that divides it (`0`, `35d`, `25h`, `90m`, `45s`,
    /// `500ms`); an instant before `start` as an ISO 8601 instant.
    public static func time(_ instant: Instant, from start: Instant) -> String {
        let offset = start.milliseconds(to: instant)
        if offset < 0 { return instant.description }
        if offset == 0 { return "0" }
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where offset % size == 0 {
            return "\(offset / size)\(unit)"
        }
        return "\(offset)ms"
    }

    /// A string as a plain scalar when that reads back as the same text in every place the writer puts one (block
    /// values and flow collections), else double-quoted with the reader's escapes.
    public static func scalar(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9")
                || "._-/+@".unicodeScalars.contains($0)
        }
        if safe, let first = text.unicodeScalars.first, !"-.+@".unicodeScalars.contains(first) { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            case "\0": quoted += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }
}
