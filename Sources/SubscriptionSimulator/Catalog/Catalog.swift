/// The products on sale, in the order they were added, with their subscription groups.
public struct Catalog: Hashable, Sendable {
    public private(set) var products: [Product] = []
    private var indexById: [String: Int] = [:]
    /// Group names in order of first appearance; their numeric identifiers derive from this order.
    public private(set) var groups: [String] = []

    /// An empty catalogue.
    public init() {}

    public init(products: [Product]) throws(CatalogError) {
        for product in products { try add(product) }
    }

    public subscript(id: String) -> Product? {
        index(of: id).map { products[$0] }
    }

    /// The product's place in ``products``. The store asks on every event with an id it copied from the product
    /// itself, so in a small catalogue a scan finds it by comparing strings that share storage (one word each)
    /// instead of hashing the whole id.
    func index(of id: String) -> Int? {
        if products.count <= 8 {
            for index in products.indices where products[index].id == id { return index }
            return nil
        }
        return indexById[id]
    }

    /// ``StorefrontPricing/price(of:offer:in:)`` of the product with this id, read in place rather than copied out
    /// (every transaction asks); `nil` when there is no such product or no price there.
    func storefrontPrice(of id: String, offer: IntroductoryOffer?, in storefront: Storefront) -> (
        price: Price, currency: String
    )? {
        guard let index = index(of: id) else { return nil }
        return storefrontPrice(ofProductAt: index, offer: offer, in: storefront)
    }

    /// The same for the product at `index` in ``products``, read field by field: passing the product itself would
    /// copy it (retaining each of its strings, arrays and dictionaries).
    func storefrontPrice(ofProductAt index: Int, offer: IntroductoryOffer?, in storefront: Storefront) -> (
        price: Price, currency: String
    )? {
        StorefrontPricing.price(
            base: products[index].price, currency: products[index].currency, prices: products[index].prices,
            offer: offer, in: storefront)
    }

    /// The same catalogue in storage of its own: the products, their ids, groups and prices and the index by id
    /// copied (``String/inOwnStorage``), so that the parts of a run in parts do not share the strings they copy into
    /// every transaction and renewal record.
    package func inOwnStorage() -> Catalog {
        var copy = Catalog()
        copy.products = products.map { $0.inOwnStorage() }
        for index in copy.products.indices { copy.indexById[copy.products[index].id] = index }
        copy.groups = groups.map(\.inOwnStorage)
        return copy
    }

    /// Adds a product, checking the catalogue's rules.
    public mutating func add(_ product: Product) throws(CatalogError) {
        guard indexById[product.id] == nil else { throw .duplicateProduct(product.id) }
        try Self.validate(product)
        if let group = product.group, !groups.contains(group) { groups.append(group) }
        indexById[product.id] = products.count
        products.append(product)
    }

    /// Replaces a product with the same id (used by scenario overrides and `makeFamilyShareable`).
    public mutating func replace(_ product: Product) throws(CatalogError) {
        guard let index = indexById[product.id] else { throw .unknownProduct(product.id) }
        try Self.validate(product)
        if let group = product.group, !groups.contains(group) { groups.append(group) }
        products[index] = product
    }

    /// Apple's `subscriptionGroupIdentifier` is a numeric string. Scenario files name groups with text, so the
    /// simulator derives a stable number from the group's order of appearance: the first group is `21000001`.
    /// A group already named by digits (as in `.storekit` files) keeps its own identifier.
    public func subscriptionGroupIdentifier(for group: String) -> String {
        if !group.isEmpty, group.allSatisfy({ $0.isASCII && $0.isNumber }) { return group }
        let index = groups.firstIndex(of: group) ?? groups.count
        return String(21_000_001 + index)
    }

    static func validate(_ product: Product) throws(CatalogError) {
        if product.id.isEmpty { throw .invalid(product.id, "a product id must not be empty") }
        if product.price.milliunits < 0 { throw .invalid(product.id, "a price must not be negative") }
        try StorefrontPricing.validate(product)
        if product.introOffers.contains(where: { $0.mode == .oneTime }) {
            throw .invalid(product.id, "an introductory offer is freeTrial, payAsYouGo or payUpFront, not oneTime")
        }
        if let problem = OfferRules.introOfferProblem(product) { throw .invalid(product.id, problem) }
        for offer in product.offers {
            if let problem = OfferRules.problem(with: offer, of: product) { throw .invalid(product.id, problem) }
        }
        if let plan = product.monthlyCommitment, let problem = CommitmentPlan.problem(with: plan, of: product) {
            throw .invalid(product.id, problem)
        }
        switch product.type {
        case .autoRenewable:
            if product.group == nil { throw .invalid(product.id, "an auto-renewable subscription needs a group") }
            if product.period == nil { throw .invalid(product.id, "an auto-renewable subscription needs a period") }
            if product.level < 1 { throw .invalid(product.id, "a level is 1 (highest) or more") }
        case .consumable:
            if product.familyShareable {
                throw .invalid(product.id, "a consumable cannot be family shareable (reference §4.1)")
            }
        case .nonRenewing:
            if product.familyShareable {
                throw .invalid(product.id, "a non-renewing subscription cannot be family shareable (reference §4.1)")
            }
        case .nonConsumable:
            break
        }
        if product.type != .autoRenewable {
            if !product.introOffers.isEmpty {
                throw .invalid(product.id, "only auto-renewable subscriptions have introductory offers")
            }
            if product.period != nil {
                throw .invalid(product.id, "only auto-renewable subscriptions have a renewal period")
            }
        }
    }
}

public enum CatalogError: Error, Hashable, Sendable, CustomStringConvertible {
    case duplicateProduct(String)
    case unknownProduct(String)
    case invalid(String, String)

    public var description: String {
        switch self {
        case .duplicateProduct(let id): return "product '\(id)' is listed twice"
        case .unknownProduct(let id): return "no product '\(id)' in the catalogue"
        case .invalid(let id, let why): return "product '\(id)': \(why)"
        }
    }
}
