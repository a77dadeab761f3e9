/// Values the command line may override.
public struct ScenarioOverrides: Hashable, Sendable {
    /// Replaces `until` (same syntax: an offset from `start` or an ISO instant).
    public var until: String?
    public var seed: UInt64?
    /// Replaces `start`. Offsets in the file (`at: 1d`, `until: P3M`) then count from this instant; absolute
    /// instants in the file stay as written. The caller chooses the instant (the library never reads a clock).
    public var start: Instant?
    /// Replaces `app.environment` (`simctl run --environment`).
    public var environment: SimulatedEnvironment?

    public init(
        until: String? = nil, seed: UInt64? = nil, start: Instant? = nil, environment: SimulatedEnvironment? = nil
    ) {
        self.until = until
        self.seed = seed
        self.start = start
        self.environment = environment
    }
}

/// Text → located YAML nodes → typed, checked ``Scenario``. Every error names the file, line and column, what was
/// expected, what was found, and a "did you mean" for misspelled keys, actions, products and customers.
public struct ScenarioDecoder: Sendable {
    let file: String
    /// Folder the scenario's relative paths (`storekit:`) are resolved against.
    let baseDirectory: String

    public init(file: String, baseDirectory: String? = nil) {
        self.file = file
        self.baseDirectory = baseDirectory ?? ScenarioDecoder.directory(of: file)
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return path[..<slash].isEmpty ? "/" : String(path[..<slash])
    }

    /// How many timeline items a chunk holds when the timeline is read on several threads
    /// (``decode(_:overrides:threads:)``).
    static let timelineItemsPerChunk = 2_048

    /// Decodes and checks a scenario.
    ///
    /// With `threads` above 1, a timeline written as a block list under the top-level `timeline:` is read and
    /// decoded in chunks of items (``timelineItemsPerChunk``), on up to `threads` threads at once: the rest of the
    /// file first, on the calling thread, then the chunks, then the checks that span entries (time order, the
    /// customers in order of appearance, the customer limit) on the calling thread. The scenario is the same as
    /// with 1, and so is every error: at the first error of any kind in that path, the whole text is read again as
    /// with 1, which reports the file's first error (``DeferredList``).
    public func decode(_ source: String, overrides: ScenarioOverrides = .init(), threads: Int = 1) throws(ScenarioError)
        -> Scenario
    {
        try decode(source, overrides: overrides, threads: threads, itemsPerChunk: Self.timelineItemsPerChunk)
    }

    /// ``decode(_:overrides:threads:)`` with chunks of `itemsPerChunk` timeline items (tests read small files in
    /// many chunks).
    func decode(_ source: String, overrides: ScenarioOverrides, threads: Int, itemsPerChunk: Int)
        throws(ScenarioError) -> Scenario
    {
        var tree: YAMLNode?
        if threads > 1 {
            switch readInChunks(source, overrides: overrides, threads: threads, itemsPerChunk: itemsPerChunk) {
            case .scenario(let scenario): return scenario
            case .noList(let read): tree = read
            case .failed: break
            }
        }
        let root: YAMLNode
        if let tree {
            root = tree
        } else {
            do throws(YAMLError) { root = try YAMLReader.parse(source) } catch {
                throw ScenarioError(file: file, location: error.location, message: error.message)
            }
        }
        return try decode(root: root, timeline: .tree, overrides: overrides)
    }

    /// What reading the timeline in chunks gave.
    enum ChunkedRead {
        case scenario(Scenario)
        /// The file has no block list under the top-level `timeline:`: nothing was deferred, so this is the tree
        /// ``YAMLReader/parse(_:)`` reads, to be decoded as it is (not read a second time).
        case noList(YAMLNode)
        /// An error of any kind, not reported from here: the text is read again on one thread.
        case failed
    }

    /// Reads the text with its timeline in chunks (``decode(_:overrides:threads:)``).
    func readInChunks(_ source: String, overrides: ScenarioOverrides, threads: Int, itemsPerChunk: Int) -> ChunkedRead {
        guard let (root, list) = try? YAMLReader.parse(source, deferring: "timeline", itemsPerChunk: itemsPerChunk)
        else { return .failed }
        guard let list else { return .noList(root) }
        guard let scenario = try? decode(root: root, timeline: .chunks(list, threads: threads), overrides: overrides)
        else { return .failed }
        return .scenario(scenario)
    }

    /// The scenario as read with its timeline in chunks, or nil at the first error of any kind or when the file has
    /// no timeline to read in chunks (tests and the fuzz targets compare it with the read on one thread).
    func decodeInChunks(_ source: String, overrides: ScenarioOverrides, threads: Int, itemsPerChunk: Int) -> Scenario? {
        guard
            case .scenario(let scenario) = readInChunks(
                source, overrides: overrides, threads: threads, itemsPerChunk: itemsPerChunk)
        else { return nil }
        return scenario
    }

    /// Where the timeline's items are read from.
    enum TimelineSource {
        /// The tree's `timeline:` list (or the error its absence or form gives).
        case tree
        /// A deferred list, read in chunks on up to `threads` threads; an error here means only "read the text
        /// again on one thread" (``decode(_:overrides:threads:)``).
        case chunks(DeferredList, threads: Int)
    }

    private func decode(root: YAMLNode, timeline source: TimelineSource, overrides: ScenarioOverrides)
        throws(ScenarioError) -> Scenario
    {
        var root = root
        // The timeline's items leave the tree here, so each is freed as soon as it is decoded below: a long timeline
        // is most of the tree, and its decoded entries then take the place of its nodes instead of adding to them.
        var timelineItems = root.takeSequenceItems(forKey: "timeline")
        let top = try mapping(root, "the scenario", keys: Self.topKeys)
        let name = try text(top.required("name"), "name", bounded: false)
        let startNode = try top.required("start")
        guard let fileStart = CalendarDurationSyntax.parseInstant(try text(startNode, "start")) else {
            throw fail(
                startNode,
                "expected `start` as an ISO 8601 UTC instant such as 2026-03-01T09:00:00Z, found '\(startNode.scalarText ?? "")'"
            )
        }
        if !fileStart.isSupported {
            throw fail(
                startNode, "`start` (\(fileStart)) is outside the supported range \(InstantRangeError.rangeText)")
        }
        let start = overrides.start ?? fileStart
        var seed: UInt64 = 0
        if let node = top.optional("seed") { seed = try unsigned(node, "seed") }
        if let override = overrides.seed { seed = override }
        var epoch: UInt32 = 0
        if let node = top.optional("epoch") {
            let value = try unsigned(node, "epoch")
            guard let narrow = UInt32(exactly: value) else {
                throw fail(node, "expected a whole number from 0 to \(UInt32.max) for `epoch`, found '\(value)'")
            }
            epoch = narrow
        }

        var app = try decodeApp(try top.required("app"))
        if let override = overrides.environment { app.environment = override }
        if app.environment == .production && app.appAppleId == nil {
            // Production payloads always carry data.appAppleId, and Apple's SignedDataVerifier requires it for
            // Production (reference §2.4).
            throw fail(
                try top.required("app"),
                "environment Production needs app.appAppleId: production payloads carry data.appAppleId and Apple's verifier requires it; add appAppleId or use Sandbox"
            )
        }
        var catalog = Catalog()
        if let node = top.optional("storekit") {
            let configuration = try importStoreKit(node, into: &catalog)
            // `_billingGracePeriodEnabled` means Xcode's 16-day grace (capped for weekly products) unless the scenario
            // sets `app.gracePeriod`; `_storefront` sets the storefront (storekit-config-format §8).
            if configuration.billingGracePeriodEnabled == true,
                try top.required("app").value(forKey: "gracePeriod") == nil
            {
                app.gracePeriod = .sixteenDays
            }
            if let storefront = configuration.storefront { app.storefront = storefront }
        }
        if let node = top.optional("products") {
            var definedAt: [String: SourceLocation] = [:]
            for item in try list(node, "products") {
                // Checked before the product is read, so a second entry is not taken for an override.
                if let idNode = item.value(forKey: "id"), let id = idNode.scalarText {
                    if let first = definedAt[id] {
                        throw fail(
                            idNode,
                            "product '\(id)' is listed twice in `products` (first at \(first.line):\(first.column)); "
                                + "give each product one entry")
                    }
                    definedAt[id] = idNode.location
                }
                try addProduct(item, to: &catalog)
            }
        }
        if top.optional("products") == nil && top.optional("storekit") == nil {
            throw fail(root, "expected `products` (a list of products) or `storekit` (a .storekit file), found neither")
        }
        let storefronts = try decodeCustomers(top.optional("customers"))
        try deriveStorefront(
            &app, top: top, catalog: catalog,
            explicit: top.optional("storekit") != nil && app.storefront != .unitedStates,
            customerStorefronts: storefronts)

        var family: FamilySpec?
        var customers: [String] = []
        var named: Set<String> = []
        func note(_ customer: String) { if named.insert(customer).inserted { customers.append(customer) } }
        if let node = top.optional("family") {
            var spec = try decodeFamily(node)
            spec.location = node.location
            try checkFamilyStorefronts(spec, storefronts, default: app.storefront)
            family = spec
            spec.members.forEach(note)
            note(spec.organizer)
            customers = [spec.organizer] + customers.filter { $0 != spec.organizer }
        }

        var timeline: [TimelineEntry] = []
        /// The checks that span entries, in the timeline's order: time order, the customers in order of appearance,
        /// the customer limit.
        func add(_ entry: TimelineEntry, location: SourceLocation) throws(ScenarioError) {
            if let previous = timeline.last, entry.at < previous.at {
                throw ScenarioError(
                    file: file, location: location,
                    message:
                        "timeline entries must be in time order: this one is at \(entry.at), before the previous one at \(previous.at)"
                )
            }
            if let customer = entry.action.customer { note(customer) }
            if customers.count > RunLimits.standard.maximumCustomers {
                throw ScenarioError(
                    file: file, location: location,
                    message:
                        "\(RunLimitExceeded.customers(limit: RunLimits.standard.maximumCustomers, found: customers.count))"
                )
            }
            timeline.append(entry)
        }
        switch source {
        case .tree:
            var items: [YAMLNode]
            if let taken = timelineItems {
                items = taken
                timelineItems = nil
            } else {
                items = try list(try top.required("timeline"), "timeline")
            }
            timeline.reserveCapacity(items.count)
            named.reserveCapacity(named.count + min(items.count, RunLimits.standard.maximumCustomers))
            for index in items.indices {
                let item = items[index]
                items[index] = Self.consumed
                try add(try decodeEntry(item, start: start, catalog: catalog), location: item.location)
            }
        case .chunks(let list, let threads):
            guard var chunks = decodeEntries(of: list, threads: threads, start: start, catalog: catalog) else {
                throw fail(root, "the timeline's chunks did not read alone; read on one thread")
            }
            let count = chunks.reduce(0) { $0 + $1.count }
            timeline.reserveCapacity(count)
            named.reserveCapacity(named.count + min(count, RunLimits.standard.maximumCustomers))
            for index in chunks.indices {
                let chunk = chunks[index]
                chunks[index] = []  // each chunk's entries are freed once copied into the timeline
                for entry in chunk { try add(entry, location: entry.location) }
            }
        }

        var until: Instant
        if let untilText = overrides.until {
            // An error here is in the command line, not in the file: it carries the option's name, not a location.
            func optionError(_ message: String) -> ScenarioError {
                var error = ScenarioError(file: file, location: SourceLocation(line: 0, column: 0), message: message)
                error.commandLineOption = "--until"
                return error
            }
            switch Self.checkedTime(untilText, start: start) {
            case .invalid:
                throw optionError(
                    "--until: expected a time such as 0, 90s, 30m, 1h, 16d, 2w, P1M or an ISO instant, found '\(untilText)'"
                )
            case .outOfRange(let error): throw optionError("--until: \(error)")
            case .instant(let instant):
                if instant < start {
                    throw optionError("--until: \(instant) is before the scenario's start (\(start))")
                }
                until = instant
            }
        } else if let node = top.optional("until") {
            until = try time(node, start: start, "until")
        } else {
            let last = timeline.last?.at ?? start
            let longest = catalog.products.compactMap(\.period).max { $0.approximateDays < $1.approximateDays }
            do throws(InstantRangeError) { until = try last.checkedAdding(longest?.duration ?? .months(1)) } catch {
                throw fail(
                    root, "the run's default end (one period after the last timeline entry): \(error); give `until`")
            }
        }
        if let last = timeline.last, until < last.at {
            throw fail(
                top.optional("until") ?? root, "`until` (\(until)) is before the last timeline entry (\(last.at))")
        }

        var expectations: [Expectation] = []
        if let node = top.optional("expect") {
            for item in try list(node, "expect") {
                expectations.append(
                    try decodeExpectation(item, start: start, until: until, customers: customers, catalog: catalog))
            }
        }
        let allCustomers = customers + storefronts.map(\.customer).filter { !named.contains($0) }
        var deliveryFaults: [DeliveryFault] = []
        if let node = top.optional("delivery") {
            deliveryFaults = try decodeDelivery(node, start: start, customers: allCustomers)
        }
        return Scenario(
            name: name, file: file, start: start, seed: seed, app: app, catalog: catalog, family: family,
            timeline: timeline, until: until, expectations: expectations, customers: allCustomers,
            storefronts: Dictionary(uniqueKeysWithValues: storefronts.map { ($0.customer, $0.storefront) }),
            endLocation: (top.optional("until") ?? startNode).location, deliveryFaults: deliveryFaults, epoch: epoch)
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

    /// What a decoded timeline item is replaced with, so its nodes are freed.
    static let consumed = YAMLNode(kind: .sequence([]), location: SourceLocation(line: 0, column: 0))

    // MARK: - Sections

    static let topKeys = [
        "name", "start", "seed", "epoch", "app", "products", "storekit", "customers", "family", "timeline", "until",
        "expect", "delivery",
    ]
    static let appKeys = [
        "bundleId", "bundleVersion", "appAppleId", "environment", "gracePeriod", "graceEligibility", "familyDelay",
        "storefront",
    ]
    static let productKeys = [
        "id", "type", "referenceName", "group", "level", "period", "duration", "price", "currency", "prices",
        "familyShareable", "introOffer", "offers", "monthlyCommitment",
    ]
    static let commitmentKeys = ["price", "prices"]
    static let offerKeys = ["mode", "period", "periods", "price", "plan"]

    func decodeApp(_ node: YAMLNode) throws(ScenarioError) -> AppConfiguration {
        let map = try mapping(node, "app", keys: Self.appKeys)
        var app = AppConfiguration(bundleId: try text(map.required("bundleId"), "bundleId"))
        if let node = map.optional("bundleVersion") { app.bundleVersion = try text(node, "bundleVersion") }
        if let node = map.optional("appAppleId") { app.appAppleId = Int64(try whole(node, "appAppleId")) }
        if let node = map.optional("environment") {
            let value = try text(node, "environment")
            guard let environment = SimulatedEnvironment(rawValue: value) else {
                let names = SimulatedEnvironment.allCases.map(\.rawValue)
                throw fail(
                    node,
                    "expected environment LocalTesting, Xcode, Sandbox or Production, found '\(value)'\(hint(value, names))"
                )
            }
            app.environment = environment
        }
        if let node = map.optional("gracePeriod") {
            let value = try text(node, "gracePeriod")
            let settings: [String: GracePeriodSetting] = [
                "off": .off, "3d": .threeDays, "16d": .sixteenDays, "28d": .twentyEightDays,
            ]
            guard let setting = settings[value] else {
                throw fail(node, "expected gracePeriod off, 3d, 16d or 28d (Apple's options), found '\(value)'")
            }
            app.gracePeriod = setting
        }
        if let node = map.optional("graceEligibility") {
            let value = try text(node, "graceEligibility")
            switch value {
            case "all": app.graceEligibility = .allRenewals
            case "paidOnly": app.graceEligibility = .paidToPaidOnly
            default:
                throw fail(
                    node,
                    "expected graceEligibility all or paidOnly, found '\(value)'\(hint(value, ["all", "paidOnly"]))")
            }
        }
        if let node = map.optional("familyDelay") { app.familyDelay = try duration(node, "familyDelay") }
        if let node = map.optional("storefront") { app.storefront = try storefront(node) }
        return app
    }

    /// Adds one product, or overrides a product imported from a `.storekit` file.
    func addProduct(_ node: YAMLNode, to catalog: inout Catalog) throws(ScenarioError) {
        let map = try mapping(node, "a product", keys: Self.productKeys)
        let idNode = try map.required("id")
        let id = try text(idNode, "id")
        let existing = catalog[id]
        var product: Product
        if let typeNode = map.optional("type") {
            let value = try text(typeNode, "type")
            guard let type = ProductType(rawValue: value) else {
                throw fail(
                    typeNode,
                    "expected type autoRenewable, nonConsumable, consumable or nonRenewing, found '\(value)'\(hint(value, ProductType.allCases.map(\.rawValue)))"
                )
            }
            if let existing, existing.type != type {
                throw fail(
                    typeNode,
                    "product '\(id)' has type \(existing.type.rawValue) in the .storekit file; a scenario may override its fields but not change its type"
                )
            }
            product = existing ?? Product(id: id, type: type, price: .free)
        } else if let existing {
            product = existing
        } else {
            throw fail(node, "product '\(id)' needs a `type`: autoRenewable, nonConsumable, consumable or nonRenewing")
        }
        if let node = map.optional("referenceName") { product.referenceName = try text(node, "referenceName") }
        if let node = map.optional("group") { product.group = try text(node, "group") }
        if let node = map.optional("level") { product.level = try whole(node, "level") }
        if let node = map.optional("period") {
            let value = try text(node, "period")
            guard let period = SubscriptionPeriod(rawValue: value) else {
                throw fail(node, "expected period P1W, P1M, P2M, P3M, P6M or P1Y, found '\(value)'")
            }
            product.period = period
        }
        if let node = map.optional("duration") { product.duration = try duration(node, "duration") }
        if let node = map.optional("price") {
            product.price = try price(node, "price")
        } else if existing == nil {
            throw fail(node, "product '\(id)' needs a `price`, e.g. price: 9.99")
        }
        if let node = map.optional("currency") {
            let value = try text(node, "currency")
            guard value.count == 3, value.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw fail(node, "expected an ISO 4217 currency code such as USD, found '\(value)'")
            }
            product.currency = value
        }
        if let node = map.optional("prices") {
            var prices: [String: Price] = [:]
            for entry in try mapping(node, "prices", keys: nil).entries {
                let code = try storefront(entry.key).countryCode
                prices[code] = try price(entry.value, "prices.\(code)")
            }
            product.prices = prices
        }
        if let node = map.optional("familyShareable") {
            let shareable = try bool(node, "familyShareable")
            if existing?.familyShareable == true && !shareable {
                throw fail(node, "product '\(id)': \(FamilyRuleViolation.cannotTurnOffFamilySharing(productId: id))")
            }
            product.familyShareable = shareable
        }
        if let node = map.optional("introOffer") { product.introOffers = try decodeIntroOffers(node, of: product) }
        if let node = map.optional("offers") {
            product.offers = []
            for item in try list(node, "offers") {
                let offer = try decodeRedeemableOffer(item)
                if product.offer(withId: offer.identifier ?? "") != nil {
                    throw fail(item, "offer '\(offer.identifier ?? "")' is listed twice; give each offer its own id")
                }
                product.offers.append(offer)
            }
        }
        if let node = map.optional("monthlyCommitment") {
            let plan = try mapping(node, "monthlyCommitment", keys: Self.commitmentKeys)
            var commitment = CommitmentPlan(monthlyPrice: try price(plan.required("price"), "monthlyCommitment.price"))
            if let pricesNode = plan.optional("prices") {
                for entry in try mapping(pricesNode, "monthlyCommitment.prices", keys: nil).entries {
                    let code = try storefront(entry.key).countryCode
                    commitment.prices[code] = try price(entry.value, "monthlyCommitment.prices.\(code)")
                }
            }
            if let problem = CommitmentPlan.problem(with: commitment, of: product) { throw fail(node, problem) }
            product.monthlyCommitment = commitment
        }
        try checkOfferPlans(product, map)
        if product.type == .nonRenewing, product.period != nil {
            throw fail(map.optional("period")!, "a nonRenewing product has a `duration`, not a `period`")
        }
        do {
            if existing != nil { try catalog.replace(product) } else { try catalog.add(product) }
        } catch {
            throw fail(node, "\(error)")
        }
    }

    /// `introOffer`: one offer (a mapping), or a list of offers with their `plan`, at most one per billing plan
    /// (rule intro-offer-per-plan, ``OfferRules/introOfferProblem(_:)``): the error names the item that repeats a
    /// plan.
    func decodeIntroOffers(_ node: YAMLNode, of product: Product) throws(ScenarioError) -> [IntroductoryOffer] {
        guard let items = node.sequenceItems else { return [try decodeOffer(node)] }
        if items.isEmpty { throw fail(node, "expected one introOffer or a list of one per plan, found an empty list") }
        var checked = product
        checked.introOffers = []
        for item in items {
            checked.introOffers.append(try decodeOffer(item))
            if let problem = OfferRules.introOfferProblem(checked) { throw fail(item, problem) }
        }
        return checked.introOffers
    }

    func decodeOffer(_ node: YAMLNode) throws(ScenarioError) -> IntroductoryOffer {
        let map = try mapping(node, "introOffer", keys: Self.offerKeys)
        let modeNode = try map.required("mode")
        let value = try text(modeNode, "mode")
        guard let mode = IntroductoryOfferMode(rawValue: value), mode != .oneTime else {
            throw fail(
                modeNode,
                "expected introOffer mode freeTrial, payAsYouGo or payUpFront, found '\(value)'\(hint(value, ["freeTrial", "payAsYouGo", "payUpFront"]))"
            )
        }
        let period = try duration(try map.required("period"), "period")
        let (periods, offerPrice) = try offerTerms(map, mode: mode, node: node)
        var offer = IntroductoryOffer(mode: mode, period: period, periods: periods, price: offerPrice)
        offer.plan = try offerPlan(map)
        return offer
    }

    /// An offer's optional `plan` (`upfront` or `monthly`; rule offer-for-its-plan). Whether the product has the
    /// monthly plan is checked with the product (``checkOfferPlans(_:_:)``).
    func offerPlan(_ map: CheckedMapping) throws(ScenarioError) -> BillingPlan? {
        try map.optional("plan").map { node throws(ScenarioError) in try planName(node) }
    }

    /// `upfront` or `monthly`: the billing plan a `plan` key names (of an offer, `purchase`, `changePlan` or
    /// `raisePrice`).
    func planName(_ node: YAMLNode) throws(ScenarioError) -> BillingPlan {
        let value = try text(node, "plan")
        guard let plan = BillingPlan(rawValue: value) else {
            throw fail(
                node,
                "expected plan upfront or monthly, found '\(value)'\(hint(value, BillingPlan.allCases.map(\.rawValue)))"
            )
        }
        return plan
    }

    /// Rule offer-for-its-plan: an offer for the monthly plan needs the product's `monthlyCommitment`.
    func checkOfferPlans(_ product: Product, _ map: CheckedMapping) throws(ScenarioError) {
        guard product.monthlyCommitment == nil else { return }
        let problem =
            "is for the monthly plan, and product '\(product.id)' has none; give it a `monthlyCommitment` or drop "
            + "`plan` (rule offer-for-its-plan)"
        if product.introOffers.contains(where: { $0.plan == .monthly }), let node = map.optional("introOffer") {
            throw fail(node, "the introOffer \(problem)")
        }
        if let offer = product.offers.first(where: { $0.plan == .monthly }), let node = map.optional("offers") {
            throw fail(node, "offer '\(offer.identifier ?? "")' \(problem)")
        }
    }

    /// An offer's `periods` (payAsYouGo only, 1 or more; 1 otherwise) and `price` (every mode but freeTrial, which
    /// is free): one rule for the introductory offer and the offers of `offers:`.
    func offerTerms(
        _ map: CheckedMapping, mode: IntroductoryOfferMode, node: YAMLNode
    ) throws(ScenarioError) -> (periods: Int, price: Price) {
        var periods = 1
        if let node = map.optional("periods") {
            guard mode == .payAsYouGo else { throw fail(node, "`periods` applies only to mode payAsYouGo") }
            periods = try whole(node, "periods")
            if periods < 1 { throw fail(node, "expected `periods` of 1 or more, found \(periods)") }
        }
        if let node = map.optional("price") {
            guard mode != .freeTrial else { throw fail(node, "a freeTrial offer has no `price`") }
            return (periods, try price(node, "price"))
        }
        if mode != .freeTrial { throw fail(node, "a \(mode.rawValue) offer needs a `price`") }
        return (periods, .free)
    }

    static let redeemableOfferKeys =
        ["id", "type", "mode", "period", "periods", "price", "plan"] + winBackConditionKeys
    static let winBackConditionKeys = [
        "paidMonths", "monthsSinceLastSubscribed", "waitBetweenOffersMonths", "startDate", "endDate", "priority",
    ]
    /// The largest month count a win-back condition takes [assumed bound: 100 years].
    static let maximumWinBackMonths = 1200
    static let redeemableOfferTypes: [String: OfferType] = [
        "promotional": .promotional, "offerCode": .offerCode, "winBack": .winBack,
    ]

    /// One item of a product's `offers:`: `id`, `type` (promotional, offerCode, winBack), `mode` (freeTrial,
    /// payAsYouGo, payUpFront; oneTime for a one-time product's offer code), `period` (not for oneTime), `periods`
    /// (payAsYouGo) and `price` (all but freeTrial).
    func decodeRedeemableOffer(_ node: YAMLNode) throws(ScenarioError) -> SubscriptionOffer {
        let map = try mapping(node, "an offer", keys: Self.redeemableOfferKeys)
        let id = try text(map.required("id"), "id")
        let typeNode = try map.required("type")
        let typeText = try text(typeNode, "type")
        guard let type = Self.redeemableOfferTypes[typeText] else {
            throw fail(
                typeNode,
                "expected offer type promotional, offerCode or winBack, found '\(typeText)'"
                    + (typeText == "introductory"
                        ? ": an introductory offer is the product's `introOffer`"
                        : hint(typeText, Self.redeemableOfferTypes.keys.sorted())))
        }
        let modeNode = try map.required("mode")
        let modeText = try text(modeNode, "mode")
        guard let mode = IntroductoryOfferMode(rawValue: modeText) else {
            throw fail(
                modeNode,
                "expected offer mode freeTrial, payAsYouGo, payUpFront or oneTime, found '\(modeText)'\(hint(modeText, IntroductoryOfferMode.allCases.map(\.rawValue)))"
            )
        }
        var period = CalendarDuration.days(0)
        if mode == .oneTime {
            if let node = map.optional("period") { throw fail(node, "a oneTime offer has no `period`") }
        } else {
            period = try duration(try map.required("period"), "period")
        }
        let (periods, offerPrice) = try offerTerms(map, mode: mode, node: node)
        var offer = SubscriptionOffer(
            id: id, type: type, mode: mode, period: period, periods: periods, price: offerPrice)
        offer.winBackConditions = try decodeWinBackConditions(map, type: type)
        offer.plan = try offerPlan(map)
        return offer
    }

    /// A win-back offer's optional App Store Connect conditions (rule win-back-conditions): `paidMonths`,
    /// `monthsSinceLastSubscribed: {minimum, maximum}`, `waitBetweenOffersMonths`, `startDate` and `endDate` (ISO
    /// instants), `priority` (HIGH or NORMAL). Nil when the offer has none.
    func decodeWinBackConditions(_ map: CheckedMapping, type: OfferType) throws(ScenarioError) -> WinBackConditions? {
        let present = Self.winBackConditionKeys.compactMap { map.optional($0) }
        guard let first = present.first else { return nil }
        guard type == .winBack else {
            throw fail(
                first,
                "win-back conditions (\(Self.winBackConditionKeys.joined(separator: ", "))) apply only to type winBack")
        }
        func months(_ node: YAMLNode, _ what: String) throws(ScenarioError) -> Int {
            let value = try whole(node, what)
            if value > Self.maximumWinBackMonths {
                throw fail(node, "expected `\(what)` from 0 to \(Self.maximumWinBackMonths) months, found \(value)")
            }
            return value
        }
        func instant(_ node: YAMLNode, _ what: String) throws(ScenarioError) -> Instant {
            let value = try text(node, what)
            guard let instant = CalendarDurationSyntax.parseInstant(value), instant.isSupported else {
                throw fail(
                    node, "expected `\(what)` as an ISO 8601 UTC instant such as 2026-03-01T00:00:00Z, found '\(value)'"
                )
            }
            return instant
        }
        var conditions = WinBackConditions()
        if let node = map.optional("paidMonths") { conditions.paidMonths = try months(node, "paidMonths") }
        if let node = map.optional("monthsSinceLastSubscribed") {
            let range = try mapping(node, "monthsSinceLastSubscribed", keys: ["minimum", "maximum"])
            if let min = range.optional("minimum") {
                conditions.minimumMonthsSinceLastSubscribed = try months(min, "minimum")
            }
            if let max = range.optional("maximum") {
                conditions.maximumMonthsSinceLastSubscribed = try months(max, "maximum")
            }
            if let low = conditions.minimumMonthsSinceLastSubscribed,
                let high = conditions.maximumMonthsSinceLastSubscribed, high < low
            {
                throw fail(
                    range.optional("maximum") ?? node,
                    "expected `maximum` of at least `minimum` (\(low)), found \(high)")
            }
        }
        if let node = map.optional("waitBetweenOffersMonths") {
            conditions.waitBetweenOffersMonths = try months(node, "waitBetweenOffersMonths")
        }
        if let node = map.optional("startDate") { conditions.startDate = try instant(node, "startDate") }
        if let node = map.optional("endDate") {
            let end = try instant(node, "endDate")
            if let start = conditions.startDate, end < start {
                throw fail(node, "expected `endDate` at or after `startDate` (\(start)), found \(end)")
            }
            conditions.endDate = end
        }
        if let node = map.optional("priority") {
            let value = try text(node, "priority")
            guard let priority = WinBackPriority(rawValue: value) else {
                throw fail(node, "expected `priority` HIGH or NORMAL, found '\(value)'")
            }
            conditions.priority = priority
        }
        return conditions
    }

    func decodeFamily(_ node: YAMLNode) throws(ScenarioError) -> FamilySpec {
        let map = try mapping(node, "family", keys: ["organizer", "members"])
        let organizer = try text(map.required("organizer"), "organizer")
        var members: [String] = []
        if let node = map.optional("members") {
            for item in try list(node, "members") {
                let member = try text(item, "a family member")
                if member == organizer || members.contains(member) {
                    throw fail(item, "'\(member)' is listed twice in the family")
                }
                // Reported at the first member who does not fit, not at the family as a whole.
                if members.count + 2 > FamilyRules.maximumFamilySize {
                    throw fail(item, "'\(member)' cannot join: \(FamilyRuleViolation.familyFull(organizer: organizer))")
                }
                members.append(member)
            }
        }
        return FamilySpec(organizer: organizer, members: members)
    }

    /// A timeline entry's keys: `at` and one action.
    static let entryKeys = ["at"] + ScenarioAction.names

    /// The keys of the most common actions' arguments, made once rather than an array per timeline entry.
    enum Action {
        static let customerProductKeys = ["customer", "product"]
        static let customerKeys = ["customer"]
        static let productKeys = ["product"]
        static let purchaseKeys = ["customer", "product", "appAccountToken", "plan"]
    }

    func decodeEntry(_ node: YAMLNode, start: Instant, catalog: Catalog) throws(ScenarioError) -> TimelineEntry {
        let map = try mapping(node, "a timeline entry", keys: Self.entryKeys)
        let at = try time(try map.required("at"), start: start, "at")
        // The entry's action and a second one if any (an error), without collecting them in an array.
        var actions: (first: YAMLMappingEntry?, second: YAMLMappingEntry?) = (nil, nil)
        for entry in map.entries where entry.key.scalarText != "at" {
            if actions.first == nil { actions.first = entry } else if actions.second == nil { actions.second = entry }
        }
        guard let first = actions.first else {
            throw fail(
                node,
                "expected one action in this timeline entry (\(ScenarioAction.names.joined(separator: ", "))), found none"
            )
        }
        if let second = actions.second {
            throw fail(
                second.key,
                "a timeline entry holds exactly one action; found '\(first.key.scalarText ?? "")' and '\(second.key.scalarText ?? "")': split them into two entries"
            )
        }
        let name = first.key.scalarText ?? ""
        let args = first.value
        func customerProduct() throws(ScenarioError) -> (String, String) {
            let m = try mapping(args, name, keys: Self.Action.customerProductKeys)
            return (try text(m.required("customer"), "customer"), try productId(m.required("product"), catalog))
        }
        func customerOnly() throws(ScenarioError) -> String {
            let m = try mapping(args, name, keys: Self.Action.customerKeys)
            return try text(m.required("customer"), "customer")
        }
        func productOnly() throws(ScenarioError) -> String {
            let m = try mapping(args, name, keys: Self.Action.productKeys)
            return try productId(m.required("product"), catalog)
        }
        let action: ScenarioAction
        switch name {
        case "purchase":
            let m = try mapping(args, name, keys: Self.Action.purchaseKeys)
            var token: String?
            if let node = m.optional("appAccountToken") {
                let value = try text(node, "appAccountToken")
                if let problem = AppAccountToken.problem(with: value) {
                    throw fail(node, "appAccountToken '\(value)': \(problem) (rule app-account-token-is-a-uuid)")
                }
                token = value
            }
            let product = try productId(m.required("product"), catalog)
            let plan = try billingPlan(m.optional("plan"), of: product, catalog) ?? .upfront
            action = .purchase(
                customer: try text(m.required("customer"), "customer"), product: product, appAccountToken: token,
                plan: plan)
        case "cancel": let (c, p) = try customerProduct(); action = .cancel(customer: c, product: p)
        case "resume": let (c, p) = try customerProduct(); action = .resume(customer: c, product: p)
        case "stopSharing": let (c, p) = try customerProduct(); action = .stopSharing(customer: c, product: p)
        case "startSharing": let (c, p) = try customerProduct(); action = .startSharing(customer: c, product: p)
        case "refund":
            let m = try mapping(
                args, name, keys: ["customer", "product", "reason", "transaction", "percentage", "prorated"])
            var reason: Int32 = 0
            if let node = m.optional("reason") {
                let value = try unsigned(node, "reason")
                guard value <= 1 else {
                    throw fail(node, "expected refund reason 0 (other) or 1 (an issue in the app), found \(value)")
                }
                reason = Int32(value)
            }
            // With `transaction` or `percentage`: any past transaction, or a prorated refund (reference §5.14).
            if m.optional("transaction") != nil || m.optional("percentage") != nil || m.optional("prorated") != nil {
                action = .refundTransaction(
                    customer: try text(m.required("customer"), "customer"),
                    product: try productId(m.required("product"), catalog),
                    transaction: try transactionPosition(m.optional("transaction")),
                    amount: try refundAmount(m.optional("percentage"), prorated: m.optional("prorated")),
                    reason: reason)
                break
            }
            action = .refund(
                customer: try text(m.required("customer"), "customer"),
                product: try productId(m.required("product"), catalog),
                reason: reason)
        case "failBilling": action = .failBilling(customer: try customerOnly())
        case "fixBilling": action = .fixBilling(customer: try customerOnly())
        case "joinFamily": action = .joinFamily(customer: try customerOnly())
        case "leaveFamily": action = .leaveFamily(customer: try customerOnly())
        case "restorePurchases": action = .restorePurchases(customer: try customerOnly())
        case "shareWithFamily":
            let m = try mapping(args, name, keys: ["customer", "enabled"])
            action = .shareWithFamily(
                customer: try text(m.required("customer"), "customer"),
                enabled: try bool(m.required("enabled"), "enabled"))
        case "makeFamilyShareable": action = .makeFamilyShareable(product: try productOnly())
        case "removeFromSale": action = .removeFromSale(product: try productOnly())
        case "restoreToSale": action = .restoreToSale(product: try productOnly())
        case "changePlan":
            let m = try mapping(args, name, keys: ["customer", "product", "plan"])
            let product = try productId(m.required("product"), catalog)
            action = .changePlan(
                customer: try text(m.required("customer"), "customer"), product: product,
                plan: try billingPlan(m.optional("plan"), of: product, catalog))
        case "redeemOffer":
            let m = try mapping(args, name, keys: ["customer", "product", "offer"])
            let product = try productId(m.required("product"), catalog)
            let offerNode = try m.required("offer")
            let offer = try text(offerNode, "offer")
            let known = catalog[product]?.offers.compactMap(\.identifier) ?? []
            guard known.contains(offer) else {
                throw fail(
                    offerNode,
                    "unknown offer '\(offer)' of '\(product)'"
                        + (known.isEmpty ? ": the product has no `offers`" : hint(offer, known)))
            }
            action = .redeemOffer(
                customer: try text(m.required("customer"), "customer"), product: product, offer: offer)
        case "raisePrice":
            let m = try mapping(
                args, name, keys: ["product", "price", "storefront", "effective", "consentRequired", "plan"])
            var code: String?
            if let node = m.optional("storefront") { code = try storefront(node).countryCode }
            let product = try productId(m.required("product"), catalog)
            let newPrice = try price(m.required("price"), "price")
            let plan = try billingPlan(m.optional("plan"), of: product, catalog) ?? .upfront
            if let node = m.optional("effective") {
                // `effective`: a duration after the action, or an instant (rule price-increase-notice-lead).
                let value = try text(node, "effective")
                let effective: Instant
                switch Self.checkedTime(value, start: at) {
                case .instant(let checked): effective = checked
                case .outOfRange(let error): throw fail(node, "`effective` (\(value)): \(error)")
                case .invalid:
                    throw fail(
                        node,
                        "expected `effective` as a duration after the action (such as 30d or P1M) or an ISO instant, "
                            + "found '\(value)'")
                }
                if effective < at {
                    throw fail(
                        node,
                        "`effective` (\(effective)) is before the action (\(at)): a price increase starts at or after "
                            + "the instant it is scheduled at (rule price-increase-notice-lead)")
                }
                var consent: Bool?
                if let node = m.optional("consentRequired") { consent = try bool(node, "consentRequired") }
                action = .schedulePriceIncrease(
                    product: product, price: newPrice, storefront: code, effective: effective, consentRequired: consent,
                    plan: plan)
            } else {
                // Without `effective` the file says whether consent is needed (docs/scenario-format.md, `raisePrice`).
                guard let node = m.optional("consentRequired") else {
                    throw fail(
                        m.node,
                        "missing key `consentRequired` in `raisePrice`: say whether the increase needs the customers' "
                            + "consent (true or false), or give `effective` (a start date), with which Apple's consent "
                            + "rule decides (rule price-increase-consent-threshold)")
                }
                let consent = try bool(node, "consentRequired")
                action =
                    plan == .monthly
                    ? .raiseMonthlyPrice(product: product, price: newPrice, storefront: code, consentRequired: consent)
                    : .raisePrice(product: product, price: newPrice, storefront: code, consentRequired: consent)
            }
        case "consentToPriceIncrease":
            let (c, p) = try customerProduct()
            action = .consentToPriceIncrease(customer: c, product: p)
        case "extendRenewalDate", "requestRefund", "sendConsumptionInformation", "decideRefund", "reverseRefund":
            action = try decodeExtensionOrRefund(name, args, catalog: catalog)
        case "openApp": action = .openApp(customer: try customerOnly())
        case "failRenewalExtension":
            let (c, p) = try customerProduct()
            action = .failRenewalExtension(customer: c, product: p)
        case "requestTestNotification":
            _ = try mapping(args, name, keys: [])
            action = .requestTestNotification
        case "extendRenewalDatesForAllActiveSubscribers":
            let m = try mapping(
                args, name, keys: ["product", "days", "reason", "requestIdentifier", "storefrontCountryCodes"])
            var codes: [String] = []
            if let node = m.optional("storefrontCountryCodes") {
                let items = try list(node, "storefrontCountryCodes")
                guard !items.isEmpty else {
                    throw fail(
                        node,
                        "expected `storefrontCountryCodes` as a non-empty list of storefronts, found an empty list; "
                            + "leave the key out to extend in every storefront (Apple rejects an empty list, 4000027)")
                }
                for item in items { codes.append(try storefront(item).countryCode) }
            }
            action = .extendRenewalDatesForAllActiveSubscribers(
                product: try productId(m.required("product"), catalog), days: try whole(m.required("days"), "days"),
                reason: try extendReason(m.optional("reason")),
                requestIdentifier: try requestIdentifier(m.required("requestIdentifier")),
                storefrontCountryCodes: codes)
        default:
            throw fail(first.key, "unknown action '\(name)'\(hint(name, ScenarioAction.names))")
        }
        return TimelineEntry(at: at, action: action, location: first.key.location)
    }

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

    /// `customers:`: a mapping from customer name to `{ storefront: FRA }`.
    func decodeCustomers(_ node: YAMLNode?) throws(ScenarioError) -> [(
        customer: String, storefront: Storefront, location: YAMLNode
    )] {
        guard let node else { return [] }
        var result: [(customer: String, storefront: Storefront, location: YAMLNode)] = []
        for entry in try mapping(node, "customers", keys: nil).entries {
            let name = try text(entry.key, "a customer")
            let settings = try mapping(entry.value, "customer \(name)", keys: ["storefront"])
            let node = try settings.required("storefront")
            result.append((name, try storefront(node), node))
        }
        return result
    }

    /// Rule storefront-from-currency (`Catalog/Prices.swift`): the app's default storefront is the one given
    /// (`app.storefront`, a `.storekit` file's `_storefront`), or the one the products' currency names when exactly
    /// one storefront uses it. A scenario whose prices no storefront can charge is refused here, at the currency.
    func deriveStorefront(
        _ app: inout AppConfiguration, top: CheckedMapping, catalog: Catalog, explicit storekitStorefront: Bool,
        customerStorefronts: [(customer: String, storefront: Storefront, location: YAMLNode)]
    ) throws(ScenarioError) {
        let appNode = try top.required("app")
        let explicit = storekitStorefront || appNode.value(forKey: "storefront") != nil
        if !explicit {
            let currencies = Set(catalog.products.map(\.currency))
            if let derived = StorefrontPricing.defaultStorefront(forCurrencies: currencies) {
                app.storefront = derived
            } else if customerStorefronts.isEmpty {
                let currency = currencies.sorted().first { $0 != "USD" } ?? currencies.sorted()[0]
                let node = currencyNode(currency, top: top) ?? appNode
                let candidates = StorefrontPricing.storefronts(usingCurrency: currency)
                let which =
                    currencies.count > 1
                    ? "the products are priced in \(currencies.sorted().joined(separator: " and ")), and a storefront charges one currency"
                    : candidates.isEmpty
                        ? "no storefront in the table charges \(currency)"
                        : "\(currency) is the currency of several storefronts (\(candidates.joined(separator: ", ")))"
                throw fail(
                    node,
                    "cannot tell which storefront the customers are in: \(which); name it with `app: { storefront: \(candidates.first ?? "FRA") }` or per customer under `customers:`, and give other storefronts `prices` (rule storefront-from-currency)"
                )
            }
        }
    }

    /// Rule family-shares-a-storefront: the members of a family are in the organizer's country or region, so its
    /// storefront (Apple: Sandbox Test Families are all on the organizer's storefront, S-SBX-ACCT; reference §1.3).
    func checkFamilyStorefronts(
        _ spec: FamilySpec, _ storefronts: [(customer: String, storefront: Storefront, location: YAMLNode)],
        default fallback: Storefront
    ) throws(ScenarioError) {
        func storefront(_ name: String) -> Storefront {
            storefronts.first { $0.customer == name }?.storefront ?? fallback
        }
        let organizer = storefront(spec.organizer)
        for member in spec.members where storefront(member) != organizer {
            let entry = storefronts.first { $0.customer == member || $0.customer == spec.organizer }!
            throw fail(
                entry.location,
                "\(member) is in storefront \(storefront(member).countryCode) but the family's organizer \(spec.organizer) is in \(organizer.countryCode); family members share the organizer's storefront (rule family-shares-a-storefront)"
            )
        }
    }

    /// The `currency:` node of the first product priced in `currency`, for error locations.
    func currencyNode(_ currency: String, top: CheckedMapping) -> YAMLNode? {
        for item in top.optional("products")?.sequenceItems ?? [] {
            if let node = item.value(forKey: "currency"), node.scalarText == currency { return node }
        }
        return nil
    }

    /// A storefront code from the table in `Catalog/Storefronts.swift`.
    func storefront(_ node: YAMLNode) throws(ScenarioError) -> Storefront {
        let code = try text(node, "storefront")
        guard let storefront = Storefronts.storefront(countryCode: code) else {
            throw fail(
                node,
                "unknown storefront '\(code)': expected an ISO 3166-1 alpha-3 code from the storefront table, such as USA, FRA or GBR\(hint(code, Storefronts.knownCountryCodes))"
            )
        }
        return storefront
    }

    func importStoreKit(_ node: YAMLNode, into catalog: inout Catalog) throws(ScenarioError) -> StoreKitConfiguration {
        let relative = try text(node, "storekit")
        let path = relative.hasPrefix("/") ? relative : baseDirectory + "/" + relative
        let configuration: StoreKitConfiguration
        do throws(StoreKitImportError) { configuration = try StoreKitImporter.importFile(at: path) } catch {
            throw fail(node, "cannot import '\(relative)': \(error)")
        }
        for product in configuration.products {
            do { try catalog.add(product) } catch { throw fail(node, "'\(relative)': \(error)") }
        }
        return configuration
    }

    // MARK: - Values

    func fail(_ node: YAMLNode, _ message: String) -> ScenarioError {
        ScenarioError(file: file, location: node.location, message: message)
    }

    func hint(_ found: String, _ candidates: [String]) -> String {
        Suggestions.closest(to: found, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// `bounded`: at most ``maximumTextBytes``; false only for the scenario's name and expected values, which the
    /// file alone fixes (they never grow the store).
    func text(_ node: YAMLNode, _ what: String, bounded: Bool = true) throws(ScenarioError) -> String {
        guard let text = node.scalarText else {
            throw fail(node, "expected a text value for `\(what)`, found \(node.kindDescription)")
        }
        if text.isEmpty { throw fail(node, "expected a value for `\(what)`, found nothing") }
        let bytes = text.utf8.count
        if bounded && bytes > Self.maximumTextBytes {
            throw fail(
                node,
                "expected `\(what)` of at most \(Self.maximumTextBytes) bytes (UTF-8), found \(bytes) bytes "
                    + "(rule text-length-limit)")
        }
        return text
    }

    /// The longest text value the decoder takes (customer names, product and offer ids, tokens, ...), in UTF-8 bytes
    /// [assumed: Apple documents no limit for most of them; ids and names it issues are far shorter]. Every stored
    /// string grows the store and every answer that shows it (`serve`'s state and picture), so each is bounded
    /// (rule text-length-limit, docs/reliability.md).
    public static let maximumTextBytes = 1024

    /// A whole number that fits in `Int` (a larger one is an error, never a crash when converted).
    func whole(_ node: YAMLNode, _ what: String) throws(ScenarioError) -> Int {
        let value = try unsigned(node, what)
        guard let number = Int(exactly: value) else {
            throw fail(node, "expected a whole number from 0 to \(Int.max) for `\(what)`, found '\(value)'")
        }
        return number
    }

    func unsigned(_ node: YAMLNode, _ what: String) throws(ScenarioError) -> UInt64 {
        let value = try text(node, what)
        guard value.count <= 20, value.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt64(value) else {
            throw fail(node, "expected a whole number from 0 to \(UInt64.max) for `\(what)`, found '\(value)'")
        }
        return number
    }

    func bool(_ node: YAMLNode, _ what: String) throws(ScenarioError) -> Bool {
        switch try text(node, what) {
        case "true": return true
        case "false": return false
        case let other: throw fail(node, "expected true or false for `\(what)`, found '\(other)'")
        }
    }

    func price(_ node: YAMLNode, _ what: String) throws(ScenarioError) -> Price {
        let value = try text(node, what)
        guard let price = Price(decimal: value) else {
            throw fail(
                node,
                "expected `\(what)` as a non-negative decimal with at most 3 decimals, such as 9.99, found '\(value)'")
        }
        return price
    }

    func duration(_ node: YAMLNode, _ what: String) throws(ScenarioError) -> CalendarDuration {
        let value = try text(node, what)
        guard let duration = CalendarDurationSyntax.parse(value) else {
            throw fail(
                node, "expected `\(what)` as a duration such as 90s, 30m, 1h, 16d, 2w, P1M or PT1H, found '\(value)'")
        }
        // A duration must fit in the supported range of dates, so adding it to an instant can be checked.
        if CalendarMath.checkedAdd(duration, to: Instant.earliest).map(\.isSupported) != true {
            throw fail(node, "`\(what)` (\(value)) is longer than the supported range of dates (years 1970 to 9999)")
        }
        return duration
    }

    /// A time as written: an instant in the supported range, text that is not a time, or a time outside the range.
    enum CheckedTime {
        case instant(Instant)
        case invalid
        case outOfRange(InstantRangeError)
    }

    /// An instant: an offset from `start` (`0`, `90s`, `P1M10D`, ...) or an absolute ISO 8601 instant, checked
    /// against ``Instant/supportedRange`` (years 1970 to 9999) with overflow-checked arithmetic.
    static func checkedTime(_ text: String, start: Instant) -> CheckedTime {
        if let duration = CalendarDurationSyntax.parse(text) {
            do throws(InstantRangeError) { return .instant(try start.checkedAdding(duration)) } catch {
                return .outOfRange(error)
            }
        }
        guard let instant = CalendarDurationSyntax.parseInstant(text) else { return .invalid }
        return instant.isSupported ? .instant(instant) : .outOfRange(InstantRangeError(instant: instant))
    }

    func time(_ node: YAMLNode, start: Instant, _ what: String) throws(ScenarioError) -> Instant {
        let value = try text(node, what)
        let instant: Instant
        switch Self.checkedTime(value, start: start) {
        case .instant(let checked): instant = checked
        case .outOfRange(let error): throw fail(node, "`\(what)` (\(value)): \(error)")
        case .invalid:
            throw fail(
                node,
                "expected `\(what)` as a time: 0, 90s, 30m, 1h, 16d, 2w, an ISO 8601 duration such as P1M10D, or an ISO instant, found '\(value)'"
            )
        }
        if instant < start { throw fail(node, "`\(what)` (\(instant)) is before the scenario's start (\(start))") }
        return instant
    }

    func productId(_ node: YAMLNode, _ catalog: Catalog) throws(ScenarioError) -> String {
        let id = try text(node, "product")
        guard let product = catalog[id] else {
            throw fail(node, "unknown product '\(id)'\(hint(id, catalog.products.map(\.id)))")
        }
        // The catalog's copy: every action naming the product then shares one string.
        return product.id
    }

    /// A `plan` (of `purchase` or `changePlan`): `upfront` or `monthly`, `nil` when absent. `monthly` needs the
    /// product's `monthlyCommitment` (rule commitment-plan-needs-one-year), checked when the file is read.
    func billingPlan(_ node: YAMLNode?, of product: String, _ catalog: Catalog) throws(ScenarioError) -> BillingPlan? {
        guard let node else { return nil }
        let chosen = try planName(node)
        if chosen == .monthly, catalog[product]?.monthlyCommitment == nil {
            throw fail(
                node,
                "product '\(product)' has no monthly plan; give it a `monthlyCommitment` (one-year "
                    + "subscriptions only, rule commitment-plan-needs-one-year)")
        }
        return chosen
    }

    func list(_ node: YAMLNode, _ what: String) throws(ScenarioError) -> [YAMLNode] {
        guard let items = node.sequenceItems else {
            throw fail(node, "expected a list for `\(what)`, found \(node.kindDescription)")
        }
        return items
    }

    /// A mapping whose keys are checked against `keys` (nil: any keys).
    func mapping(_ node: YAMLNode, _ what: String, keys: [String]?) throws(ScenarioError) -> CheckedMapping {
        guard let entries = node.mappingEntries else {
            throw fail(
                node,
                "expected a mapping for \(what.hasPrefix("a") || what.hasPrefix("the") ? what : "`\(what)`"), found \(node.kindDescription)"
            )
        }
        if let keys {
            for entry in entries {
                let key = entry.key.scalarText ?? ""
                if !keys.contains(key) {
                    throw fail(
                        entry.key,
                        "unknown key '\(key)' in \(what.hasPrefix("a") || what.hasPrefix("the") ? what : "`\(what)`")\(hint(key, keys)); expected one of: \(keys.joined(separator: ", "))"
                    )
                }
            }
        }
        return CheckedMapping(node: node, entries: entries, decoder: self, what: what)
    }

    struct CheckedMapping {
        let node: YAMLNode
        let entries: [YAMLMappingEntry]
        let decoder: ScenarioDecoder
        let what: String

        func optional(_ key: String) -> YAMLNode? {
            entries.first { $0.key.scalarText == key }?.value
        }

        func required(_ key: String) throws(ScenarioError) -> YAMLNode {
            guard let value = optional(key) else {
                throw decoder.fail(
                    node, "missing key `\(key)` in \(what.hasPrefix("a") || what.hasPrefix("the") ? what : "`\(what)`")"
                )
            }
            return value
        }
    }
}

// MARK: - Renewal-date extensions and refund requests

extension ScenarioDecoder {
    /// The renewal-date extension and refund-request actions (docs/scenario-format.md, "Renewal-date extensions" and
    /// "Refund requests").
    /// `reason`: an `extendReasonCode` 0...3, 0 when absent.
    func extendReason(_ node: YAMLNode?) throws(ScenarioError) -> ExtendReasonCode {
        guard let node else { return .undeclared }
        let value = try unsigned(node, "reason")
        guard let code = Int32(exactly: value).flatMap(ExtendReasonCode.init(rawValue:)) else {
            throw fail(
                node,
                "expected extendReasonCode 0 (undeclared), 1 (customer satisfaction), 2 (other) or 3 "
                    + "(service issue or outage), found \(value)")
        }
        return code
    }

    /// `requestIdentifier`: 1 to 128 characters, as Apple's API takes it (`InvalidRequestIdentifierError` 4000011;
    /// Apple's `requestIdentifier` page and ExtendRenewalDateRequest).
    func requestIdentifier(_ node: YAMLNode) throws(ScenarioError) -> String {
        let value = try text(node, "requestIdentifier")
        guard (1...128).contains(value.count) else {
            throw fail(
                node,
                "expected `requestIdentifier` of 1 to 128 characters (Apple's InvalidRequestIdentifierError, 4000011), "
                    + "found \(value.count) characters")
        }
        return value
    }

    func decodeExtensionOrRefund(_ name: String, _ args: YAMLNode, catalog: Catalog) throws(ScenarioError)
        -> ScenarioAction
    {
        switch name {
        case "extendRenewalDate":
            let m = try mapping(args, name, keys: ["customer", "product", "days", "reason", "requestIdentifier"])
            return .extendRenewalDate(
                customer: try text(m.required("customer"), "customer"),
                product: try productId(m.required("product"), catalog), days: try whole(m.required("days"), "days"),
                reason: try extendReason(m.optional("reason")),
                requestIdentifier: try m.optional("requestIdentifier").map { node throws(ScenarioError) in
                    try requestIdentifier(node)
                })
        case "requestRefund":
            let m = try mapping(args, name, keys: ["customer", "product", "transaction", "reason"])
            let node = try m.required("reason")
            let raw = try text(node, "reason")
            guard let reason = ConsumptionRequestReason(rawValue: raw) else {
                let names = ConsumptionRequestReason.allCases.map(\.rawValue)
                throw fail(
                    node,
                    "expected consumptionRequestReason \(names.joined(separator: ", ")), found '\(raw)'"
                        + hint(raw, names))
            }
            return .requestRefund(
                customer: try text(m.required("customer"), "customer"),
                product: try productId(m.required("product"), catalog),
                transaction: try transactionPosition(m.optional("transaction")), reason: reason)
        case "sendConsumptionInformation":
            let m = try mapping(
                args, name, keys: ["customer", "product", "transaction", "customerConsented", "refundPreference"])
            var preference: RefundPreference?
            if let node = m.optional("refundPreference") {
                let raw = try text(node, "refundPreference")
                let names = RefundPreference.allCases.map(\.rawValue)
                guard let value = RefundPreference(rawValue: raw) else {
                    throw fail(
                        node,
                        "expected refundPreference \(names.joined(separator: ", ")), found '\(raw)'" + hint(raw, names))
                }
                preference = value
            }
            return .sendConsumptionInformation(
                customer: try text(m.required("customer"), "customer"),
                product: try productId(m.required("product"), catalog),
                transaction: try transactionPosition(m.optional("transaction")),
                customerConsented: try bool(m.required("customerConsented"), "customerConsented"),
                refundPreference: preference)
        case "decideRefund":
            let m = try mapping(
                args, name,
                keys: ["customer", "product", "transaction", "decision", "percentage", "prorated", "reason"])
            let node = try m.required("decision")
            let raw = try text(node, "decision")
            let decision: RefundDecision
            switch raw {
            case "REFUND":
                decision = .grant(try refundAmount(m.optional("percentage"), prorated: m.optional("prorated")))
            case "REFUND_DECLINED":
                if let extra = m.optional("percentage") ?? m.optional("prorated") {
                    throw fail(extra, "`percentage` and `prorated` apply only to decision REFUND")
                }
                decision = .decline
            default:
                throw fail(
                    node,
                    "expected decision REFUND or REFUND_DECLINED, found '\(raw)'"
                        + hint(raw, ["REFUND", "REFUND_DECLINED"]))
            }
            var reason: Int32 = 0
            if let node = m.optional("reason") {
                let value = try unsigned(node, "reason")
                guard value <= 1 else {
                    throw fail(node, "expected refund reason 0 (other) or 1 (an issue in the app), found \(value)")
                }
                reason = Int32(value)
            }
            return .decideRefund(
                customer: try text(m.required("customer"), "customer"),
                product: try productId(m.required("product"), catalog),
                transaction: try transactionPosition(m.optional("transaction")), decision: decision, reason: reason)
        default:  // "reverseRefund"
            let m = try mapping(args, name, keys: ["customer", "product", "transaction"])
            return .reverseRefund(
                customer: try text(m.required("customer"), "customer"),
                product: try productId(m.required("product"), catalog),
                transaction: try transactionPosition(m.optional("transaction")))
        }
    }

    /// `transaction: n`: the customer's n-th transaction of the product, counted from 1 in purchase order.
    func transactionPosition(_ node: YAMLNode?) throws(ScenarioError) -> Int? {
        guard let node else { return nil }
        let value = try whole(node, "transaction")
        guard value >= 1 else {
            throw fail(node, "expected `transaction` as 1 or more (the n-th purchase, counted from 1), found \(value)")
        }
        return value
    }

    /// `percentage`: a prorated refund's share in milliunits (Apple's `revocationPercentage`); `prorated: true`
    /// without it: a prorated refund whose share follows from the time remaining (rule
    /// prorated-refund-by-time-remaining); a stated `percentage` wins. Neither: a full refund.
    func refundAmount(_ node: YAMLNode?, prorated: YAMLNode? = nil) throws(ScenarioError) -> RefundAmount {
        if let prorated, try !bool(prorated, "prorated") {
            throw fail(prorated, "expected `prorated: true` (leave it out for a full refund), found false")
        }
        guard let node else { return prorated == nil ? .full : .proratedByTimeRemaining }
        let value = try whole(node, "percentage")
        guard (1...99_999).contains(value) else {
            throw fail(
                node,
                "expected `percentage` in milliunits, 1 to 99999 (50000 is 50 %), found \(value); leave it out for a "
                    + "full refund (rule prorated-percentage-in-milliunits)")
        }
        return .prorated(milliPercent: Int32(value))
    }
}

// MARK: one action (simctl serve)

extension ScenarioDecoder {
    /// One timeline action outside a scenario file, for `simctl serve`'s control API: `node` is a mapping like a
    /// timeline entry (one action key and its arguments) whose `at` is optional (default: `now`). Times count from
    /// `now`, and an `at` before `now` is refused. The vocabulary, checks and error messages are a timeline entry's.
    package func decodeAction(_ node: YAMLNode, now: Instant, catalog: Catalog) throws(ScenarioError) -> TimelineEntry {
        var entry = node
        if case .mapping(let entries) = node.kind, !entries.contains(where: { $0.key.scalarText == "at" }) {
            let at = YAMLNode(kind: .scalar(YAMLScalar(text: "0", style: .plain)), location: node.location)
            entry = YAMLNode(
                kind: .mapping([YAMLMappingEntry(key: at.withText("at"), value: at)] + entries), location: node.location
            )
        }
        return try decodeEntry(entry, start: now, catalog: catalog)
    }

    /// ``decodeAction(_:now:catalog:)`` for a JSON request body: objects are mappings (keys sorted, `at` first),
    /// arrays lists, and numbers, `true`, `false` and strings scalars as written; `null` is an empty scalar.
    /// Locations are 1:1 (a JSON body has no lines worth naming).
    public func decodeAction(json: JSONValue, now: Instant, catalog: Catalog) throws(ScenarioError) -> TimelineEntry {
        try decodeAction(Self.node(json), now: now, catalog: catalog)
    }

    static func node(_ json: JSONValue) -> YAMLNode {
        let here = SourceLocation(line: 1, column: 1)
        func scalar(_ text: String, _ style: YAMLScalar.Style = .plain) -> YAMLNode {
            YAMLNode(kind: .scalar(YAMLScalar(text: text, style: style)), location: here)
        }
        switch json {
        case .null: return scalar("")
        case .bool(let value): return scalar(value ? "true" : "false")
        case .integer(let value): return scalar(String(value))
        case .decimal(let text): return scalar(text)
        case .string(let text): return scalar(text, .doubleQuoted)
        case .array(let items): return YAMLNode(kind: .sequence(items.map(node)), location: here)
        case .object(let members):
            let keys = members.keys.sorted { ($0 == "at" ? 0 : 1, $0) < ($1 == "at" ? 0 : 1, $1) }
            return YAMLNode(
                kind: .mapping(keys.map { YAMLMappingEntry(key: scalar($0), value: node(members[$0]!)) }),
                location: here)
        }
    }
}

extension YAMLNode {
    fileprivate func withText(_ text: String) -> YAMLNode {
        YAMLNode(kind: .scalar(YAMLScalar(text: text, style: .plain)), location: location)
    }
}
