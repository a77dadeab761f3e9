// The scenario actions, one entry each (``ScenarioActionSpec``): the one place an action's name, arguments, decoding,
// YAML form, rule in the store, renaming and `check` draws are written, beside its case of ``ScenarioAction``.
// docs/scenario-format.md's action rows are checked against it.

/// The timeline actions. Later versions add actions; they never change these.
public enum ScenarioAction: Hashable, Sendable {
    /// `appAccountToken`: the lowercase UUID the app supplies with the purchase, if any.
    /// `plan`: the billing plan bought (`monthly` needs the product's `monthlyCommitment`, Catalog/CommitmentPlan.swift).
    case purchase(customer: String, product: String, appAccountToken: String? = nil, plan: BillingPlan = .upfront)
    case cancel(customer: String, product: String)
    case resume(customer: String, product: String)
    case stopSharing(customer: String, product: String)
    case startSharing(customer: String, product: String)
    case refund(customer: String, product: String, reason: Int32)
    case failBilling(customer: String)
    case fixBilling(customer: String)
    case joinFamily(customer: String)
    case leaveFamily(customer: String)
    case restorePurchases(customer: String)
    case shareWithFamily(customer: String, enabled: Bool)
    case makeFamilyShareable(product: String)
    case removeFromSale(product: String)
    case restoreToSale(product: String)
    /// The customer moves to another product of the group, or back to the current one (reference §5.10); `plan`: the
    /// billing plan chosen (`nil`: the current product's plan, another product's up-front plan; Appendix E G3, G4).
    case changePlan(customer: String, product: String, plan: BillingPlan? = nil)
    // Offers the customer redeems, and price increases with the customer's consent (reference §5.11, §5.12).
    case redeemOffer(customer: String, product: String, offer: String)
    /// `storefront`: an ISO 3166-1 alpha-3 code, or `nil` for the product's own currency.
    case raisePrice(product: String, price: Price, storefront: String?, consentRequired: Bool)
    /// `raisePrice` with `plan: monthly`: the monthly price of the product's commitment plan (rule
    /// commitment-price-increase-at-commitment-renewal).
    case raiseMonthlyPrice(product: String, price: Price, storefront: String?, consentRequired: Bool)
    /// `raisePrice` with a start date `effective` (at or after the action's instant, rule price-increase-notice-lead);
    /// `consentRequired` `nil` when consent follows Apple's rules (`Lifecycle/PriceIncreaseRules.swift`); `plan`
    /// `.monthly`: the commitment plan's monthly price (rule commitment-price-increase-with-start-date).
    case schedulePriceIncrease(
        product: String, price: Price, storefront: String?, effective: Instant, consentRequired: Bool?,
        plan: BillingPlan = .upfront)
    case consentToPriceIncrease(customer: String, product: String)
    // Renewal-date extensions, refunds of any transaction and refund requests (reference §5.13, §5.14), and the
    // customer opening the app (the device's billing-issue message).
    /// `transaction`: the customer's n-th transaction of the product, from 1 in purchase order; `nil` the latest.
    case extendRenewalDate(
        customer: String, product: String, days: Int, reason: ExtendReasonCode, requestIdentifier: String? = nil)
    case refundTransaction(customer: String, product: String, transaction: Int?, amount: RefundAmount, reason: Int32)
    case requestRefund(customer: String, product: String, transaction: Int?, reason: ConsumptionRequestReason)
    case sendConsumptionInformation(
        customer: String, product: String, transaction: Int?, customerConsented: Bool,
        refundPreference: RefundPreference?)
    case decideRefund(customer: String, product: String, transaction: Int?, decision: RefundDecision, reason: Int32)
    case reverseRefund(customer: String, product: String, transaction: Int?)
    case openApp(customer: String)
    /// A parent or guardian withdraws consent for the customer's account (Declared Age Range): `RESCIND_CONSENT`
    /// with `appData` to that customer (rule rescind-consent, `Store/EmissionLog+Sending.swift`).
    case rescindConsent(customer: String)
    /// [assumed] The next mass extension fails for this customer's subscription (`RENEWAL_EXTENSION` / `FAILURE`)
    /// if it is eligible then: Apple documents the subtype, not a cause (rule mass-extension-extends-eligible-only).
    case failRenewalExtension(customer: String, product: String)
    /// The customer opens a subscription's cancellation page: Apple's realtime Retention Messaging request
    /// (`Store/SimulatedStore+CancellationViews.swift`); `product` nil: the customer's first renewing subscription.
    case viewCancellation(customer: String, product: String?, locale: String)
    // Actions about the app, not one customer (rule notification-about-the-app).
    /// Request a Test Notification: a `TEST` notification about the app (reference §6.3).
    case requestTestNotification
    /// Extend Subscription Renewal Dates for All Active Subscribers (reference §5.13): `RENEWAL_EXTENDED` or
    /// `RENEWAL_EXTENSION` / `FAILURE` per purchaser, then `RENEWAL_EXTENSION` / `SUMMARY` about the app.
    case extendRenewalDatesForAllActiveSubscribers(
        product: String, days: Int, reason: ExtendReasonCode, requestIdentifier: String,
        storefrontCountryCodes: [String])

    /// The action's key in scenario files (``ScenarioActionSpec``).
    public var name: String { spec.name }

    /// The customer the action is about; nil for an action of the developer or about the app.

    public var customer: String? {
        switch self {
        case .purchase(let c, _, _, _), .cancel(let c, _), .resume(let c, _), .stopSharing(let c, _),
            .startSharing(let c, _), .refund(let c, _, _), .failBilling(let c), .fixBilling(let c),
            .joinFamily(let c), .leaveFamily(let c), .restorePurchases(let c), .shareWithFamily(let c, _),
            .changePlan(let c, _, _):
            return c
        case .makeFamilyShareable, .removeFromSale, .restoreToSale:
            return nil
        case .redeemOffer(let c, _, _), .consentToPriceIncrease(let c, _):
            return c
        case .raisePrice, .schedulePriceIncrease, .raiseMonthlyPrice:
            return nil
        case .extendRenewalDate(let c, _, _, _, _), .refundTransaction(let c, _, _, _, _),
            .requestRefund(let c, _, _, _),
            .sendConsumptionInformation(let c, _, _, _, _), .decideRefund(let c, _, _, _, _),
            .reverseRefund(let c, _, _), .openApp(let c), .failRenewalExtension(let c, _),
            .rescindConsent(let c), .viewCancellation(let c, _, _):
            return c
        case .requestTestNotification, .extendRenewalDatesForAllActiveSubscribers:
            return nil
        }
    }

    /// Every action name, for "did you mean" suggestions and docs (``ScenarioActionSpec/all``).
    public static let names = ScenarioActionSpec.all.map(\.name)
}

extension ScenarioActionSpec {
    /// Every action, in the order scenario files' errors list them.
    package static let all: [ScenarioActionSpec] = [
        .purchase, .cancel, .resume, .stopSharing, .startSharing, .refund, .failBilling, .fixBilling, .joinFamily,
        .leaveFamily, .restorePurchases, .shareWithFamily, .makeFamilyShareable, .removeFromSale, .restoreToSale,
        .changePlan, .redeemOffer, .raisePrice, .consentToPriceIncrease, .extendRenewalDate, .requestRefund,
        .sendConsumptionInformation, .decideRefund, .reverseRefund, .openApp, .requestTestNotification,
        .extendRenewalDatesForAllActiveSubscribers, .failRenewalExtension, .rescindConsent, .viewCancellation,
        .refundTransaction,
    ]
}

extension ScenarioAction {
    /// The action's declaration (``ScenarioActionSpec``).
    package var spec: ScenarioActionSpec {
        switch self {
        case .purchase: return .purchase
        case .cancel: return .cancel
        case .resume: return .resume
        case .stopSharing: return .stopSharing
        case .startSharing: return .startSharing
        case .refund: return .refund
        case .refundTransaction: return .refundTransaction
        case .failBilling: return .failBilling
        case .fixBilling: return .fixBilling
        case .joinFamily: return .joinFamily
        case .leaveFamily: return .leaveFamily
        case .restorePurchases: return .restorePurchases
        case .shareWithFamily: return .shareWithFamily
        case .makeFamilyShareable: return .makeFamilyShareable
        case .removeFromSale: return .removeFromSale
        case .restoreToSale: return .restoreToSale
        case .changePlan: return .changePlan
        case .redeemOffer: return .redeemOffer
        case .raisePrice, .schedulePriceIncrease, .raiseMonthlyPrice: return .raisePrice
        case .consentToPriceIncrease: return .consentToPriceIncrease
        case .extendRenewalDate: return .extendRenewalDate
        case .requestRefund: return .requestRefund
        case .sendConsumptionInformation: return .sendConsumptionInformation
        case .decideRefund: return .decideRefund
        case .reverseRefund: return .reverseRefund
        case .openApp: return .openApp
        case .rescindConsent: return .rescindConsent
        case .failRenewalExtension: return .failRenewalExtension
        case .requestTestNotification: return .requestTestNotification
        case .extendRenewalDatesForAllActiveSubscribers: return .extendRenewalDatesForAllActiveSubscribers
        case .viewCancellation: return .viewCancellation
        }
    }

    /// The action with its customer (if any) renamed (``ScenarioActionSpec/renamed``).
    public func renamingCustomer(_ rename: (String) -> String) -> ScenarioAction { spec.renamed(self, rename, { $0 }) }

    /// The action with its product (if any) renamed (``ScenarioActionSpec/renamed``).
    public func mappingProduct(_ rename: (String) -> String) -> ScenarioAction { spec.renamed(self, { $0 }, rename) }
}

// MARK: - Purchases and auto-renew

extension ScenarioActionSpec {
    static let purchase = ScenarioActionSpec(
        "purchase",
        [
            .customer, .product, ActionArgument("appAccountToken", .text, required: false, "a lowercase UUID"),
            ActionArgument("plan", .plan, required: false, "`upfront` or `monthly`"),
        ],
        decode: { i throws(ScenarioError) in
            var token: String?
            if let node = i.optional("appAccountToken") {
                let value = try i.decoder.text(node, "appAccountToken")
                if let problem = AppAccountToken.problem(with: value) {
                    throw i.fail(node, "appAccountToken '\(value)': \(problem) (rule app-account-token-is-a-uuid)")
                }
                token = value
            }
            let product = try i.product()
            let plan = try i.decoder.billingPlan(i.optional("plan"), of: product, i.catalog) ?? .upfront
            return .purchase(customer: try i.customer(), product: product, appAccountToken: token, plan: plan)
        },
        write: { action in
            guard case .purchase(let customer, let product, let token, let plan) = action else { return [] }
            return ActionYAML.customerProduct(customer, product)
                + (token.map { ["appAccountToken: \(ActionYAML.scalar($0))"] } ?? [])
                + (plan == .upfront ? [] : ["plan: \(plan.rawValue)"])
        },
        apply: { action, store throws(StoreError) in
            guard case .purchase(let customer, let product, let token, let plan) = action else { return }
            try store.purchase(product, by: customer, appAccountToken: token, plan: plan)
        },
        renamed: { action, customer, product in
            guard case .purchase(let c, let p, let token, let plan) = action else { return action }
            return .purchase(customer: customer(c), product: product(p), appAccountToken: token, plan: plan)
        },
        sends: ["SUBSCRIBED", "ONE_TIME_CHARGE"],
        draws: [
            CheckDraw(rank: 0, weight: 8, when: { !$0.purchasable.isEmpty }) { d in
                // Half of the purchases carry an app account token, a fresh UUID (never one of an earlier case).
                let token = d.chance(0.5) ? d.uuid() : nil
                let product = d.pick(d.pools.purchasable)
                // A product with the commitment plan is bought on it half of the time (the store refuses it where
                // the plan is not sold, rule commitment-storefronts); other products draw nothing more, so their
                // cases stay as they were.
                let plan: BillingPlan = d.pools.withCommitment.contains(product) && d.chance(0.5) ? .monthly : .upfront
                return .purchase(customer: d.customer, product: product, appAccountToken: token, plan: plan)
            }
        ],
        // Shrinking: without the app account token, then on the up-front plan (no `plan:`).
        followUp: CheckFollowUp(simpler: { action in
            guard case .purchase(let customer, let product, let token, let plan) = action else { return [] }
            var simpler: [ScenarioAction] = []
            if token != nil { simpler.append(.purchase(customer: customer, product: product, plan: plan)) }
            if plan != .upfront {
                simpler.append(.purchase(customer: customer, product: product, appAccountToken: token, plan: .upfront))
            }
            return simpler
        }))

    static let cancel = customerProduct(
        "cancel", { .cancel(customer: $0, product: $1) },
        { if case .cancel(let c, let p) = $0 { (c, p) } else { nil } },
        apply: { store, c, p throws(StoreError) in try store.cancel(p, by: c) },
        sends: ["DID_CHANGE_RENEWAL_STATUS"],
        draw: CheckDraw(rank: 1, weight: 4, when: \.hasSubscriptions) { d in
            .cancel(customer: d.customer, product: d.subscription())
        })

    static let resume = customerProduct(
        "resume", { .resume(customer: $0, product: $1) },
        { if case .resume(let c, let p) = $0 { (c, p) } else { nil } },
        apply: { store, c, p throws(StoreError) in try store.resume(p, by: c) },
        sends: ["DID_CHANGE_RENEWAL_STATUS"],
        draw: CheckDraw(rank: 2, weight: 2, when: \.hasSubscriptions) { d in
            .resume(customer: d.customer, product: d.subscription())
        })

    static let failBilling = customerOnly(
        "failBilling", { .failBilling(customer: $0) }, { if case .failBilling(let c) = $0 { c } else { nil } },
        apply: { store, c throws(StoreError) in store.failBilling(for: c) },
        draw: CheckDraw(rank: 3, weight: 4, when: \.hasSubscriptions) { d in .failBilling(customer: d.customer) })

    static let fixBilling = customerOnly(
        "fixBilling", { .fixBilling(customer: $0) }, { if case .fixBilling(let c) = $0 { c } else { nil } },
        apply: { store, c throws(StoreError) in try store.fixBilling(for: c) },
        draw: CheckDraw(rank: 4, weight: 4, when: \.hasSubscriptions) { d in .fixBilling(customer: d.customer) })

    static let changePlan = ScenarioActionSpec(
        "changePlan", [.customer, .product, ActionArgument("plan", .plan, required: false, "`upfront` or `monthly`")],
        decode: { i throws(ScenarioError) in
            let product = try i.product()
            return .changePlan(
                customer: try i.customer(), product: product,
                plan: try i.decoder.billingPlan(i.optional("plan"), of: product, i.catalog))
        },
        write: { action in
            guard case .changePlan(let c, let p, let plan) = action else { return [] }
            return ActionYAML.customerProduct(c, p) + (plan.map { ["plan: \($0.rawValue)"] } ?? [])
        },
        apply: { action, store throws(StoreError) in
            guard case .changePlan(let customer, let product, let plan) = action else { return }
            try store.changePlan(to: product, by: customer, plan: plan)
        },
        renamed: { action, customer, product in
            guard case .changePlan(let c, let p, let plan) = action else { return action }
            return .changePlan(customer: customer(c), product: product(p), plan: plan)
        },
        sends: ["DID_CHANGE_RENEWAL_PREF"],
        draws: [
            CheckDraw(rank: 12, weight: 3, when: { !$0.planChangeTargets.isEmpty }) { d in
                let product = d.pick(d.pools.planChangeTargets)
                // A product with the commitment plan: no `plan` (the current product's plan, another product's
                // up-front plan), the up-front or the monthly plan, a third of the time each; other products draw
                // nothing more, so their cases stay as they were.
                guard d.pools.withCommitment.contains(product) else {
                    return .changePlan(customer: d.customer, product: product)
                }
                let plans: [BillingPlan?] = [nil, .upfront, .monthly]
                return .changePlan(customer: d.customer, product: product, plan: d.pick(plans))
            }
        ],
        // Shrinking: without its `plan` (the current product's plan, another product's up-front plan).
        followUp: CheckFollowUp(simpler: { action in
            guard case .changePlan(let customer, let product, .some) = action else { return [] }
            return [.changePlan(customer: customer, product: product, plan: nil)]
        }))

    static let openApp = customerOnly(
        "openApp", { .openApp(customer: $0) }, { if case .openApp(let c) = $0 { c } else { nil } },
        apply: { store, c throws(StoreError) in store.openApp(for: c) },
        draw: CheckDraw(rank: 28, weight: 1, when: \.hasSubscriptions) { d in .openApp(customer: d.customer) })

    static let restorePurchases = customerOnly(
        "restorePurchases", { .restorePurchases(customer: $0) },
        { if case .restorePurchases(let c) = $0 { c } else { nil } },
        apply: { store, c throws(StoreError) in try store.restorePurchases(for: c) }, readsHistory: true,
        draw: CheckDraw(rank: 27, weight: 1, when: { _ in true }) { d in .restorePurchases(customer: d.customer) })
}

// MARK: - Family Sharing

extension ScenarioActionSpec {
    static let stopSharing = customerProduct(
        "stopSharing", { .stopSharing(customer: $0, product: $1) },
        { if case .stopSharing(let c, let p) = $0 { (c, p) } else { nil } },
        apply: { store, c, p throws(StoreError) in try store.stopSharing(p, by: c) },
        needsFamily: true, sends: ["REVOKE"],
        draw: CheckDraw(rank: 24, weight: 2, when: \.familyCanShare) { d in
            .stopSharing(customer: d.customer, product: d.pick(d.pools.shareable))
        })

    static let startSharing = customerProduct(
        "startSharing", { .startSharing(customer: $0, product: $1) },
        { if case .startSharing(let c, let p) = $0 { (c, p) } else { nil } },
        apply: { store, c, p throws(StoreError) in try store.startSharing(p, by: c) },
        needsFamily: true, sends: ["SUBSCRIBED"],
        draw: CheckDraw(rank: 25, weight: 4, when: \.familyCanShare) { d in
            .startSharing(customer: d.customer, product: d.pick(d.pools.shareable))
        })

    static let joinFamily = customerOnly(
        "joinFamily", { .joinFamily(customer: $0) }, { if case .joinFamily(let c) = $0 { c } else { nil } },
        apply: { store, c throws(StoreError) in try store.joinFamily(c) },
        needsFamily: true, sends: ["SUBSCRIBED"],
        draw: CheckDraw(rank: 21, weight: 2, when: \.hasFamily) { d in .joinFamily(customer: d.customer) })

    static let leaveFamily = customerOnly(
        "leaveFamily", { .leaveFamily(customer: $0) }, { if case .leaveFamily(let c) = $0 { c } else { nil } },
        apply: { store, c throws(StoreError) in try store.leaveFamily(c) },
        needsFamily: true, sends: ["REVOKE"],
        draw: CheckDraw(rank: 22, weight: 2, when: \.hasFamily) { d in .leaveFamily(customer: d.customer) })

    static let shareWithFamily = ScenarioActionSpec(
        "shareWithFamily", [.customer, ActionArgument("enabled", .bool, "`true`/`false`")],
        decode: { i throws(ScenarioError) in
            .shareWithFamily(
                customer: try i.customer(), enabled: try i.decoder.bool(i.required("enabled"), "enabled"))
        },
        write: { action in
            guard case .shareWithFamily(let c, let enabled) = action else { return [] }
            return ActionYAML.customer(c) + ["enabled: \(enabled)"]
        },
        apply: { action, store throws(StoreError) in
            guard case .shareWithFamily(let customer, let enabled) = action else { return }
            try store.setShareWithFamily(enabled, for: customer)
        },
        renamed: { action, customer, _ in
            guard case .shareWithFamily(let c, let enabled) = action else { return action }
            return .shareWithFamily(customer: customer(c), enabled: enabled)
        },
        needsFamily: true, sends: ["SUBSCRIBED", "REVOKE"],
        draws: [
            CheckDraw(rank: 23, weight: 1, when: \.familyCanShare) { d in
                .shareWithFamily(customer: d.customer, enabled: d.chance(0.5))
            }
        ])

    static let makeFamilyShareable = productOnly(
        "makeFamilyShareable", { .makeFamilyShareable(product: $0) },
        { if case .makeFamilyShareable(let p) = $0 { p } else { nil } },
        apply: { store, p throws(StoreError) in try store.makeFamilyShareable(p) },
        needsFamily: true, sends: ["SUBSCRIBED"],
        draw: CheckDraw(rank: 26, weight: 1, when: \.familyCanMakeShareable) { d in
            .makeFamilyShareable(product: d.pick(d.pools.notShareable))
        })
}

// MARK: - The developer's catalogue: sale, offers, prices

extension ScenarioActionSpec {
    static let removeFromSale = productOnly(
        "removeFromSale", { .removeFromSale(product: $0) }, { if case .removeFromSale(let p) = $0 { p } else { nil } },
        apply: { store, p throws(StoreError) in try store.removeFromSale(p) },
        draw: CheckDraw(rank: 19, weight: 1, when: \.hasSubscriptions) { d in .removeFromSale(product: d.subscription())
        }
    )

    static let restoreToSale = productOnly(
        "restoreToSale", { .restoreToSale(product: $0) }, { if case .restoreToSale(let p) = $0 { p } else { nil } },
        apply: { store, p throws(StoreError) in try store.restoreToSale(p) },
        draw: CheckDraw(rank: 20, weight: 1, when: \.hasSubscriptions) { d in .restoreToSale(product: d.subscription())
        })

    static let redeemOffer = ScenarioActionSpec(
        "redeemOffer", [.customer, .product, ActionArgument("offer", .text, "an `id` of the product's `offers`")],
        decode: { i throws(ScenarioError) in
            let product = try i.product()
            let offerNode = try i.required("offer")
            let offer = try i.decoder.text(offerNode, "offer")
            let known = i.catalog[product]?.offers.compactMap(\.identifier) ?? []
            guard known.contains(offer) else {
                throw i.fail(
                    offerNode,
                    "unknown offer '\(offer)' of '\(product)'"
                        + (known.isEmpty ? ": the product has no `offers`" : i.decoder.hint(offer, known)))
            }
            return .redeemOffer(customer: try i.customer(), product: product, offer: offer)
        },
        write: { action in
            guard case .redeemOffer(let c, let p, let offer) = action else { return [] }
            return ActionYAML.customerProduct(c, p) + ["offer: \(ActionYAML.scalar(offer))"]
        },
        apply: { action, store throws(StoreError) in
            guard case .redeemOffer(let customer, let product, let offer) = action else { return }
            try store.redeemOffer(offer, for: product, by: customer)
        },
        renamed: { action, customer, product in
            guard case .redeemOffer(let c, let p, let offer) = action else { return action }
            return .redeemOffer(customer: customer(c), product: product(p), offer: offer)
        },
        sends: ["SUBSCRIBED", "OFFER_REDEEMED"],
        draws: [
            CheckDraw(rank: 13, weight: 2, when: { !$0.withOffers.isEmpty }) { d in
                let product = d.pick(d.pools.withOffers)
                let offers = d.pools.catalog[product]?.offers.compactMap(\.identifier) ?? []
                return .redeemOffer(customer: d.customer, product: product, offer: offers.isEmpty ? "" : d.pick(offers))
            }
        ])

    static let raisePrice = ScenarioActionSpec(
        "raisePrice",
        [
            .product, ActionArgument("price", .price, "the new price, higher than the current one"),
            ActionArgument("storefront", .storefront, required: false, "ISO 3166-1 alpha-3"),
            ActionArgument(
                "effective", .time, required: false,
                "a duration after the action such as `35d` or `P1M`, or an ISO instant"),
            ActionArgument("consentRequired", .bool, "`true`/`false`; optional with `effective`"),
            ActionArgument("plan", .plan, required: false, "`monthly`: the commitment plan's monthly price"),
        ],
        decode: { i throws(ScenarioError) in try decodeRaisePrice(i) },
        write: { action in
            let scalar = ActionYAML.scalar
            switch action {
            case .raisePrice(let p, let price, let storefront, let consent):
                return ["product: \(scalar(p))", "price: \(price)"] + (storefront.map { ["storefront: \($0)"] } ?? [])
                    + ["consentRequired: \(consent)"]
            case .raiseMonthlyPrice(let p, let price, let storefront, let consent):
                return ["product: \(scalar(p))", "price: \(price)", "plan: monthly"]
                    + (storefront.map { ["storefront: \($0)"] } ?? []) + ["consentRequired: \(consent)"]
            case .schedulePriceIncrease(let p, let price, let storefront, let effective, let consent, let plan):
                // The start date as an instant: it reads back the same whatever the entry's `at`.
                return ["product: \(scalar(p))", "price: \(price)"] + (plan == .monthly ? ["plan: monthly"] : [])
                    + (storefront.map { ["storefront: \($0)"] } ?? [])
                    + ["effective: \(effective)"] + (consent.map { ["consentRequired: \($0)"] } ?? [])
            default: return []
            }
        },
        apply: { action, store throws(StoreError) in
            switch action {
            case .raisePrice(let product, let price, let storefront, let consent):
                try store.raisePrice(product, to: price, in: storefront, consentRequired: consent)
            case .raiseMonthlyPrice(let product, let price, let storefront, let consent):
                try store.raiseMonthlyPrice(product, to: price, in: storefront, consentRequired: consent)
            case .schedulePriceIncrease(let product, let price, let storefront, let effective, let consent, let plan):
                try store.raisePrice(
                    product, to: price, in: storefront, effective: effective, consentRequired: consent, plan: plan)
            default: return
            }
        },
        renamed: { action, _, product in
            switch action {
            case .raisePrice(let p, let price, let storefront, let consent):
                return .raisePrice(product: product(p), price: price, storefront: storefront, consentRequired: consent)
            case .raiseMonthlyPrice(let p, let price, let storefront, let consent):
                return .raiseMonthlyPrice(
                    product: product(p), price: price, storefront: storefront, consentRequired: consent)
            case .schedulePriceIncrease(let p, let price, let storefront, let effective, let consent, let plan):
                return .schedulePriceIncrease(
                    product: product(p), price: price, storefront: storefront, effective: effective,
                    consentRequired: consent, plan: plan)
            default: return action
            }
        },
        sends: ["PRICE_INCREASE"],
        draws: [
            CheckDraw(rank: 14, weight: 1, when: \.hasSubscriptions) { d in
                let product = d.subscription()
                let current = d.pools.prices[product] ?? d.pools.catalog[product]?.price ?? .free
                let raised = Price(milliunits: current.milliunits + Int64(d.random.nextInt(in: 1...5)) * 1000)
                return .raisePrice(product: product, price: raised, storefront: nil, consentRequired: d.chance(0.5))
            }
        ],
        followUp: CheckFollowUp(
            // A customer's consent, after an increase that needs it.
            next: { action, random, people in
                guard case .raisePrice(let product, _, _, true) = action else { return nil }
                return .consentToPriceIncrease(
                    customer: people[random.nextInt(in: 0...people.count - 1)], product: product)
            },
            // The next increase of the product goes up again from this price.
            note: { action, pools in
                if case .raisePrice(let product, let price, _, _) = action { pools.prices[product] = price }
            }))

    /// `raisePrice`: at once (`consentRequired` stated) or scheduled (`effective`), on the up-front or the monthly
    /// plan.
    static func decodeRaisePrice(_ i: ActionInput) throws(ScenarioError) -> ScenarioAction {
        let d = i.decoder
        var code: String?
        if let node = i.optional("storefront") { code = try d.storefront(node).countryCode }
        let product = try i.product()
        let newPrice = try d.price(i.required("price"), "price")
        let plan = try d.billingPlan(i.optional("plan"), of: product, i.catalog) ?? .upfront
        if let node = i.optional("effective") {
            // `effective`: a duration after the action, or an instant (rule price-increase-notice-lead).
            let value = try d.text(node, "effective")
            let effective: Instant
            switch ScenarioDecoder.checkedTime(value, start: i.at) {
            case .instant(let checked): effective = checked
            case .outOfRange(let error): throw i.fail(node, "`effective` (\(value)): \(error)")
            case .invalid:
                throw i.fail(
                    node,
                    "expected `effective` as a duration after the action (such as 30d or P1M) or an ISO instant, "
                        + "found '\(value)'")
            }
            if effective < i.at {
                throw i.fail(
                    node,
                    "`effective` (\(effective)) is before the action (\(i.at)): a price increase starts at or after "
                        + "the instant it is scheduled at (rule price-increase-notice-lead)")
            }
            var consent: Bool?
            if let node = i.optional("consentRequired") { consent = try d.bool(node, "consentRequired") }
            return .schedulePriceIncrease(
                product: product, price: newPrice, storefront: code, effective: effective, consentRequired: consent,
                plan: plan)
        }
        // Without `effective` the file says whether consent is needed (docs/scenario-format.md, `raisePrice`).
        guard let node = i.optional("consentRequired") else {
            throw i.fail(
                i.map.node,
                "missing key `consentRequired` in `raisePrice`: say whether the increase needs the customers' "
                    + "consent (true or false), or give `effective` (a start date), with which Apple's consent "
                    + "rule decides (rule price-increase-consent-threshold)")
        }
        let consent = try d.bool(node, "consentRequired")
        return plan == .monthly
            ? .raiseMonthlyPrice(product: product, price: newPrice, storefront: code, consentRequired: consent)
            : .raisePrice(product: product, price: newPrice, storefront: code, consentRequired: consent)
    }

    static let consentToPriceIncrease = customerProduct(
        "consentToPriceIncrease", { .consentToPriceIncrease(customer: $0, product: $1) },
        { if case .consentToPriceIncrease(let c, let p) = $0 { (c, p) } else { nil } },
        apply: { store, c, p throws(StoreError) in try store.consentToPriceIncrease(p, by: c) },
        sends: ["PRICE_INCREASE"],
        draw: CheckDraw(rank: 15, weight: 1, when: \.hasSubscriptions) { d in
            .consentToPriceIncrease(customer: d.customer, product: d.subscription())
        })
}

// MARK: - Refunds

extension ScenarioActionSpec {
    /// A full refund of the customer's current transaction of the product.
    static let refund = ScenarioActionSpec(
        "refund", [.customer, .product, .refundReason],
        // `refund` with these keys is the spelling `refundTransaction` had before it had a name of its own: it still
        // decodes, with a warning (``TimelineEntry/deprecation``).
        deprecatedKeys: ["transaction", "percentage", "prorated"],
        decode: { i throws(ScenarioError) in
            if i.optional("transaction") != nil || i.optional("percentage") != nil || i.optional("prorated") != nil {
                return try decodeRefundTransaction(i)
            }
            let reason = try i.decoder.refundReason(i.optional("reason"))
            return .refund(customer: try i.customer(), product: try i.product(), reason: reason)
        },
        write: { action in
            guard case .refund(let c, let p, let reason) = action else { return [] }
            return ActionYAML.customerProduct(c, p) + ["reason: \(reason)"]
        },
        apply: { action, store throws(StoreError) in
            guard case .refund(let customer, let product, let reason) = action else { return }
            try store.refund(product, of: customer, reason: reason)
        },
        renamed: { action, customer, product in
            guard case .refund(let c, let p, let reason) = action else { return action }
            return .refund(customer: customer(c), product: product(p), reason: reason)
        },
        sends: ["REFUND", "REVOKE"],
        draws: [
            CheckDraw(rank: 5, weight: 2, when: { !$0.refundable.isEmpty }) { d in
                let product = d.pick(d.pools.refundable)
                return .refund(customer: d.customer, product: product, reason: Int32(d.random.nextInt(in: 0...1)))
            }
        ])

    /// A refund of any of the customer's transactions of the product, full or prorated (reference §5.14). Was
    /// written `refund` with `transaction`, `percentage` or `prorated`, which still decodes (deprecated).
    static let refundTransaction = ScenarioActionSpec(
        "refundTransaction",
        [
            .customer, .product, .transaction,
            ActionArgument("percentage", .wholeNumber, required: false, "milliunits, 1 to 99999: a prorated refund"),
            ActionArgument("prorated", .bool, required: false, "`true`: prorated by the time left"), .refundReason,
        ],
        decode: { i throws(ScenarioError) in try decodeRefundTransaction(i) },
        write: { action in
            guard case .refundTransaction(let c, let p, let position, let refund, let reason) = action else {
                return []
            }
            return ActionYAML.customerProduct(c, p) + ActionYAML.transaction(position) + ActionYAML.amount(refund)
                + ["reason: \(reason)"]
        },
        apply: { action, store throws(StoreError) in
            guard case .refundTransaction(let customer, let product, let transaction, let amount, let reason) = action
            else { return }
            try store.refund(product, of: customer, transaction: transaction, amount: amount, reason: reason)
        },
        renamed: { action, customer, product in
            guard case .refundTransaction(let c, let p, let transaction, let amount, let reason) = action else {
                return action
            }
            return .refundTransaction(
                customer: customer(c), product: product(p), transaction: transaction, amount: amount, reason: reason)
        },
        readsHistory: true,
        sends: ["REFUND", "REVOKE"],
        draws: [
            CheckDraw(rank: 6, weight: 3, when: \.hasSubscriptions) { d in
                let product = d.subscription()
                let position = d.position(product)
                return .refundTransaction(
                    customer: d.customer, product: product, transaction: position, amount: .full,
                    reason: Int32(d.random.nextInt(in: 0...1)))
            },
            CheckDraw(rank: 7, weight: 1, when: \.hasSubscriptions) { d in
                let product = d.subscription()
                return .refundTransaction(
                    customer: d.customer, product: product, transaction: nil,
                    amount: .prorated(milliPercent: Int32(d.random.nextInt(in: 1...99) * 1000)), reason: 0)
            },
        ])

    /// `refundTransaction`'s arguments (also read for the deprecated spelling `refund` with `transaction`,
    /// `percentage` or `prorated`), in the order their errors have always been reported.
    static func decodeRefundTransaction(_ i: ActionInput) throws(ScenarioError) -> ScenarioAction {
        let reason = try i.decoder.refundReason(i.optional("reason"))
        return .refundTransaction(
            customer: try i.customer(), product: try i.product(),
            transaction: try i.decoder.transactionPosition(i.optional("transaction")),
            amount: try i.decoder.refundAmount(i.optional("percentage"), prorated: i.optional("prorated")),
            reason: reason)
    }

    static let requestRefund = ScenarioActionSpec(
        "requestRefund",
        [
            .customer, .product, .transaction,
            ActionArgument(
                "reason", .choice,
                "`consumptionRequestReason`: "
                    + ConsumptionRequestReason.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", "),
                choices: ConsumptionRequestReason.allCases.map(\.rawValue)),
        ],
        decode: { i throws(ScenarioError) in
            let reason = try i.decoder.choice(
                try i.required("reason"), "reason", label: "consumptionRequestReason",
                ConsumptionRequestReason.allCases.map(\.rawValue), ConsumptionRequestReason.init(rawValue:))
            return .requestRefund(
                customer: try i.customer(), product: try i.product(),
                transaction: try i.decoder.transactionPosition(i.optional("transaction")), reason: reason)
        },
        write: { action in
            guard case .requestRefund(let c, let p, let position, let reason) = action else { return [] }
            return ActionYAML.customerProduct(c, p) + ActionYAML.transaction(position) + ["reason: \(reason.rawValue)"]
        },
        apply: { action, store throws(StoreError) in
            guard case .requestRefund(let customer, let product, let transaction, let reason) = action else { return }
            try store.requestRefund(product, by: customer, transaction: transaction, reason: reason)
        },
        renamed: { action, customer, product in
            guard case .requestRefund(let c, let p, let transaction, let reason) = action else { return action }
            return .requestRefund(customer: customer(c), product: product(p), transaction: transaction, reason: reason)
        },
        readsHistory: true,
        sends: ["CONSUMPTION_REQUEST"],
        draws: [
            CheckDraw(rank: 8, weight: 2, when: \.hasSubscriptions) { d in
                let product = d.subscription()
                return .requestRefund(
                    customer: d.customer, product: product, transaction: nil,
                    reason: d.pick(ConsumptionRequestReason.allCases))
            }
        ],
        // The developer's consumption information, within 12 hours of the request.
        followUp: CheckFollowUp(next: { action, random, _ in
            guard case .requestRefund(let customer, let product, let transaction, _) = action else { return nil }
            return .sendConsumptionInformation(
                customer: customer, product: product, transaction: transaction, customerConsented: true,
                refundPreference: RefundPreference.allCases[random.nextInt(in: 0...RefundPreference.allCases.count - 1)]
            )
        }))

    static let sendConsumptionInformation = ScenarioActionSpec(
        "sendConsumptionInformation",
        [
            .customer, .product, .transaction, ActionArgument("customerConsented", .bool, "must be `true`"),
            ActionArgument(
                "refundPreference", .choice, required: false,
                RefundPreference.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", "),
                choices: RefundPreference.allCases.map(\.rawValue)),
        ],
        decode: { i throws(ScenarioError) in
            var preference: RefundPreference?
            if let node = i.optional("refundPreference") {
                preference = try i.decoder.choice(
                    node, "refundPreference", label: "refundPreference", RefundPreference.allCases.map(\.rawValue),
                    RefundPreference.init(rawValue:))
            }
            return .sendConsumptionInformation(
                customer: try i.customer(), product: try i.product(),
                transaction: try i.decoder.transactionPosition(i.optional("transaction")),
                customerConsented: try i.decoder.bool(i.required("customerConsented"), "customerConsented"),
                refundPreference: preference)
        },
        write: { action in
            guard case .sendConsumptionInformation(let c, let p, let position, let consented, let preference) = action
            else { return [] }
            return ActionYAML.customerProduct(c, p) + ActionYAML.transaction(position)
                + ["customerConsented: \(consented)"] + (preference.map { ["refundPreference: \($0.rawValue)"] } ?? [])
        },
        apply: { action, store throws(StoreError) in
            guard
                case .sendConsumptionInformation(
                    let customer, let product, let transaction, let consented, let preference) =
                    action
            else { return }
            try store.sendConsumptionInformation(
                product, of: customer, transaction: transaction, customerConsented: consented,
                refundPreference: preference)
        },
        renamed: { action, customer, product in
            guard
                case .sendConsumptionInformation(let c, let p, let transaction, let consented, let preference) = action
            else { return action }
            return .sendConsumptionInformation(
                customer: customer(c), product: product(p), transaction: transaction, customerConsented: consented,
                refundPreference: preference)
        },
        readsHistory: true,
        draws: [
            CheckDraw(rank: 9, weight: 1, when: \.hasSubscriptions) { d in
                let product = d.subscription()
                return .sendConsumptionInformation(
                    customer: d.customer, product: product, transaction: nil, customerConsented: true,
                    refundPreference: d.pick(RefundPreference.allCases))
            }
        ])

    static let decideRefund = ScenarioActionSpec(
        "decideRefund",
        [
            .customer, .product, .transaction,
            ActionArgument(
                "decision", .choice, "`REFUND` or `REFUND_DECLINED`", choices: ["REFUND", "REFUND_DECLINED"]),
            ActionArgument("percentage", .wholeNumber, required: false, "with `REFUND`: as `refund`"),
            ActionArgument("prorated", .bool, required: false, "with `REFUND`: as `refund`"),
            ActionArgument("reason", .wholeNumber, required: false, "0 or 1, default 0"),
        ],
        decode: { i throws(ScenarioError) in
            let node = try i.required("decision")
            let raw = try i.decoder.text(node, "decision")
            let decision: RefundDecision
            switch raw {
            case "REFUND":
                decision = .grant(
                    try i.decoder.refundAmount(i.optional("percentage"), prorated: i.optional("prorated")))
            case "REFUND_DECLINED":
                if let extra = i.optional("percentage") ?? i.optional("prorated") {
                    throw i.fail(extra, "`percentage` and `prorated` apply only to decision REFUND")
                }
                decision = .decline
            default:
                throw i.fail(
                    node,
                    "expected decision REFUND or REFUND_DECLINED, found '\(raw)'"
                        + i.decoder.hint(raw, ["REFUND", "REFUND_DECLINED"]))
            }
            let reason = try i.decoder.refundReason(i.optional("reason"))
            return .decideRefund(
                customer: try i.customer(), product: try i.product(),
                transaction: try i.decoder.transactionPosition(i.optional("transaction")), decision: decision,
                reason: reason)
        },
        write: { action in
            guard case .decideRefund(let c, let p, let position, let decision, let reason) = action else { return [] }
            let head = ActionYAML.customerProduct(c, p) + ActionYAML.transaction(position)
            switch decision {
            case .grant(let refund):
                return head + ["decision: REFUND"] + ActionYAML.amount(refund) + ["reason: \(reason)"]
            case .decline: return head + ["decision: REFUND_DECLINED", "reason: \(reason)"]
            }
        },
        apply: { action, store throws(StoreError) in
            guard case .decideRefund(let customer, let product, let transaction, let decision, let reason) = action
            else { return }
            try store.decideRefund(product, of: customer, transaction: transaction, decision, reason: reason)
        },
        renamed: { action, customer, product in
            guard case .decideRefund(let c, let p, let transaction, let decision, let reason) = action else {
                return action
            }
            return .decideRefund(
                customer: customer(c), product: product(p), transaction: transaction, decision: decision,
                reason: reason)
        },
        readsHistory: true,
        sends: ["REFUND", "REFUND_DECLINED", "REVOKE"],
        draws: [
            CheckDraw(rank: 10, weight: 2, when: \.hasSubscriptions) { d in
                let decision: RefundDecision = d.chance(0.6) ? .grant(.full) : .decline
                return .decideRefund(
                    customer: d.customer, product: d.subscription(), transaction: nil, decision: decision, reason: 0)
            }
        ])

    static let reverseRefund = ScenarioActionSpec(
        "reverseRefund", [.customer, .product, .transaction],
        decode: { i throws(ScenarioError) in
            .reverseRefund(
                customer: try i.customer(), product: try i.product(),
                transaction: try i.decoder.transactionPosition(i.optional("transaction")))
        },
        write: { action in
            guard case .reverseRefund(let c, let p, let position) = action else { return [] }
            return ActionYAML.customerProduct(c, p) + ActionYAML.transaction(position)
        },
        apply: { action, store throws(StoreError) in
            guard case .reverseRefund(let customer, let product, let transaction) = action else { return }
            try store.reverseRefund(product, of: customer, transaction: transaction)
        },
        renamed: { action, customer, product in
            guard case .reverseRefund(let c, let p, let transaction) = action else { return action }
            return .reverseRefund(customer: customer(c), product: product(p), transaction: transaction)
        },
        readsHistory: true,
        sends: ["REFUND_REVERSED"],
        draws: [
            CheckDraw(rank: 11, weight: 2, when: { !$0.refundable.isEmpty }) { d in
                .reverseRefund(customer: d.customer, product: d.pick(d.pools.refundable), transaction: nil)
            }
        ])
}

// MARK: - Renewal-date extensions and notifications about the app

extension ScenarioActionSpec {
    static let extendRenewalDate = ScenarioActionSpec(
        "extendRenewalDate",
        [
            .customer, .product, ActionArgument("days", .wholeNumber, "1 to 90"),
            ActionArgument("reason", .wholeNumber, required: false, "`extendReasonCode` 0 to 3, default 0"),
            ActionArgument(
                "requestIdentifier", .text, required: false, "1 to 128 characters, as Apple's API takes it"),
        ],
        decode: { i throws(ScenarioError) in
            .extendRenewalDate(
                customer: try i.customer(), product: try i.product(),
                days: try i.decoder.whole(i.required("days"), "days"),
                reason: try i.decoder.extendReason(i.optional("reason")),
                requestIdentifier: try i.optional("requestIdentifier").map { node throws(ScenarioError) in
                    try i.decoder.requestIdentifier(node)
                })
        },
        write: { action in
            guard case .extendRenewalDate(let c, let p, let days, let reason, let request) = action else { return [] }
            return ActionYAML.customerProduct(c, p) + ["days: \(days)", "reason: \(reason.rawValue)"]
                + (request.map { ["requestIdentifier: \(ActionYAML.scalar($0))"] } ?? [])
        },
        apply: { action, store throws(StoreError) in
            guard case .extendRenewalDate(let customer, let product, let days, let reason, let request) = action else {
                return
            }
            try store.extendRenewalDate(product, for: customer, days: days, reason: reason, requestIdentifier: request)
        },
        renamed: { action, customer, product in
            guard case .extendRenewalDate(let c, let p, let days, let reason, let request) = action else {
                return action
            }
            return .extendRenewalDate(
                customer: customer(c), product: product(p), days: days, reason: reason, requestIdentifier: request)
        },
        sends: ["RENEWAL_EXTENDED"],
        draws: [
            CheckDraw(rank: 16, weight: 2, when: \.hasSubscriptions) { d in
                let product = d.subscription()
                let days = d.pick([1, 3, 7, 14, 30, 90])
                return .extendRenewalDate(
                    customer: d.customer, product: product, days: days, reason: d.pick(ExtendReasonCode.allCases))
            }
        ])

    static let failRenewalExtension = customerProduct(
        "failRenewalExtension", { .failRenewalExtension(customer: $0, product: $1) },
        { if case .failRenewalExtension(let c, let p) = $0 { (c, p) } else { nil } },
        apply: { store, c, p throws(StoreError) in try store.failNextRenewalExtension(p, for: c) },
        sends: ["RENEWAL_EXTENSION"],
        draw: CheckDraw(rank: 17, weight: 1, when: \.hasSubscriptions) { d in
            .failRenewalExtension(customer: d.customer, product: d.subscription())
        })

    static let extendRenewalDatesForAllActiveSubscribers = ScenarioActionSpec(
        "extendRenewalDatesForAllActiveSubscribers",
        [
            .product, ActionArgument("days", .wholeNumber, "1 to 90"),
            ActionArgument("reason", .wholeNumber, required: false, "0 to 3"),
            ActionArgument("requestIdentifier", .text, "1 to 128 characters"),
            ActionArgument(
                "storefrontCountryCodes", .storefronts, required: false,
                "a non-empty list of ISO 3166-1 alpha-3 codes; an empty list is an error, as in Apple's API"),
        ],
        decode: { i throws(ScenarioError) in
            var codes: [String] = []
            if let node = i.optional("storefrontCountryCodes") {
                let items = try i.decoder.list(node, "storefrontCountryCodes")
                guard !items.isEmpty else {
                    throw i.fail(
                        node,
                        "expected `storefrontCountryCodes` as a non-empty list of storefronts, found an empty list; "
                            + "leave the key out to extend in every storefront (Apple rejects an empty list, 4000027)")
                }
                for item in items { codes.append(try i.decoder.storefront(item).countryCode) }
            }
            return .extendRenewalDatesForAllActiveSubscribers(
                product: try i.product(), days: try i.decoder.whole(i.required("days"), "days"),
                reason: try i.decoder.extendReason(i.optional("reason")),
                requestIdentifier: try i.decoder.requestIdentifier(i.required("requestIdentifier")),
                storefrontCountryCodes: codes)
        },
        write: { action in
            guard
                case .extendRenewalDatesForAllActiveSubscribers(let p, let days, let reason, let request, let codes) =
                    action
            else { return [] }
            return ActionYAML.product(p)
                + ["days: \(days)", "reason: \(reason.rawValue)", "requestIdentifier: \(ActionYAML.scalar(request))"]
                + (codes.isEmpty ? [] : ["storefrontCountryCodes: [\(codes.joined(separator: ", "))]"])
        },
        apply: { action, store throws(StoreError) in
            guard
                case .extendRenewalDatesForAllActiveSubscribers(
                    let product, let days, let reason, let request, let codes) =
                    action
            else { return }
            _ = try store.extendRenewalDatesForAllActiveSubscribers(
                product, days: days, reason: reason, requestIdentifier: request, storefrontCountryCodes: codes)
        },
        renamed: { action, _, product in
            guard
                case .extendRenewalDatesForAllActiveSubscribers(let p, let days, let reason, let request, let codes) =
                    action
            else { return action }
            return .extendRenewalDatesForAllActiveSubscribers(
                product: product(p), days: days, reason: reason, requestIdentifier: request,
                storefrontCountryCodes: codes)
        },
        sends: ["RENEWAL_EXTENDED", "RENEWAL_EXTENSION"],
        draws: [
            CheckDraw(rank: 18, weight: 1, when: \.hasSubscriptions) { d in
                let product = d.subscription()
                let days = d.pick([1, 7, 30])
                return .extendRenewalDatesForAllActiveSubscribers(
                    product: product, days: days, reason: .serviceIssueOrOutage, requestIdentifier: d.uuid(),
                    storefrontCountryCodes: [])
            }
        ])

    /// Rule retention-view-needs-renewing-subscription (`Store/SimulatedStore+CancellationViews.swift`); not drawn
    /// by `check` (its outcome needs a realtime endpoint).
    static let viewCancellation = ScenarioActionSpec(
        "viewCancellation",
        [
            .customer,
            ActionArgument("product", .product, required: false, "default: the customer's first renewing subscription"),
            ActionArgument("locale", .text, required: false, "the device's `userLocale`, default `en-US`"),
        ],
        decode: { i throws(ScenarioError) in
            let product: String? = i.optional("product") == nil ? nil : try i.product()
            var locale = "en-US"
            if let node = i.optional("locale") {
                locale = try i.decoder.text(node, "locale")
                guard RetentionMessaging.isLocale(locale) else {
                    throw i.fail(node, "locale '\(locale)': expected a locale such as en-US, en_US or fr")
                }
            }
            return .viewCancellation(customer: try i.customer(), product: product, locale: locale)
        },
        write: { action in
            guard case .viewCancellation(let c, let p, let locale) = action else { return [] }
            return (p.map { ActionYAML.customerProduct(c, $0) } ?? ActionYAML.customer(c))
                + (locale == "en-US" ? [] : ["locale: \(ActionYAML.scalar(locale))"])
        },
        apply: { action, store throws(StoreError) in
            guard case .viewCancellation(let customer, let product, let locale) = action else { return }
            try store.viewCancellation(product, by: customer, locale: locale)
        },
        renamed: { action, customer, product in
            guard case .viewCancellation(let c, let p, let locale) = action else { return action }
            return .viewCancellation(customer: customer(c), product: p.map(product), locale: locale)
        })

    static let requestTestNotification = ScenarioActionSpec(
        "requestTestNotification", [], decode: { _ throws(ScenarioError) in .requestTestNotification },
        write: { _ in [] }, apply: { _, store throws(StoreError) in store.requestTestNotification() },
        renamed: { action, _, _ in action },
        sends: ["TEST"],
        draws: [CheckDraw(rank: 29, weight: 1, when: { _ in true }) { _ in .requestTestNotification }])
}

// MARK: - Consent (Declared Age Range)

extension ScenarioActionSpec {
    /// `rescindConsent: { customer }`: `RESCIND_CONSENT` to the customer (rule rescind-consent). `simctl check` does
    /// not draw it: a new draw would change the cases of every seed.
    static let rescindConsent = ScenarioActionSpec(
        "rescindConsent", [.customer],
        decode: { i throws(ScenarioError) in .rescindConsent(customer: try i.customer()) },
        write: { action in
            guard case .rescindConsent(let customer) = action else { return [] }
            return ActionYAML.customer(customer)
        },
        apply: { action, store throws(StoreError) in
            guard case .rescindConsent(let customer) = action else { return }
            store.rescindConsent(for: customer)
        },
        renamed: { action, customer, _ in
            guard case .rescindConsent(let c) = action else { return action }
            return .rescindConsent(customer: customer(c))
        },
        // The AppTransaction's originalPurchaseDate is the customer's first transaction's.
        readsHistory: true)
}

// MARK: - The common shapes

extension ScenarioActionSpec {
    /// An action of one customer and one product (`customer`, `product`).
    static func customerProduct(
        _ name: String, _ make: @escaping @Sendable (String, String) -> ScenarioAction,
        _ match: @escaping @Sendable (ScenarioAction) -> (String, String)?,
        apply: @escaping @Sendable (inout SimulatedStore, String, String) throws(StoreError) -> Void,
        needsFamily: Bool = false, sends: Set<String> = [], draw: CheckDraw
    ) -> ScenarioActionSpec {
        ScenarioActionSpec(
            name, [.customer, .product],
            decode: { i throws(ScenarioError) in make(try i.customer(), try i.product()) },
            write: { action in match(action).map { ActionYAML.customerProduct($0.0, $0.1) } ?? [] },
            apply: { action, store throws(StoreError) in
                if let (customer, product) = match(action) { try apply(&store, customer, product) }
            },
            renamed: { action, customer, product in
                match(action).map { make(customer($0.0), product($0.1)) } ?? action
            }, needsFamily: needsFamily, sends: sends, draws: [draw])
    }

    /// An action of one customer (`customer`).
    static func customerOnly(
        _ name: String, _ make: @escaping @Sendable (String) -> ScenarioAction,
        _ match: @escaping @Sendable (ScenarioAction) -> String?,
        apply: @escaping @Sendable (inout SimulatedStore, String) throws(StoreError) -> Void,
        readsHistory: Bool = false, needsFamily: Bool = false, sends: Set<String> = [], draw: CheckDraw
    ) -> ScenarioActionSpec {
        ScenarioActionSpec(
            name, [.customer], decode: { i throws(ScenarioError) in make(try i.customer()) },
            write: { action in match(action).map(ActionYAML.customer) ?? [] },
            apply: { action, store throws(StoreError) in
                if let customer = match(action) { try apply(&store, customer) }
            },
            renamed: { action, customer, _ in match(action).map { make(customer($0)) } ?? action },
            readsHistory: readsHistory, needsFamily: needsFamily, sends: sends, draws: [draw])
    }

    /// An action of the developer about one product (`product`).
    static func productOnly(
        _ name: String, _ make: @escaping @Sendable (String) -> ScenarioAction,
        _ match: @escaping @Sendable (ScenarioAction) -> String?,
        apply: @escaping @Sendable (inout SimulatedStore, String) throws(StoreError) -> Void,
        needsFamily: Bool = false, sends: Set<String> = [], draw: CheckDraw
    ) -> ScenarioActionSpec {
        ScenarioActionSpec(
            name, [.product], decode: { i throws(ScenarioError) in make(try i.product()) },
            write: { action in match(action).map(ActionYAML.product) ?? [] },
            apply: { action, store throws(StoreError) in
                if let product = match(action) { try apply(&store, product) }
            },
            renamed: { action, _, product in match(action).map { make(product($0)) } ?? action },
            needsFamily: needsFamily, sends: sends, draws: [draw])
    }
}
