/// One scenario action, declared once: its name in scenario files, its arguments (names, types, documentation), how
/// its located YAML nodes decode into a ``ScenarioAction``, how that action is written back as YAML, how it is applied
/// to the store, how its customer and product are renamed, whether it reads the store's history, and how `simctl
/// check` draws it. The decoder (``ScenarioDecoder``), the YAML writer (``ScenarioYAMLWriter``), the timeline driver
/// (``TimelineDriver/perform(_:on:)``), the identity mappings (``ScenarioAction/renamingCustomer(_:)``,
/// ``ScenarioAction/mappingProduct(_:)``), ``ScenarioRunner/needsHistory(_:)``, `check`'s generator
/// (`Check/ActionVocabulary.swift`), `simctl serve`'s `GET`/`POST /simctl/v1/actions` (the dashboard's forms; `POST`
/// reads an action with the decoder) and the action rows of docs/scenario-format.md (checked against this table by
/// `ScenarioActionTableTests`) all come from ``all`` (`Scenario/ScenarioActionTable.swift`).
///
/// Adding an action: its case of ``ScenarioAction`` and one entry in ``all`` (both in
/// `Scenario/ScenarioActionTable.swift`), its rule in the store (the method its `apply` calls), its docs row, its
/// tests. A class, so that looking an action's declaration up copies one reference.
package final class ScenarioActionSpec: Sendable {
    /// The action's key in scenario files (and in the control API's JSON body).
    package let name: String
    /// The arguments, in the order an "unknown key" error lists them.
    package let arguments: [ActionArgument]
    /// The keys the decoder accepts: `arguments`' names, and the keys of a deprecated spelling that decodes into
    /// another action (``deprecatedKeys``), in the order an "unknown key" error lists them; made once rather than an
    /// array per timeline entry.
    let keys: [String]
    /// Keys accepted only for a deprecated spelling (`refund` with `transaction`, `percentage` or `prorated`, now
    /// `refundTransaction`): the decoder reads them into the other action and warns (``TimelineEntry/deprecation``).
    let deprecatedKeys: Set<String>
    /// Reads the arguments, already checked against ``keys``; every error names the node it is about.
    let decode: @Sendable (ActionInput) throws(ScenarioError) -> ScenarioAction
    /// The arguments as flow-mapping members (`customer: alice`), in the order the writer puts them.
    let write: @Sendable (ScenarioAction) -> [String]
    /// The action's rule in the store: calls the store's method, which checks its rules before it changes anything.
    let apply: @Sendable (ScenarioAction, inout SimulatedStore) throws(StoreError) -> Void
    /// The action with its customer renamed by the first function and its product by the second (identity mappings,
    /// `check`'s fresh customers per case).
    let renamed: @Sendable (ScenarioAction, (String) -> String, (String) -> String) -> ScenarioAction
    /// Whether the action reads what ``StoreRetention/liveState`` forgets (``ScenarioRunner/needsHistory(_:)``).
    let readsHistory: Bool
    /// The notification kinds the action sends at its own instant (`check`'s finding classes name it as their cause,
    /// ``FindingClass/cause(of:to:at:in:)``); kinds only time sends are the clock's.
    let sends: Set<String>
    /// How `simctl check` draws this action: none, one, or several variants (`refundTransaction`: of a past
    /// transaction, prorated).
    let draws: [CheckDraw]
    /// What `check` draws right after this action, at the same instant, if anything (``CheckFollowUp``).
    let followUp: CheckFollowUp?
    /// Whether the action needs the scenario's family (joining, leaving, sharing): `check`'s shrinker drops these
    /// with the family (``Shrinker``).
    let needsFamily: Bool

    init(
        _ name: String, _ arguments: [ActionArgument], deprecatedKeys: [String] = [],
        decode: @escaping @Sendable (ActionInput) throws(ScenarioError) -> ScenarioAction,
        write: @escaping @Sendable (ScenarioAction) -> [String],
        apply: @escaping @Sendable (ScenarioAction, inout SimulatedStore) throws(StoreError) -> Void,
        renamed: @escaping @Sendable (ScenarioAction, (String) -> String, (String) -> String) -> ScenarioAction,
        readsHistory: Bool = false, needsFamily: Bool = false, sends: Set<String> = [], draws: [CheckDraw] = [],
        followUp: CheckFollowUp? = nil
    ) {
        self.name = name
        self.arguments = arguments
        let names = arguments.map(\.name)
        self.keys = names + deprecatedKeys.filter { !names.contains($0) }
        self.deprecatedKeys = Set(deprecatedKeys)
        self.decode = decode
        self.write = write
        self.apply = apply
        self.renamed = renamed
        self.readsHistory = readsHistory
        self.sends = sends
        self.draws = draws
        self.followUp = followUp
        self.needsFamily = needsFamily
    }

    /// The arguments as the docs' action tables list them: "`customer`, `product`, optional `plan` (...)"; "`{}` (none)".
    package var argumentsText: String {
        guard !arguments.isEmpty else { return "`{}` (none)" }
        return arguments.map { argument in
            (argument.required ? "" : "optional ") + "`\(argument.name)`"
                + (argument.documentation.isEmpty ? "" : " (\(argument.documentation))")
        }.joined(separator: ", ")
    }

    /// Every action by name.
    static let byName: [String: ScenarioActionSpec] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}

/// One argument of an action.
package struct ActionArgument: Sendable {
    /// What an argument's value is.
    package enum Kind: String, Sendable {
        case customer, product, text, wholeNumber, bool, price, time, storefront, storefronts, plan, choice
    }

    package let name: String
    package let kind: Kind
    package let required: Bool
    /// What the docs' action table says about it in parentheses, or empty.
    package let documentation: String
    /// The values a `choice` argument takes, as the decoder reads them (empty for other kinds).
    let choiceValues: [String]

    init(
        _ name: String, _ kind: Kind, required: Bool = true, _ documentation: String = "", choices: [String] = []
    ) {
        self.name = name
        self.kind = kind
        self.required = required
        self.documentation = documentation
        self.choiceValues = choices
    }

    /// Every value the argument can take, when they are few: a `choice`'s values, a `plan`'s (``BillingPlan``), a
    /// `bool`'s; empty otherwise. `simctl serve`'s `GET /simctl/v1/actions` lists them (the dashboard's forms).
    package var choices: [String] {
        switch kind {
        case .choice: return choiceValues
        case .plan: return BillingPlan.allCases.map(\.rawValue)
        case .bool: return ["true", "false"]
        default: return []
        }
    }

    static let customer = ActionArgument("customer", .customer)
    static let product = ActionArgument("product", .product)
    /// The customer's n-th transaction of the product, from 1 (docs/scenario-format.md says it once).
    static let transaction = ActionArgument("transaction", .wholeNumber, required: false)
    /// A refund's `reason` (``ScenarioDecoder/refundReason(_:)``).
    static let refundReason = ActionArgument("reason", .wholeNumber, required: false, "0 or 1, default 0")
}

/// One action's arguments as the decoder hands them to ``ScenarioActionSpec/decode``: the checked mapping, the
/// catalogue, the entry's instant, and the readers that report errors at the node.
package struct ActionInput {
    let name: String
    let map: ScenarioDecoder.CheckedMapping
    let decoder: ScenarioDecoder
    let catalog: Catalog
    /// The entry's instant (`raisePrice`'s `effective` counts from it).
    let at: Instant

    func optional(_ key: String) -> YAMLNode? { map.optional(key) }
    func required(_ key: String) throws(ScenarioError) -> YAMLNode { try map.required(key) }
    func customer() throws(ScenarioError) -> String { try decoder.text(map.required("customer"), "customer") }
    func product() throws(ScenarioError) -> String { try decoder.productId(map.required("product"), catalog) }
    func fail(_ node: YAMLNode, _ message: String) -> ScenarioError { decoder.fail(node, message) }
}

/// One way `simctl check` draws an action: how often (relative to the others), when it may be drawn at all (what the
/// catalogue and the people must offer), and how its arguments are drawn.
package struct CheckDraw: Sendable {
    /// The draw's place in the generator's order, which decides what each random number picks: kept as it was when
    /// `check` had its own list of kinds, so every seed draws the same cases.
    let rank: Int
    let weight: Int
    let when: @Sendable (ActionPools) -> Bool
    let draw: @Sendable (inout ActionDraw) -> ScenarioAction

    init(
        rank: Int, weight: Int, when: @escaping @Sendable (ActionPools) -> Bool,
        _ draw: @escaping @Sendable (inout ActionDraw) -> ScenarioAction
    ) {
        self.rank = rank
        self.weight = weight
        self.when = when
        self.draw = draw
    }
}

/// What `simctl check` does around an action it drew: draws one that only makes sense right after it (at the same
/// instant), remembers what later draws depend on, and knows the action's simpler forms for shrinking.
package struct CheckFollowUp: Sendable {
    /// The action drawn right after this one, or nil: the developer's consumption information after a refund request
    /// (within 12 hours of it), a customer's consent after a price increase that needs it. Given the people.
    let next: @Sendable (ScenarioAction, inout RandomSource, [String]) -> ScenarioAction?
    /// Remembers what the applied action changed that later draws depend on (prices).
    let note: @Sendable (ScenarioAction, inout ActionPools) -> Void
    /// Simpler forms of the action, tried in order by the shrinker (`Check/Shrinker.swift`): fewer optional arguments.
    let simpler: @Sendable (ScenarioAction) -> [ScenarioAction]

    init(
        next: @escaping @Sendable (ScenarioAction, inout RandomSource, [String]) -> ScenarioAction? = { _, _, _ in nil
        },
        note: @escaping @Sendable (ScenarioAction, inout ActionPools) -> Void = { _, _ in },
        simpler: @escaping @Sendable (ScenarioAction) -> [ScenarioAction] = { _ in [] }
    ) {
        self.next = next
        self.note = note
        self.simpler = simpler
    }
}

/// What `simctl check` may name in the actions it draws, worked out once from the catalogue and the people
/// (docs/check.md, "What is generated").
package struct ActionPools: Sendable {
    let catalog: Catalog
    let people: [String]
    let family: FamilySpec?
    let subscriptions: [String]
    let purchasable: [String]
    let refundable: [String]
    let shareable: [String]
    let notShareable: [String]
    let withOffers: [String]
    /// One-year subscriptions that also offer the monthly plan with a 12-month commitment (a purchase picks a plan).
    let withCommitment: Set<String>
    /// What `changePlan` may name: a product of a shared group, or one with the commitment plan (a switch of billing
    /// plan on the same product, rule billing-plan-switch-at-renewal), in catalogue order.
    let planChangeTargets: [String]
    /// Product prices after the price increases drawn so far, so the next one goes up again.
    var prices: [String: Price] = [:]

    package init(catalog: Catalog, people: [String], family: FamilySpec?) {
        self.catalog = catalog
        self.people = people
        self.family = family
        let products = catalog.products
        subscriptions = products.filter { $0.type == .autoRenewable }.map(\.id)
        purchasable = products.filter { $0.type != .nonRenewing || $0.duration != nil }.map(\.id)
        refundable = products.filter { $0.type != .nonRenewing }.map(\.id)
        shareable = products.filter(\.familyShareable).map(\.id)
        notShareable = products.filter {
            !$0.familyShareable && ($0.type == .autoRenewable || $0.type == .nonConsumable)
        }.map(\.id)
        withOffers = products.filter { !$0.offers.isEmpty }.map(\.id)
        withCommitment = Set(products.filter { $0.monthlyCommitment != nil }.map(\.id))
        var groupSizes: [String: Int] = [:]
        for product in products { if let group = product.group { groupSizes[group, default: 0] += 1 } }
        planChangeTargets = products.filter {
            ($0.group.map { groupSizes[$0] ?? 0 } ?? 0) > 1 || ($0.monthlyCommitment != nil && $0.group != nil)
        }.map(\.id)
    }

    // The preconditions the table's draws name.
    var hasSubscriptions: Bool { !subscriptions.isEmpty }
    var hasFamily: Bool { family != nil }
    var familyCanShare: Bool { family != nil && !shareable.isEmpty }
    var familyCanMakeShareable: Bool { family != nil && !notShareable.isEmpty }
}

/// One draw in progress: the random source, the customer drawn for it, the store as it is now.
package struct ActionDraw {
    var random: RandomSource
    let customer: String
    let store: SimulatedStore
    let pools: ActionPools

    mutating func pick<T>(_ items: [T]) -> T { items[random.nextInt(in: 0...items.count - 1)] }
    mutating func chance(_ probability: Double) -> Bool { random.nextDouble() < probability }
    mutating func subscription() -> String { pick(pools.subscriptions) }

    /// The customer's n-th transaction of the product, from 1; drawn among those that exist.
    mutating func position(_ product: String) -> Int {
        let customer = customer
        let count = store.transactions.reduce(0) {
            $0 + ($1.customer == customer && $1.productId == product ? 1 : 0)
        }
        return random.nextInt(in: 1...max(1, count))
    }

    /// A lowercase version 4 UUID from the random source.
    mutating func uuid() -> String { Self.uuid(&random) }

    static func uuid(_ random: inout RandomSource) -> String {
        NotificationUUID(
            high: (random.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000,
            low: (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        ).description
    }
}

// MARK: - Written back as YAML

/// Flow-mapping members the table's writers share.
enum ActionYAML {
    static func scalar(_ text: String) -> String { ScenarioYAMLWriter.scalar(text) }

    static func customerProduct(_ customer: String, _ product: String) -> [String] {
        ["customer: \(scalar(customer))", "product: \(scalar(product))"]
    }

    static func customer(_ customer: String) -> [String] { ["customer: \(scalar(customer))"] }
    static func product(_ product: String) -> [String] { ["product: \(scalar(product))"] }
    static func transaction(_ position: Int?) -> [String] { position.map { ["transaction: \($0)"] } ?? [] }

    static func amount(_ amount: RefundAmount) -> [String] {
        switch amount {
        case .full: return []
        case .prorated(let milliPercent): return ["percentage: \(milliPercent)"]
        case .proratedByTimeRemaining: return ["prorated: true"]
        }
    }
}

// MARK: - Argument readers the table's decoders share

extension ScenarioDecoder {
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

    /// A refund's `reason`: 0 (other) or 1 (an issue in the app), 0 when absent.
    func refundReason(_ node: YAMLNode?) throws(ScenarioError) -> Int32 {
        guard let node else { return 0 }
        let value = try unsigned(node, "reason")
        guard value <= 1 else {
            throw fail(node, "expected refund reason 0 (other) or 1 (an issue in the app), found \(value)")
        }
        return Int32(value)
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

    /// A text argument `key` that must be one of `names` (an enum's raw values, called `label` in the error), with a
    /// "did you mean".
    func choice<T>(_ node: YAMLNode, _ key: String, label: String, _ names: [String], _ make: (String) -> T?)
        throws(ScenarioError) -> T
    {
        let raw = try text(node, key)
        guard let value = make(raw) else {
            throw fail(node, "expected \(label) \(names.joined(separator: ", ")), found '\(raw)'" + hint(raw, names))
        }
        return value
    }
}
