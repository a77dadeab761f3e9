/// The scenario's app, catalogue (products, offers, commitment plans, a `.storekit` file) and storefronts
/// (docs/scenario-format.md, "`app`", "`products`", "Storefronts, prices and app account tokens").
extension ScenarioDecoder {
    // MARK: - Sections

    static let topKeys = [
        "name", "start", "seed", "epoch", "app", "products", "storekit", "customers", "family", "timeline", "until",
        "expect", "delivery",
    ]
    static let appKeys = [
        "bundleId", "bundleVersion", "appAppleId", "environment", "gracePeriod", "graceEligibility", "familyDelay",
        "storefront", "originalPlatform", "versionExternalIdentifier",
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
        // The AppTransaction's app fields (issue 50; docs/wire-format.md, "App transactions").
        if let node = map.optional("originalPlatform") {
            let value = try text(node, "originalPlatform")
            guard let platform = PurchasePlatform(rawValue: value) else {
                let names = PurchasePlatform.allCases.map(\.rawValue)
                throw fail(
                    node,
                    "expected originalPlatform iOS, macOS, tvOS or visionOS (Apple's PurchasePlatform), found '\(value)'\(hint(value, names))"
                )
            }
            app.originalPlatform = platform
        }
        if let node = map.optional("versionExternalIdentifier") {
            app.versionExternalIdentifier = Int64(try whole(node, "versionExternalIdentifier"))
        }
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
}
