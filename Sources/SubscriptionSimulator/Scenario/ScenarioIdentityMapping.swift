/// A scenario's ids mapped to a backend's own (`--bundle-id`, `--app-apple-id`, `--map-product OLD=NEW` of `run`,
/// `check`, `serve` and `trigger`; docs/check.md, "Checking an existing backend"), so that shipped scenarios run
/// against a backend configured for its app without editing them.
extension Scenario {
    /// The scenario with every product id in `map` (OLD → NEW) replaced: the catalogue, every timeline action,
    /// the expectations (entitled products, status keys, expected field values equal to an old id). Throws when an
    /// old id is not in the catalogue, or a new one is already a product's id (the catalogue's ids stay unique).
    public func mappingProducts(_ map: [String: String]) throws(ScenarioError) -> Scenario {
        let ids = catalog.products.map(\.id)
        func fail(_ message: String) -> ScenarioError {
            var error = ScenarioError(file: file, location: SourceLocation(line: 1, column: 1), message: message)
            error.commandLineOption = "--map-product"
            return error
        }
        for (old, new) in map.sorted(by: { $0.key < $1.key }) {
            guard ids.contains(old) else {
                let hint = Suggestions.closest(to: old, among: ids).map { " (did you mean '\($0)'?)" } ?? ""
                throw fail(
                    "option '--map-product \(old)=\(new)': no product '\(old)' in the scenario\(hint); its products "
                        + "are \(ids.joined(separator: ", "))")
            }
            if ids.contains(new) && map[new] == nil {
                throw fail("option '--map-product \(old)=\(new)': the scenario already has a product '\(new)'")
            }
        }
        let rename = { (id: String) in map[id] ?? id }
        var result = self
        var products = catalog.products
        for index in products.indices { products[index].id = rename(products[index].id) }
        do throws(CatalogError) { result.catalog = try Catalog(products: products) } catch {
            throw fail("option '--map-product': \(error)")
        }
        result.timeline = timeline.map { entry in
            var entry = entry
            entry.action = entry.action.mappingProduct(rename)
            return entry
        }
        result.expectations = expectations.map { expectation in
            switch expectation {
            case .entitled(let at, let products, let location):
                return .entitled(at: at, products: products.mapValues { $0.map(rename) }, location: location)
            case .status(let at, let codes, let location):
                return .status(
                    at: at,
                    codes: codes.mapValues { Dictionary(uniqueKeysWithValues: $0.map { (rename($0.key), $0.value) }) },
                    location: location)
            case .notifications(let customer, let mode, let items, let location):
                return .notifications(
                    customer: customer, mode: mode,
                    items: items.map { item in
                        var item = item
                        item.fields = item.fields.map { field in
                            var field = field
                            field.expected = rename(field.expected)
                            return field
                        }
                        return item
                    }, location: location)
            }
        }
        return result
    }
}
