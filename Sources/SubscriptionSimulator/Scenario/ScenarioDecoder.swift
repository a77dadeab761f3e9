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
        /// Entries written in a deprecated spelling (``TimelineEntry/deprecation``), in the timeline's order.
        var warnings: [ScenarioWarning] = []
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
            if let deprecation = entry.deprecation {
                warnings.append(ScenarioWarning(file: file, location: entry.location, message: deprecation))
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
            endLocation: (top.optional("until") ?? startNode).location, deliveryFaults: deliveryFaults, epoch: epoch,
            warnings: warnings)
    }

    /// What a decoded timeline item is replaced with, so its nodes are freed.
    static let consumed = YAMLNode(kind: .sequence([]), location: SourceLocation(line: 0, column: 0))

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
