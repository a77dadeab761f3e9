import Testing

@testable import SubscriptionSimulator

/// 2026-01-05T09:00:00Z, the start of every lifecycle test.
let testStart = CalendarMath.instant(year: 2026, month: 1, day: 5, hour: 9)

func at(_ text: String) -> Instant {
    testStart.adding(CalendarDurationSyntax.parse(text)!)
}

let monthly = Product(
    id: "com.example.pro.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
    price: Price(decimal: "9.99")!, currency: "USD")
let weekly = Product(
    id: "com.example.pro.weekly", type: .autoRenewable, group: "pro.weekly", period: .oneWeek,
    price: Price(decimal: "2.99")!, currency: "USD")
let trialMonthly = Product(
    id: "com.example.trial.monthly", type: .autoRenewable, group: "trial", period: .oneMonth,
    price: Price(decimal: "4.99")!, currency: "USD",
    introOffer: IntroductoryOffer(mode: .freeTrial, period: .weeks(1)))
let lifetime = Product(id: "com.example.lifetime", type: .nonConsumable, price: Price(decimal: "29.99")!)
let coins = Product(id: "com.example.coins", type: .consumable, price: Price(decimal: "0.99")!)
let season = Product(
    id: "com.example.season", type: .nonRenewing, duration: .months(3), price: Price(decimal: "19.99")!)

func makeStore(
    grace: GracePeriodSetting = .off, eligibility: GraceEligibility = .allRenewals, seed: UInt64 = 1
) -> SimulatedStore {
    let app = AppConfiguration(
        bundleId: "com.example.app", appAppleId: 1_234_567_890, gracePeriod: grace, graceEligibility: eligibility)
    let catalog = try! Catalog(products: [monthly, weekly, trialMonthly, lifetime, coins, season])
    return SimulatedStore(app: app, catalog: catalog, start: testStart, seed: seed)
}

/// A compact line per notification: `ISO-instant recipient TYPE/SUBTYPE status`.
func lines(_ notifications: [SentNotification]) -> [String] {
    notifications.map { n in
        var text = "\(n.instant) \(n.recipient ?? "(app)") \(n.type.rawValue)"
        if let subtype = n.subtype { text += "/\(subtype.rawValue)" }
        if let status = n.status { text += " \(status.statusCode)" }
        return text
    }
}

// MARK: - The store's parts, alone (the part-rule tests in Store/)

/// A chain of `customer` to `product` in `phase` (its billing failure `failure`, if any), as the store would append
/// it: its originalTransactionId is `idPrefix` followed by the length of the customer's name.
func partTestChain(
    _ customer: String, _ product: Product = monthly, ownership: Ownership = .purchased,
    phase: SubscriptionPhase = .active, failure: EndReason? = nil, current: Int = -1,
    idPrefix: String = "200000000000000"
) -> SubscriptionChain {
    var state = SubscriptionLifecycle.freshState(
        PurchaseRequest(productId: product.id, period: product.period!), at: testStart)
    state.phase = phase
    if let failure {
        state.failure = BillingFailure(
            failedAt: testStart, cause: failure, graceExpiresAt: nil, retryEndsAt: at("P60D"))
    }
    return SubscriptionChain(
        originalTransactionId: "\(idPrefix)\(customer.count)", customer: customer, group: product.group!,
        groupIdentifier: "21000001", ownership: ownership, sharedFrom: nil, sharingOn: false, state: state,
        originalPurchaseDate: testStart, recentSubscriptionStartDate: testStart, currentTransactionIndex: current)
}

/// A book holding `chains`, each indexed as its customer's own chain in its group when purchased.
func partTestBook(_ chains: [SubscriptionChain]) -> SubscriptionBook {
    var book = SubscriptionBook()
    for (position, chain) in chains.enumerated() {
        let purchased = chain.ownership == .purchased
        let (customer, group) = (chain.customer, chain.group)
        let key = book.append(chain, customerAt: position)
        if purchased { book.index(key, customer: customer, group: group) }
    }
    return book
}

/// The name of the Family Sharing rule `error` reports (``StoreError/family(_:)``), `nil` for any other error.
func familyRule(_ error: any Error) -> String? {
    guard case .family(let violation) = error as? StoreError else { return nil }
    return violation.rule
}

/// Alice's own chain in the group "family" of the part-rule tests' catalogues.
func alicesChain(_ store: SimulatedStore) throws -> ChainID {
    try #require(store.subscriptionBook.chain(of: "alice", inGroup: "family"))
}
