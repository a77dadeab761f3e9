/// The actions a case may draw, worked out once from the catalogue and the people: every action of the scenario
/// vocabulary that applies (docs/check.md, "What is generated"). An action the catalogue cannot support (a plan change
/// in a group of one product, an offer of a product without offers, family actions without a family) is never drawn.
/// Arguments are drawn too; the store decides whether the action may happen now.
/// The kinds and their weights come from the action table (``ScenarioActionSpec/draws``).
struct ActionVocabulary: Sendable {
    /// What the drawn actions may name.
    var pools: ActionPools
    /// The draws that apply, in the generator's order (``CheckDraw/rank``).
    let kinds: [CheckDraw]
    let totalWeight: Int

    var people: [String] { pools.people }

    init(catalog: Catalog, people: [String], family: FamilySpec?) {
        pools = ActionPools(catalog: catalog, people: people, family: family)
        let pools = pools
        kinds = ScenarioActionSpec.all.flatMap(\.draws).sorted { $0.rank < $1.rank }.filter {
            $0.weight > 0 && $0.when(pools)
        }
        totalWeight = kinds.reduce(0) { $0 + $1.weight }
    }

    /// Remembers what an applied action changed that later draws depend on (prices).
    mutating func note(_ action: ScenarioAction) {
        if case .raisePrice(let product, let price, _, _) = action { pools.prices[product] = price }
    }

    /// Draws one action with its arguments. Half of the time the customer is `previous` (the last action's), so that
    /// one customer's actions follow each other closely (a refund soon after a purchase, a fix after a failure).
    func draw(_ random: inout RandomSource, store: SimulatedStore, previous: String? = nil) -> ScenarioAction {
        var choice = random.nextInt(in: 0...max(0, totalWeight - 1))
        var kind = kinds.first ?? ScenarioActionSpec.requestTestNotification.draws[0]
        for entry in kinds {
            if choice < entry.weight {
                kind = entry
                break
            }
            choice -= entry.weight
        }
        let other = people[random.nextInt(in: 0...people.count - 1)]
        let customer = previous.map { random.nextDouble() < 0.5 ? $0 : other } ?? other
        var drawing = ActionDraw(random: random, customer: customer, store: store, pools: pools)
        let action = kind.draw(&drawing)
        random = drawing.random
        return action
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
            .extendRenewalDatesForAllActiveSubscribers, .failRenewalExtension, .viewCancellation:
            return nil
        }
    }
}
