/// The actions a case may draw, worked out once from the catalogue and the people: every action of the scenario
/// vocabulary that applies (docs/check.md, "What is generated"). An action the catalogue cannot support (a plan change
/// in a group of one product, an offer of a product without offers, family actions without a family) is never drawn.
/// Arguments are drawn too; the store decides whether the action may happen now.
struct ActionVocabulary: Sendable {
    /// One kind of action and how often it is drawn, relative to the others.
    enum Kind: CaseIterable, Sendable {
        case purchase, cancel, resume, failBilling, fixBilling, refund, refundPast, refundProrated, requestRefund
        case sendConsumptionInformation, decideRefund, reverseRefund, changePlan, redeemOffer, raisePrice
        case consentToPriceIncrease, extendRenewalDate, failRenewalExtension, extendForAll, removeFromSale
        case restoreToSale
        case joinFamily, leaveFamily, shareWithFamily, stopSharing, startSharing, makeFamilyShareable
        case restorePurchases, openApp, requestTestNotification
    }

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
    let kinds: [(kind: Kind, weight: Int)]
    let totalWeight: Int
    /// Product prices after the price increases drawn so far, so the next one goes up again.
    var prices: [String: Price] = [:]

    init(catalog: Catalog, people: [String], family: FamilySpec?) {
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
        let hasSubscriptions = !subscriptions.isEmpty
        let hasFamily = family != nil
        var kinds: [(Kind, Int)] = []
        for kind in Kind.allCases {
            let weight: Int
            switch kind {
            case .purchase: weight = purchasable.isEmpty ? 0 : 8
            case .cancel: weight = hasSubscriptions ? 4 : 0
            case .resume: weight = hasSubscriptions ? 2 : 0
            case .failBilling: weight = hasSubscriptions ? 4 : 0
            case .fixBilling: weight = hasSubscriptions ? 4 : 0
            case .refund: weight = refundable.isEmpty ? 0 : 2
            case .refundPast: weight = hasSubscriptions ? 3 : 0
            case .refundProrated: weight = hasSubscriptions ? 1 : 0
            case .requestRefund: weight = hasSubscriptions ? 2 : 0
            case .sendConsumptionInformation: weight = hasSubscriptions ? 1 : 0
            case .decideRefund: weight = hasSubscriptions ? 2 : 0
            case .reverseRefund: weight = refundable.isEmpty ? 0 : 2
            case .changePlan: weight = planChangeTargets.isEmpty ? 0 : 3
            case .redeemOffer: weight = withOffers.isEmpty ? 0 : 2
            case .raisePrice: weight = hasSubscriptions ? 1 : 0
            case .consentToPriceIncrease: weight = hasSubscriptions ? 1 : 0
            case .extendRenewalDate: weight = hasSubscriptions ? 2 : 0
            case .extendForAll: weight = hasSubscriptions ? 1 : 0
            case .failRenewalExtension: weight = hasSubscriptions ? 1 : 0
            case .removeFromSale: weight = hasSubscriptions ? 1 : 0
            case .restoreToSale: weight = hasSubscriptions ? 1 : 0
            case .joinFamily: weight = hasFamily ? 2 : 0
            case .leaveFamily: weight = hasFamily ? 2 : 0
            case .shareWithFamily: weight = hasFamily && !shareable.isEmpty ? 1 : 0
            case .stopSharing: weight = hasFamily && !shareable.isEmpty ? 2 : 0
            case .startSharing: weight = hasFamily && !shareable.isEmpty ? 4 : 0
            case .makeFamilyShareable: weight = hasFamily && !notShareable.isEmpty ? 1 : 0
            case .restorePurchases: weight = 1
            case .openApp: weight = hasSubscriptions ? 1 : 0
            case .requestTestNotification: weight = 1
            }
            if weight > 0 { kinds.append((kind, weight)) }
        }
        self.kinds = kinds
        totalWeight = kinds.reduce(0) { $0 + $1.1 }
    }

    /// Remembers what an applied action changed that later draws depend on (prices).
    mutating func note(_ action: ScenarioAction) {
        if case .raisePrice(let product, let price, _, _) = action { prices[product] = price }
    }

    /// Draws one action with its arguments. Half of the time the customer is `previous` (the last action's), so that
    /// one customer's actions follow each other closely (a refund soon after a purchase, a fix after a failure).
    func draw(_ random: inout RandomSource, store: SimulatedStore, previous: String? = nil) -> ScenarioAction {
        func pick<T>(_ items: [T]) -> T { items[random.nextInt(in: 0...items.count - 1)] }
        var choice = random.nextInt(in: 0...max(0, totalWeight - 1))
        var kind = kinds.first?.kind ?? .requestTestNotification
        for entry in kinds {
            if choice < entry.weight {
                kind = entry.kind
                break
            }
            choice -= entry.weight
        }
        let other = pick(people)
        let customer = previous.map { random.nextDouble() < 0.5 ? $0 : other } ?? other
        func subscription() -> String { pick(subscriptions) }
        /// The customer's n-th transaction of the product, from 1; drawn among those that exist.
        func position(_ product: String) -> Int {
            let count = store.transactions.reduce(0) {
                $0 + ($1.customer == customer && $1.productId == product ? 1 : 0)
            }
            return random.nextInt(in: 1...max(1, count))
        }
        switch kind {
        case .purchase:
            // Half of the purchases carry an app account token, a fresh UUID (never one of an earlier case).
            let token = random.nextDouble() < 0.5 ? Self.uuid(&random) : nil
            let product = pick(purchasable)
            // A product with the commitment plan is bought on it half of the time (the store refuses it where the
            // plan is not sold, rule commitment-storefronts); other products draw nothing more, so their cases stay
            // as they were.
            let plan: BillingPlan =
                withCommitment.contains(product) && random.nextDouble() < 0.5 ? .monthly : .upfront
            return .purchase(customer: customer, product: product, appAccountToken: token, plan: plan)
        case .cancel: return .cancel(customer: customer, product: subscription())
        case .resume: return .resume(customer: customer, product: subscription())
        case .failBilling: return .failBilling(customer: customer)
        case .fixBilling: return .fixBilling(customer: customer)
        case .refund:
            return .refund(customer: customer, product: pick(refundable), reason: Int32(random.nextInt(in: 0...1)))
        case .refundPast:
            let product = subscription()
            return .refundTransaction(
                customer: customer, product: product, transaction: position(product), amount: .full,
                reason: Int32(random.nextInt(in: 0...1)))
        case .refundProrated:
            let product = subscription()
            return .refundTransaction(
                customer: customer, product: product, transaction: nil,
                amount: .prorated(milliPercent: Int32(random.nextInt(in: 1...99) * 1000)), reason: 0)
        case .requestRefund:
            return .requestRefund(
                customer: customer, product: subscription(), transaction: nil,
                reason: pick(ConsumptionRequestReason.allCases))
        case .sendConsumptionInformation:
            return .sendConsumptionInformation(
                customer: customer, product: subscription(), transaction: nil, customerConsented: true,
                refundPreference: pick(RefundPreference.allCases))
        case .decideRefund:
            let decision: RefundDecision = random.nextDouble() < 0.6 ? .grant(.full) : .decline
            return .decideRefund(
                customer: customer, product: subscription(), transaction: nil, decision: decision, reason: 0)
        case .reverseRefund: return .reverseRefund(customer: customer, product: pick(refundable), transaction: nil)
        case .changePlan:
            let product = pick(planChangeTargets)
            // A product with the commitment plan: no `plan` (the current product's plan, another product's up-front
            // plan), the up-front or the monthly plan, a third of the time each; other products draw nothing more,
            // so their cases stay as they were.
            guard withCommitment.contains(product) else { return .changePlan(customer: customer, product: product) }
            let plans: [BillingPlan?] = [nil, .upfront, .monthly]
            return .changePlan(customer: customer, product: product, plan: pick(plans))
        case .redeemOffer:
            let product = pick(withOffers)
            let offers = catalog[product]?.offers.compactMap(\.identifier) ?? []
            return .redeemOffer(customer: customer, product: product, offer: offers.isEmpty ? "" : pick(offers))
        case .raisePrice:
            let product = subscription()
            let current = prices[product] ?? catalog[product]?.price ?? .free
            let raised = Price(milliunits: current.milliunits + Int64(random.nextInt(in: 1...5)) * 1000)
            return .raisePrice(
                product: product, price: raised, storefront: nil, consentRequired: random.nextDouble() < 0.5)
        case .consentToPriceIncrease: return .consentToPriceIncrease(customer: customer, product: subscription())
        case .extendRenewalDate:
            return .extendRenewalDate(
                customer: customer, product: subscription(), days: pick([1, 3, 7, 14, 30, 90]),
                reason: pick(ExtendReasonCode.allCases))
        case .extendForAll:
            return .extendRenewalDatesForAllActiveSubscribers(
                product: subscription(), days: pick([1, 7, 30]), reason: .serviceIssueOrOutage,
                requestIdentifier: Self.uuid(&random), storefrontCountryCodes: [])
        case .removeFromSale: return .removeFromSale(product: subscription())
        case .restoreToSale: return .restoreToSale(product: subscription())
        case .joinFamily: return .joinFamily(customer: customer)
        case .leaveFamily: return .leaveFamily(customer: customer)
        case .shareWithFamily: return .shareWithFamily(customer: customer, enabled: random.nextDouble() < 0.5)
        case .stopSharing: return .stopSharing(customer: customer, product: pick(shareable))
        case .startSharing: return .startSharing(customer: customer, product: pick(shareable))
        case .makeFamilyShareable: return .makeFamilyShareable(product: pick(notShareable))
        case .restorePurchases: return .restorePurchases(customer: customer)
        case .openApp: return .openApp(customer: customer)
        case .requestTestNotification: return .requestTestNotification
        case .failRenewalExtension: return .failRenewalExtension(customer: customer, product: subscription())
        }
    }

    /// An action that only makes sense right after `action` and is drawn then (at the same instant), or nil: the
    /// developer's consumption information after a refund request (within 12 hours of it), a customer's consent
    /// after a price increase that needs it.
    func followUp(after action: ScenarioAction, _ random: inout RandomSource) -> ScenarioAction? {
        switch action {
        case .requestRefund(let customer, let product, let transaction, _):
            return .sendConsumptionInformation(
                customer: customer, product: product, transaction: transaction, customerConsented: true,
                refundPreference: RefundPreference.allCases[random.nextInt(in: 0...RefundPreference.allCases.count - 1)]
            )
        case .raisePrice(let product, _, _, true):
            return .consentToPriceIncrease(customer: people[random.nextInt(in: 0...people.count - 1)], product: product)
        case .purchase, .cancel, .resume, .stopSharing, .startSharing, .refund, .failBilling, .fixBilling, .joinFamily,
            .leaveFamily, .restorePurchases, .shareWithFamily, .makeFamilyShareable, .removeFromSale, .restoreToSale,
            .changePlan, .redeemOffer, .raisePrice, .schedulePriceIncrease, .raiseMonthlyPrice, .consentToPriceIncrease,
            .extendRenewalDate,
            .refundTransaction,
            .sendConsumptionInformation, .decideRefund, .reverseRefund, .openApp, .requestTestNotification,
            .extendRenewalDatesForAllActiveSubscribers, .failRenewalExtension:
            return nil
        }
    }

    /// A lowercase version 4 UUID from the random source.
    static func uuid(_ random: inout RandomSource) -> String {
        NotificationUUID(
            high: (random.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000,
            low: (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        ).description
    }
}
