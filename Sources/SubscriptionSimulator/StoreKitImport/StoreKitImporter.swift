import Foundation

/// A subscription group as a `.storekit` file describes it.
public struct StoreKitSubscriptionGroup: Hashable, Sendable {
    /// The file's group `id`; imported products use it as their group, so a synchronised file's numeric id becomes
    /// the `subscriptionGroupIdentifier` (storekit-config-format §9).
    public var id: String
    public var name: String
    public var productIds: [String]
}

/// A settings key the simulator lists but does not act on (time is virtual; billing failures come from the
/// timeline).
public struct StoreKitSetting: Hashable, Sendable {
    public var key: String
    public var value: String
}

/// What a `.storekit` file contributes to a scenario.
public struct StoreKitConfiguration: Hashable, Sendable {
    public var file: String
    /// Products in file order: `products`, then `nonRenewingSubscriptions`, then each group's subscriptions.
    public var products: [Product]
    public var groups: [StoreKitSubscriptionGroup]
    /// From `settings._storefront` (absent: the file leaves it to the default, USA).
    public var storefront: Storefront?
    /// The currency of every price in the file, from the storefront (USD when `_storefront` is absent).
    public var currency: String
    /// `settings._billingGracePeriodEnabled`; true means a 16-day grace period (capped for weekly products).
    public var billingGracePeriodEnabled: Bool?
    /// Every other settings key, sorted by key, with a readable value.
    public var otherSettings: [StoreKitSetting]
    /// `"major.minor"` from `version`; never used to reject a file.
    public var formatVersion: String?
    /// What the file holds that the simulator does not import, and why.
    public var notes: [String]
}

/// An error in a `.storekit` file: the file, the JSON path, what was expected and what was found.
public struct StoreKitImportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var jsonPath: String
    public var message: String
    /// Where in the text, for errors found while reading the text itself (not UTF-8, malformed or truncated JSON).
    public var location: SourceLocation?

    public init(file: String, jsonPath: String, message: String, location: SourceLocation? = nil) {
        self.file = file
        self.jsonPath = jsonPath
        self.message = SourceText.escapingControlCharacters(message)
        self.location = location
    }

    /// `FILE:LINE:COLUMN: error: MESSAGE` when the place in the text is known, else `FILE: $.json.path: MESSAGE`.
    public var description: String {
        if let location { return "\(file):\(location.line):\(location.column): error: \(message)" }
        return "\(file): \(jsonPath): \(message)"
    }
}

/// Imports Xcode StoreKit configuration files (format: `shared/reference/storekit-config-format.md`). Unknown keys
/// are ignored at every level and `version` never rejects a file (§10.3); malformed JSON, a missing required key or
/// a value of the wrong type is an error naming the file and the JSON path.
public enum StoreKitImporter {
    /// Files larger than this are refused (Xcode's configurations are a few kilobytes).
    public static let maximumBytes = 64 << 20

    /// Imports a `.storekit` file, or a `.storekit` package directory holding `Configuration.storekit` (§1).
    public static func importFile(at path: String) throws(StoreKitImportError) -> StoreKitConfiguration {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreKitImportError(
                file: path, jsonPath: "$", message: "cannot read the file: no such file or directory")
        }
        let filePath = isDirectory.boolValue ? path + "/Configuration.storekit" : path
        // Read through a handle, not `contents(atPath:)`: /dev/null and pipes are read as what they hold, and no
        // more than ``maximumBytes`` (so /dev/zero cannot exhaust memory).
        guard let handle = FileHandle(forReadingAtPath: filePath),
            let data = try? handle.read(upToCount: maximumBytes + 1) ?? Data()
        else {
            let reason =
                !FileManager.default.fileExists(atPath: filePath)
                ? "no Configuration.storekit inside the package"
                : FileManager.default.isReadableFile(atPath: filePath) ? "it cannot be read" : "permission denied"
            throw StoreKitImportError(
                file: path, jsonPath: "$", message: "cannot read the file: \(reason)")
        }
        try? handle.close()
        if data.count > maximumBytes {
            throw StoreKitImportError(
                file: path, jsonPath: "$", message: "the file is larger than \(maximumBytes >> 20) MB",
                location: SourceLocation(line: 1, column: 1))
        }
        return try importData(Array(data), fileName: path)
    }

    public static func importData(_ bytes: [UInt8], fileName: String) throws(StoreKitImportError)
        -> StoreKitConfiguration
    {
        guard var text = String(validating: bytes, as: UTF8.self) else {
            let place = firstInvalidUTF8(bytes)
            throw StoreKitImportError(
                file: fileName, jsonPath: "$", message: "expected UTF-8 JSON, found bytes that are not UTF-8",
                location: place)
        }
        // A UTF-8 byte order mark (some editors write one) is not part of the JSON (RFC 8259 §8.1 lets parsers
        // ignore it); YAML scenario files accept one too.
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        let root: JSONValue
        do throws(JSONParseError) { root = try CanonicalJSON.parse(text, allowFractions: true) } catch {
            throw StoreKitImportError(
                file: fileName, jsonPath: "$", message: "malformed JSON: \(error.message)",
                location: SourceLocation(line: error.line, column: error.column))
        }
        var reader = Reader(file: fileName)
        return try reader.read(root)
    }

    /// The place of the first byte that is not valid UTF-8 (columns count Unicode scalars).
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> SourceLocation {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var line = 1
        var column = 1
        while case .valid(let encoded) = parser.parseScalar(from: &iterator) {
            if encoded.count == 1 && encoded.first == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return SourceLocation(line: line, column: column)
    }

    struct Reader {
        let file: String
        var notes: [String] = []
        var seen: [String: String] = [:]

        func fail(_ path: String, _ message: String) -> StoreKitImportError {
            StoreKitImportError(file: file, jsonPath: path, message: message)
        }

        static func describe(_ value: JSONValue) -> String {
            switch value {
            case .null: return "null"
            case .bool: return "a boolean"
            case .integer, .decimal: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }

        func object(_ value: JSONValue, _ path: String) throws(StoreKitImportError) -> [String: JSONValue] {
            guard case .object(let members) = value else {
                throw fail(path, "expected an object, found \(Self.describe(value))")
            }
            return members
        }

        /// An optional array (missing or null = empty, §10.3 rule 3).
        func array(_ members: [String: JSONValue], _ key: String, _ path: String) throws(StoreKitImportError)
            -> [JSONValue]
        {
            guard let value = members[key] else { return [] }
            switch value {
            case .null: return []
            case .array(let items): return items
            default: throw fail(path + "." + key, "expected an array, found \(Self.describe(value))")
            }
        }

        func string(_ members: [String: JSONValue], _ key: String, _ path: String) throws(StoreKitImportError) -> String
        {
            guard let value = members[key] else { throw fail(path, "missing required key '\(key)'") }
            guard case .string(let text) = value else {
                throw fail(path + "." + key, "expected a string, found \(Self.describe(value))")
            }
            return text
        }

        func optionalString(_ members: [String: JSONValue], _ key: String, _ path: String) throws(StoreKitImportError)
            -> String?
        {
            guard let value = members[key] else { return nil }
            switch value {
            case .null: return nil
            case .string(let text): return text
            default: throw fail(path + "." + key, "expected a string, found \(Self.describe(value))")
            }
        }

        func bool(_ members: [String: JSONValue], _ key: String, _ path: String) throws(StoreKitImportError) -> Bool? {
            guard let value = members[key] else { return nil }
            guard case .bool(let flag) = value else {
                throw fail(path + "." + key, "expected true or false, found \(Self.describe(value))")
            }
            return flag
        }

        func integer(_ members: [String: JSONValue], _ key: String, _ path: String) throws(StoreKitImportError)
            -> Int64?
        {
            guard let value = members[key] else { return nil }
            guard case .integer(let number) = value else {
                throw fail(path + "." + key, "expected a whole number, found \(Self.describe(value))")
            }
            return number
        }

        func price(_ members: [String: JSONValue], _ path: String) throws(StoreKitImportError) -> Price {
            let text = try string(members, "displayPrice", path)
            if text.hasPrefix("-") {
                throw fail(path + ".displayPrice", "expected a price of 0 or more, found '\(text)'")
            }
            guard let price = Price(decimal: text) else {
                throw fail(path + ".displayPrice", "expected a decimal price such as \"9.99\", found '\(text)'")
            }
            return price
        }

        mutating func read(_ root: JSONValue) throws(StoreKitImportError) -> StoreKitConfiguration {
            let top = try object(root, "$")
            var formatVersion: String?
            if let version = top["version"], case .object(let v) = version, let major = v["major"]?.integerValue {
                formatVersion = "\(major).\(v["minor"]?.integerValue ?? 0)"
            }
            // Settings first: the storefront decides the currency of every price.
            var settings: [String: JSONValue] = [:]
            if let value = top["settings"], value != .null { settings = try object(value, "$.settings") }
            var storefront: Storefront?
            var currency = "USD"
            if let code = try optionalString(settings, "_storefront", "$.settings") {
                guard let known = Storefronts.storefront(countryCode: code),
                    let money = Storefronts.currency(countryCode: code)
                else {
                    throw fail(
                        "$.settings._storefront",
                        "unknown storefront '\(code)'; expected an ISO 3166-1 alpha-3 code such as USA (known: \(Storefronts.knownCountryCodes.joined(separator: ", ")))"
                    )
                }
                storefront = known
                currency = money
            }
            let grace = try bool(settings, "_billingGracePeriodEnabled", "$.settings")
            var other: [StoreKitSetting] = []
            for key in settings.keys.sorted() where key != "_storefront" && key != "_billingGracePeriodEnabled" {
                other.append(StoreKitSetting(key: key, value: Self.display(settings[key]!)))
            }

            var products: [Product] = []
            for (index, item) in try array(top, "products", "$").enumerated() {
                products.append(
                    try oneTime(
                        item, "$.products[\(index)]", currency: currency, allowed: ["Consumable", "NonConsumable"]))
            }
            for (index, item) in try array(top, "nonRenewingSubscriptions", "$").enumerated() {
                products.append(
                    try oneTime(
                        item, "$.nonRenewingSubscriptions[\(index)]", currency: currency,
                        allowed: ["NonRenewingSubscription"]))
            }
            var groups: [StoreKitSubscriptionGroup] = []
            for (g, groupValue) in try array(top, "subscriptionGroups", "$").enumerated() {
                let path = "$.subscriptionGroups[\(g)]"
                let group = try object(groupValue, path)
                let id = try string(group, "id", path)
                let name = try optionalString(group, "name", path) ?? id
                var ids: [String] = []
                for (s, subscriptionValue) in try array(group, "subscriptions", path).enumerated() {
                    let product = try subscription(
                        subscriptionValue, "\(path).subscriptions[\(s)]", groupId: id, currency: currency)
                    ids.append(product.id)
                    products.append(product)
                }
                groups.append(StoreKitSubscriptionGroup(id: id, name: name, productIds: ids))
            }
            // Rule commitment-storefronts: a file whose storefront does not sell the monthly plan (USA, also when
            // `_storefront` is absent, or SGP) imports it all the same, and says so.
            let code = storefront?.countryCode ?? "USA"
            if CommitmentPlan.unavailableStorefronts.contains(code) {
                for product in products where product.monthlyCommitment != nil {
                    notes.append(
                        "\(product.id): the monthly plan with a 12-month commitment is not sold in the file's storefront "
                            + "\(code) (rule commitment-storefronts); a customer in another storefront buys it")
                }
            }
            return StoreKitConfiguration(
                file: file, products: products, groups: groups, storefront: storefront, currency: currency,
                billingGracePeriodEnabled: grace, otherSettings: other, formatVersion: formatVersion, notes: notes)
        }

        mutating func register(_ id: String, _ path: String) throws(StoreKitImportError) {
            if let first = seen[id] {
                throw fail(path + ".productID", "product id '\(id)' is defined twice; first at \(first)")
            }
            seen[id] = path
        }

        mutating func oneTime(_ value: JSONValue, _ path: String, currency: String, allowed: [String])
            throws(StoreKitImportError)
            -> Product
        {
            let members = try object(value, path)
            let id = try string(members, "productID", path)
            if id.isEmpty { throw fail(path + ".productID", "expected a product id, found an empty string") }
            try register(id, path)
            let typeText = try string(members, "type", path)
            guard allowed.contains(typeText) else {
                throw fail(
                    path + ".type",
                    "expected \(allowed.map { "\"\($0)\"" }.joined(separator: " or ")), found '\(typeText)'")
            }
            let type: ProductType =
                typeText == "Consumable" ? .consumable : typeText == "NonConsumable" ? .nonConsumable : .nonRenewing
            var shareable = try bool(members, "familyShareable", path) ?? false
            if shareable && !FamilyRules.canBeShared(type) {
                notes.append(
                    "\(id): familyShareable is true in the file, but a \(type.rawValue) product cannot be shared (imported as not shareable)"
                )
                shareable = false
            }
            if type == .nonRenewing {
                notes.append(
                    "\(id): non-renewing subscriptions have no duration in .storekit files; give one in the scenario (`duration`) before purchasing it"
                )
            }
            return Product(
                id: id, type: type, referenceName: try optionalString(members, "referenceName", path),
                price: try price(members, path), currency: currency, familyShareable: shareable)
        }

        mutating func subscription(_ value: JSONValue, _ path: String, groupId: String, currency: String)
            throws(StoreKitImportError)
            -> Product
        {
            let members = try object(value, path)
            let id = try string(members, "productID", path)
            if id.isEmpty { throw fail(path + ".productID", "expected a product id, found an empty string") }
            try register(id, path)
            let typeText = try string(members, "type", path)
            guard typeText == "RecurringSubscription" else {
                throw fail(path + ".type", "expected \"RecurringSubscription\", found '\(typeText)'")
            }
            let periodText = try string(members, "recurringSubscriptionPeriod", path)
            guard let period = SubscriptionPeriod(rawValue: periodText) else {
                throw fail(
                    path + ".recurringSubscriptionPeriod",
                    "expected one of P1W, P1M, P2M, P3M, P6M, P1Y, found '\(periodText)'")
            }
            if let declared = try optionalString(members, "subscriptionGroupID", path), declared != groupId {
                notes.append(
                    "\(id): subscriptionGroupID '\(declared)' differs from its group's id '\(groupId)'; the enclosing group is used"
                )
            }
            let level = try integer(members, "groupNumber", path) ?? 1
            if level < 1 { throw fail(path + ".groupNumber", "expected a level of 1 or more, found \(level)") }
            let unknown = members.keys.filter { !Self.subscriptionKeys.contains($0) }.sorted()
            if !unknown.isEmpty {
                notes.append("\(id): keys this importer does not know, ignored: \(unknown.joined(separator: ", "))")
            }
            var product = Product(
                id: id, type: .autoRenewable, referenceName: try optionalString(members, "referenceName", path),
                group: groupId,
                level: Int(level), period: period, price: try price(members, path), currency: currency,
                familyShareable: try bool(members, "familyShareable", path) ?? false)
            // The plans first: an offer's `billingPlanType` is read against them.
            try importBillingPlans(members, path, into: &product)
            let plans = product.monthlyCommitment != nil
            product.introOffers = try introductoryOffers(members, path, productId: id, plans: plans)
            product.offers = try redeemableOffers(members, path, productId: id, plans: plans)
            return product
        }

        /// §6.1: `introductoryOffer` (format ≤ 4.0), or (5.0) one item of `introductoryOffers` per billing plan. Each
        /// plan's becomes an introductory offer for that plan (rules offer-for-its-plan, intro-offer-per-plan); when the
        /// up-front plan's and the monthly plan's have the same terms they become one offer for both plans (no
        /// `plan`), as the simulator read them before offers had plans. A second item for the same plan is left out
        /// with a note.
        mutating func introductoryOffers(
            _ members: [String: JSONValue], _ path: String, productId: String, plans: Bool
        ) throws(StoreKitImportError) -> [IntroductoryOffer] {
            if let single = members["introductoryOffer"], single != .null {
                return try offer(single, path + ".introductoryOffer", productId: productId, plans: plans).map { [$0] }
                    ?? []
            }
            var upfront: IntroductoryOffer?
            var monthly: IntroductoryOffer?
            for (index, item) in try array(members, "introductoryOffers", path).enumerated() {
                guard
                    let terms = try offer(
                        item, path + ".introductoryOffers[\(index)]", productId: productId, plans: plans)
                else { continue }
                let taken = terms.plan == .monthly ? monthly != nil : upfront != nil
                if taken {
                    notes.append(
                        "\(productId): introductoryOffers[\(index)] not imported: a second introductory offer for the "
                            + "\(terms.plan == .monthly ? "MONTHLY" : "BILLED_UPFRONT") billing plan (rule "
                            + "intro-offer-per-plan)")
                } else if terms.plan == .monthly {
                    monthly = terms
                } else {
                    upfront = terms
                }
            }
            guard let monthly else { return upfront.map { [$0] } ?? [] }
            guard var upfront else { return [monthly] }
            var sameTerms = monthly
            sameTerms.plan = upfront.plan
            if sameTerms == upfront {
                upfront.plan = nil
                return [upfront]
            }
            return [upfront, monthly]
        }

        /// The offer keys of §6.0-§6.4 (every offer kind's); any other is reported in ``notes`` and ignored, as a
        /// subscription's (§10.3: a newer Xcode may add keys).
        static let offerKeys: Set<String> = [
            "paymentMode", "subscriptionPeriod", "numberOfPeriods", "displayPrice", "internalID", "billingPlanType",
            "offerID", "referenceName", "eligibility", "isStackable",
        ]

        /// The subscription keys of §5.2 (reference `storekit-config-format.md`); any other is reported in ``notes``
        /// and ignored (§10.3: a newer Xcode may add keys).
        static let subscriptionKeys: Set<String> = [
            "productID", "type", "subscriptionGroupID", "recurringSubscriptionPeriod", "groupNumber", "displayPrice",
            "familyShareable", "internalID", "referenceName", "localizations", "introductoryOffer",
            "introductoryOffers", "adHocOffers", "codeOffers", "winbackOffers", "billingPlans", "promotionalImageID",
        ]

        /// §6.5 `billingPlans` (format 5.0; Xcode 26.5, reference Appendix E.3): a `MONTHLY` plan whose `isEnabled` is
        /// not false becomes the product's `monthlyCommitment` with its `displayPrice` as the monthly price. A plan
        /// the simulator cannot take (another type, a product that is not one-year, a price outside Apple's range) is
        /// reported in ``notes`` and the import goes on; so are a plan's unknown keys.
        mutating func importBillingPlans(
            _ members: [String: JSONValue], _ path: String, into product: inout Product
        ) throws(StoreKitImportError) {
            let known: Set<String> = [
                "billingPlanType", "commitmentDisplayPrice", "displayPrice", "internalID", "isEnabled",
            ]
            for (index, value) in try array(members, "billingPlans", path).enumerated() {
                let planPath = path + ".billingPlans[\(index)]"
                let plan = try object(value, planPath)
                let unknown = plan.keys.filter { !known.contains($0) }.sorted()
                if !unknown.isEmpty {
                    notes.append(
                        "\(product.id): billing plan keys this importer does not know, ignored: "
                            + unknown.joined(separator: ", "))
                }
                let type = try string(plan, "billingPlanType", planPath)
                let enabled = try bool(plan, "isEnabled", planPath) ?? true
                if type == "BILLED_UPFRONT" { continue }
                if !enabled {
                    notes.append("\(product.id): \(type) billing plan not imported: its isEnabled is false")
                    continue
                }
                guard type == "MONTHLY" else {
                    notes.append("\(product.id): billing plan '\(type)' not imported (known: BILLED_UPFRONT, MONTHLY)")
                    continue
                }
                let commitment = CommitmentPlan(monthlyPrice: try price(plan, planPath))
                if let problem = CommitmentPlan.problem(with: commitment, of: product) {
                    notes.append("\(product.id): MONTHLY billing plan not imported: \(problem)")
                    continue
                }
                product.monthlyCommitment = commitment
            }
        }

        /// §6.2–§6.4: promotional offers (`adHocOffers`, id `offerID`), offer codes (`codeOffers`, which carry no
        /// offer id: the `referenceName` is used, else `internalID` [assumed]) and win-back offers (`winbackOffers`,
        /// read leniently: `offerID`, else `referenceName`, else `internalID`), with the common offer fields of §6.0.
        /// An offer without a usable id, with a mode the importer does not know, or whose id repeats one of the
        /// product's offers, is dropped with a note.
        mutating func redeemableOffers(
            _ members: [String: JSONValue], _ path: String, productId: String, plans: Bool
        ) throws(StoreKitImportError) -> [SubscriptionOffer] {
            var result: [SubscriptionOffer] = []
            let kinds: [(key: String, type: OfferType, idKeys: [String], noun: String)] = [
                ("adHocOffers", .promotional, ["offerID", "referenceName", "internalID"], "promotional offer"),
                ("codeOffers", .offerCode, ["referenceName", "internalID"], "offer code"),
                ("winbackOffers", .winBack, ["offerID", "referenceName", "internalID"], "win-back offer"),
            ]
            for kind in kinds {
                for (index, item) in try array(members, kind.key, path).enumerated() {
                    let itemPath = path + ".\(kind.key)[\(index)]"
                    let fields = try object(item, itemPath)
                    var offerId: String?
                    for key in kind.idKeys {
                        if let text = try optionalString(fields, key, itemPath), !text.isEmpty {
                            offerId = text
                            break
                        }
                    }
                    guard let offerId else {
                        notes.append("\(productId): \(kind.noun) without an offerID or referenceName not imported")
                        continue
                    }
                    guard var terms = try offer(item, itemPath, productId: productId, noun: kind.noun, plans: plans)
                    else { continue }
                    if result.contains(where: { $0.identifier == offerId }) {
                        notes.append("\(productId): a second offer with id '\(offerId)' not imported")
                        continue
                    }
                    terms.type = kind.type
                    terms.identifier = offerId
                    result.append(terms)
                }
            }
            return result
        }

        /// §6.0, §10.3 rules 5 and 6: `none` is no offer; an unknown mode or a paid offer without a price drops the
        /// offer with a note and keeps the product.
        ///
        /// §6.0 `billingPlanType` (format 5.0): the billing plan the offer is configured for (rule offer-for-its-plan).
        /// Read only when the product has a monthly plan (`plans`); otherwise every offer is the up-front plan's and
        /// is imported without a plan, as before format 5.0. A `MONTHLY` offer of a product whose monthly plan was
        /// not imported, or an unknown plan type, drops the offer with a note.
        mutating func offer(
            _ value: JSONValue, _ path: String, productId: String, noun: String = "introductory offer", plans: Bool
        ) throws(StoreKitImportError) -> IntroductoryOffer? {
            let members = try object(value, path)
            let unknown = members.keys.filter { !Self.offerKeys.contains($0) }.sorted()
            if !unknown.isEmpty {
                notes.append(
                    "\(productId): \(noun) keys this importer does not know, ignored: \(unknown.joined(separator: ", "))"
                )
            }
            var plan: BillingPlan?
            switch try optionalString(members, "billingPlanType", path) {
            case nil, "BILLED_UPFRONT": plan = plans ? .upfront : nil
            case "MONTHLY":
                guard plans else {
                    notes.append(
                        "\(productId): \(noun) for the MONTHLY billing plan not imported: the product has no monthly "
                            + "plan the simulator took")
                    return nil
                }
                plan = .monthly
            case let other?:
                notes.append(
                    "\(productId): \(noun) for billing plan '\(other)' not imported (known: BILLED_UPFRONT, MONTHLY)")
                return nil
            }
            let mode = try string(members, "paymentMode", path)
            let parsedMode: IntroductoryOfferMode
            switch mode {
            case "none": return nil
            case "free": parsedMode = .freeTrial
            case "payAsYouGo": parsedMode = .payAsYouGo
            case "payUpFront": parsedMode = .payUpFront
            default:
                notes.append("\(productId): \(noun) with unknown paymentMode '\(mode)' not imported")
                return nil
            }
            let periodText = try string(members, "subscriptionPeriod", path)
            guard let duration = CalendarDurationSyntax.parse(periodText), periodText.hasPrefix("P") else {
                throw fail(
                    path + ".subscriptionPeriod",
                    "expected an ISO 8601 period such as P1W or P1M, found '\(periodText)'")
            }
            let count = try integer(members, "numberOfPeriods", path) ?? 1
            if count < 1 { throw fail(path + ".numberOfPeriods", "expected 1 or more, found \(count)") }
            var offerPrice = Price.free
            if parsedMode != .freeTrial {
                guard members["displayPrice"] != nil else {
                    notes.append("\(productId): \(mode) \(noun) without a displayPrice not imported")
                    return nil
                }
                offerPrice = try price(members, path)
            }
            var terms = IntroductoryOffer(
                mode: parsedMode, period: duration, periods: parsedMode == .payAsYouGo ? Int(count) : 1,
                price: offerPrice)
            terms.plan = plan
            return terms
        }

        static func display(_ value: JSONValue) -> String {
            switch value {
            case .array(let items): return "\(items.count) item\(items.count == 1 ? "" : "s")"
            case .string(let text): return text
            default: return CanonicalJSON.string(value)
            }
        }
    }
}
