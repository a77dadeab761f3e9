/// Runs a scenario on a ``SimulatedStore`` and judges its expectations.
public enum ScenarioRunner {
    /// Runs the timeline, then advances to `until` (events exactly at `until` run). An action the rules forbid stops
    /// the run with an error at that timeline entry.
    public static func run(_ scenario: Scenario) throws(ScenarioError) -> ScenarioRun {
        let run = execute(scenario)
        if let stop = run.stoppedBy { throw stop }
        return run
    }

    /// Runs the scenario as far as the rules allow. When an action the rules forbid stops it, the result holds the
    /// store as it was just before that action (everything sent up to then) and ``ScenarioRun/stoppedBy`` the error
    /// at the timeline entry; expectations are then not judged. `simctl validate` and `simctl run` both call this.
    public static func execute(_ scenario: Scenario) -> ScenarioRun {
        var store = SimulatedStore(
            app: scenario.app, catalog: scenario.catalog, start: scenario.start, seed: scenario.seed)
        if let stop = drive(scenario, on: &store, stepwise: false, step: { _ in }) {
            return ScenarioRun(scenario: scenario, store: store, failures: [], stoppedBy: stop)
        }
        let failures = scenario.expectations.flatMap {
            ExpectationChecker.check($0, against: store, file: scenario.file)
        }
        return ScenarioRun(scenario: scenario, store: store, failures: failures, stoppedBy: nil)
    }

    /// Runs the scenario like ``execute(_:)``, handing `sink` what the store sends as the clock advances: after every
    /// instant at which store events ran and after every timeline entry, the notifications and entitlement changes
    /// since the previous call. With `retention` ``StoreRetention/liveState`` (the default here) the store then
    /// forgets them, so the run's memory is bounded by its live state, not by its length (docs/streaming.md).
    /// Expectations are judged as the run goes (``ExpectationTracker``), with the same verdicts and messages as
    /// ``execute(_:)``. The returned run's store holds only what `retention` keeps.
    ///
    /// With ``StoreRetention/liveState``, a scenario whose actions read the store's history (refunds and refund
    /// requests that name a transaction by number, restores: ``needsHistory(_:)``) runs with
    /// ``StoreRetention/everything`` instead: the output is the same, only the memory bound does not hold.
    public static func stream<Sink: RunSink>(
        _ scenario: Scenario, retention: StoreRetention = .liveState, into sink: inout Sink
    ) -> ScenarioRun {
        let kept = needsHistory(scenario) ? .everything : retention
        var store = SimulatedStore(
            app: scenario.app, catalog: scenario.catalog, start: scenario.start, seed: scenario.seed, retention: kept)
        if kept == .liveState { store.limits = .streaming }
        var tracker = ExpectationTracker(scenario)
        var judged = (notifications: 0, changes: 0)  // what the expectations have seen
        var handedOn = (notifications: 0, changes: 0)  // what the sink has (a store that keeps everything)
        // A live-state store hands its notifications and changes over to the sink in groups of at least this many
        // (the sink may take the arrays instead of copying them, `RunSink/receive(taking:_:)`), then drops them.
        let group = 512
        func handOver(_ store: inout SimulatedStore) {
            sink.receive(taking: &store.notifications, &store.entitlementChanges)
            store.discardEmitted()
            judged = (0, 0)
        }
        let stop = drive(scenario, on: &store, stepwise: true) { store in
            // Expectations are judged as the clock passes each instant. The slices are arguments only, not
            // variables: they must be gone before `discardEmitted()`, or the store's arrays would be shared then.
            if judged.notifications < store.notifications.count || judged.changes < store.entitlementChanges.count {
                tracker.receive(
                    store.notifications[judged.notifications...], store.entitlementChanges[judged.changes...])
                judged = (store.notifications.count, store.entitlementChanges.count)
            }
            if store.retention == .liveState {
                if store.notifications.count + store.entitlementChanges.count >= group { handOver(&store) }
            } else if handedOn != judged {
                sink.receive(
                    store.notifications[handedOn.notifications...], store.entitlementChanges[handedOn.changes...])
                handedOn = judged
            }
        }
        if store.retention == .liveState { handOver(&store) }  // the rest, also when the run stopped
        if let stop { return ScenarioRun(scenario: scenario, store: store, failures: [], stoppedBy: stop) }
        return ScenarioRun(scenario: scenario, store: store, failures: tracker.failures(), stoppedBy: nil)
    }

    /// Whether one of the scenario's actions reads the store's history, which ``StoreRetention/liveState`` does
    /// not keep: a refund, refund request or refund decision naming a transaction by number (counted over all the
    /// customer's transactions of the product) and restoring purchases (re-delivers past purchases); and a win-back
    /// offer with a `paidMonths` condition (rule win-back-conditions adds up the paid transactions of the last run
    /// of the subscription).
    public static func needsHistory(_ scenario: Scenario) -> Bool {
        let countsPaidMonths = scenario.catalog.products.contains { product in
            product.offers.contains { $0.winBackConditions?.paidMonths != nil }
        }
        if countsPaidMonths { return true }
        return scenario.timeline.contains { entry in
            switch entry.action {
            case .refundTransaction, .requestRefund, .sendConsumptionInformation, .decideRefund, .reverseRefund,
                .restorePurchases:
                return true
            default:
                return false
            }
        }
    }

    /// The run itself: store events and timeline entries in order up to `until`. When `stepwise`, the clock
    /// advances one event instant at a time and `step` is called after each instant and after each timeline entry; the
    /// events run in the same order either way. Returns the error that stopped the run, if any.
    static func drive(
        _ scenario: Scenario, on store: inout SimulatedStore, stepwise: Bool, step: (inout SimulatedStore) -> Void
    ) -> ScenarioError? {
        let purchases = scenario.timeline.reduce(0) { count, entry in
            if case .purchase = entry.action { count + 1 } else { count }
        }
        store.reserveCapacity(customers: scenario.customers.count, subscriptions: purchases)
        for customer in scenario.customers { store.addCustomer(customer) }
        for (customer, storefront) in scenario.storefronts {
            // Before any purchase, so this cannot be refused.
            try? store.setStorefront(storefront, for: customer)
        }
        if let family = scenario.family {
            do { try store.createFamily(organizer: family.organizer, members: family.members) } catch {
                return ScenarioError(file: scenario.file, location: family.location, message: "\(error)")
            }
        }
        func advance(_ store: inout SimulatedStore, to target: Instant) throws(StoreError) {
            guard stepwise else { return try store.advance(to: target) }
            step(&store)
            while let next = store.nextEventInstant, next <= target, next >= store.now {
                try store.advance(to: next)
                step(&store)
            }
            try store.advance(to: target)
            step(&store)
        }
        for entry in scenario.timeline {
            // Store events at this instant run first; then the entry (entries at one instant in file order). The
            // store's actions check their rule before they change anything, so a stopped run shows what led up to it.
            do throws(StoreError) {
                try advance(&store, to: entry.at)
                try perform(entry.action, on: &store)
            } catch {
                step(&store)
                return ScenarioError(
                    file: scenario.file, location: entry.location,
                    message: "\(entry.action.name) at \(entry.at) cannot happen: \(error)")
            }
            step(&store)
        }
        do { try advance(&store, to: scenario.until) } catch {
            step(&store)
            return ScenarioError(file: scenario.file, location: scenario.endLocation, message: "\(error)")
        }
        return nil
    }

    static func perform(_ action: ScenarioAction, on store: inout SimulatedStore) throws(StoreError) {
        switch action {
        case .purchase(let customer, let product, let token):
            try store.purchase(product, by: customer, appAccountToken: token)
        case .cancel(let customer, let product): try store.cancel(product, by: customer)
        case .resume(let customer, let product): try store.resume(product, by: customer)
        case .stopSharing(let customer, let product): try store.stopSharing(product, by: customer)
        case .startSharing(let customer, let product): try store.startSharing(product, by: customer)
        case .refund(let customer, let product, let reason): try store.refund(product, of: customer, reason: reason)
        case .failBilling(let customer): store.failBilling(for: customer)
        case .fixBilling(let customer): try store.fixBilling(for: customer)
        case .joinFamily(let customer): try store.joinFamily(customer)
        case .leaveFamily(let customer): try store.leaveFamily(customer)
        case .restorePurchases(let customer): try store.restorePurchases(for: customer)
        case .shareWithFamily(let customer, let enabled): try store.setShareWithFamily(enabled, for: customer)
        case .makeFamilyShareable(let product): try store.makeFamilyShareable(product)
        case .removeFromSale(let product): try store.removeFromSale(product)
        case .restoreToSale(let product): try store.restoreToSale(product)
        case .changePlan(let customer, let product): try store.changePlan(to: product, by: customer)
        // MARK: offers and price increases
        case .redeemOffer(let customer, let product, let offer):
            try store.redeemOffer(offer, for: product, by: customer)
        case .raisePrice(let product, let price, let storefront, let consent):
            try store.raisePrice(product, to: price, in: storefront, consentRequired: consent)
        case .consentToPriceIncrease(let customer, let product):
            try store.consentToPriceIncrease(product, by: customer)
        // MARK: extensions-refunds
        case .extendRenewalDate(let customer, let product, let days, let reason):
            try store.extendRenewalDate(product, for: customer, days: days, reason: reason)
        case .refundTransaction(let customer, let product, let transaction, let amount, let reason):
            try store.refund(product, of: customer, transaction: transaction, amount: amount, reason: reason)
        case .requestRefund(let customer, let product, let transaction, let reason):
            try store.requestRefund(product, by: customer, transaction: transaction, reason: reason)
        case .sendConsumptionInformation(let customer, let product, let transaction, let consented, let preference):
            try store.sendConsumptionInformation(
                product, of: customer, transaction: transaction, customerConsented: consented,
                refundPreference: preference)
        case .decideRefund(let customer, let product, let transaction, let decision, let reason):
            try store.decideRefund(product, of: customer, transaction: transaction, decision, reason: reason)
        case .reverseRefund(let customer, let product, let transaction):
            try store.reverseRefund(product, of: customer, transaction: transaction)
        case .openApp(let customer): store.openApp(for: customer)
        case .requestTestNotification: store.requestTestNotification()
        case .extendRenewalDatesForAllActiveSubscribers(let product, let days, let reason, let request, let codes):
            _ = try store.extendRenewalDatesForAllActiveSubscribers(
                product, days: days, reason: reason, requestIdentifier: request, storefrontCountryCodes: codes)
        }
    }
}

/// Receives a streamed run's output (``ScenarioRunner/stream(_:retention:into:)``): called with what the store sent
/// since the previous call, in the order sent; every notification's instant is at or after the previous ones.
public protocol RunSink {
    mutating func receive(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>)

    /// The same, from a store that drops what it hands on (``StoreRetention/liveState``): the sink may take the
    /// arrays' contents, leaving them in any state (the caller empties them afterwards). By default it receives
    /// them as slices.
    mutating func receive(taking notifications: inout [SentNotification], _ changes: inout [EntitlementChange])
}

extension RunSink {
    public mutating func receive(taking notifications: inout [SentNotification], _ changes: inout [EntitlementChange]) {
        guard !notifications.isEmpty || !changes.isEmpty else { return }
        receive(notifications[...], changes[...])
    }
}

/// A sink that hands everything to two sinks (standard output and a fixture folder, say).
public struct PairedSinks<First: RunSink, Second: RunSink>: RunSink {
    public var first: First
    public var second: Second

    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        first.receive(notifications, changes)
        second.receive(notifications, changes)
    }
}

/// The result of running a scenario.
public struct ScenarioRun: Sendable {
    public var scenario: Scenario
    /// The store at `until`.
    public var store: SimulatedStore
    /// Expectations that did not hold, in file order. Empty means the run passed.
    public var failures: [ExpectationFailure]
    /// The rule that stopped the run before `until` (see ``ScenarioRunner/execute(_:)``); nil when it ran to the end.
    public var stoppedBy: ScenarioError?

    public init(
        scenario: Scenario, store: SimulatedStore, failures: [ExpectationFailure], stoppedBy: ScenarioError? = nil
    ) {
        self.scenario = scenario
        self.store = store
        self.failures = failures
        self.stoppedBy = stoppedBy
    }

    /// Ran to the end and every expectation holds.
    public var passed: Bool { failures.isEmpty && stoppedBy == nil }
}

/// One expectation that did not hold: where it is, what was expected, what happened.
public struct ExpectationFailure: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation
    public var message: String

    public var description: String { "\(file):\(location.line):\(location.column): expectation failed: \(message)" }
}
