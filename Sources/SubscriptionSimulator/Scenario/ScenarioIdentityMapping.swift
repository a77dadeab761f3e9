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

extension ScenarioAction {
    /// The action with its product (if any) renamed.
    public func mappingProduct(_ rename: (String) -> String) -> ScenarioAction {
        switch self {
        case .purchase(let c, let p, let token, let plan):
            return .purchase(customer: c, product: rename(p), appAccountToken: token, plan: plan)
        case .cancel(let c, let p): return .cancel(customer: c, product: rename(p))
        case .resume(let c, let p): return .resume(customer: c, product: rename(p))
        case .stopSharing(let c, let p): return .stopSharing(customer: c, product: rename(p))
        case .startSharing(let c, let p): return .startSharing(customer: c, product: rename(p))
        case .refund(let c, let p, let reason): return .refund(customer: c, product: rename(p), reason: reason)
        case .failBilling, .fixBilling, .joinFamily, .leaveFamily, .restorePurchases, .shareWithFamily, .openApp,
            .requestTestNotification, .rescindConsent:
            return self
        case .viewCancellation(let c, let p, let locale):
            return .viewCancellation(customer: c, product: p.map(rename), locale: locale)
        case .makeFamilyShareable(let p): return .makeFamilyShareable(product: rename(p))
        case .removeFromSale(let p): return .removeFromSale(product: rename(p))
        case .restoreToSale(let p): return .restoreToSale(product: rename(p))
        case .changePlan(let c, let p, let plan): return .changePlan(customer: c, product: rename(p), plan: plan)
        case .redeemOffer(let c, let p, let offer): return .redeemOffer(customer: c, product: rename(p), offer: offer)
        case .raisePrice(let p, let price, let storefront, let consent):
            return .raisePrice(product: rename(p), price: price, storefront: storefront, consentRequired: consent)
        case .raiseMonthlyPrice(let p, let price, let storefront, let consent):
            return .raiseMonthlyPrice(
                product: rename(p), price: price, storefront: storefront, consentRequired: consent)
        case .schedulePriceIncrease(let p, let price, let storefront, let effective, let consent, let plan):
            return .schedulePriceIncrease(
                product: rename(p), price: price, storefront: storefront, effective: effective,
                consentRequired: consent, plan: plan)
        case .consentToPriceIncrease(let c, let p): return .consentToPriceIncrease(customer: c, product: rename(p))
        case .extendRenewalDate(let c, let p, let days, let reason, let request):
            return .extendRenewalDate(
                customer: c, product: rename(p), days: days, reason: reason, requestIdentifier: request)
        case .refundTransaction(let c, let p, let transaction, let amount, let reason):
            return .refundTransaction(
                customer: c, product: rename(p), transaction: transaction, amount: amount, reason: reason)
        case .requestRefund(let c, let p, let transaction, let reason):
            return .requestRefund(customer: c, product: rename(p), transaction: transaction, reason: reason)
        case .sendConsumptionInformation(let c, let p, let transaction, let consented, let preference):
            return .sendConsumptionInformation(
                customer: c, product: rename(p), transaction: transaction, customerConsented: consented,
                refundPreference: preference)
        case .decideRefund(let c, let p, let transaction, let decision, let reason):
            return .decideRefund(
                customer: c, product: rename(p), transaction: transaction, decision: decision, reason: reason)
        case .reverseRefund(let c, let p, let transaction):
            return .reverseRefund(customer: c, product: rename(p), transaction: transaction)
        case .failRenewalExtension(let c, let p): return .failRenewalExtension(customer: c, product: rename(p))
        case .extendRenewalDatesForAllActiveSubscribers(let p, let days, let reason, let request, let storefronts):
            return .extendRenewalDatesForAllActiveSubscribers(
                product: rename(p), days: days, reason: reason, requestIdentifier: request,
                storefrontCountryCodes: storefronts)
        }
    }
}
