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
        for customer in scenario.customers { store.addCustomer(customer) }
        for (customer, storefront) in scenario.storefronts {
            // Before any purchase, so this cannot be refused.
            try? store.setStorefront(storefront, for: customer)
        }
        func stopped(_ error: ScenarioError) -> ScenarioRun {
            ScenarioRun(scenario: scenario, store: store, failures: [], stoppedBy: error)
        }
        if let family = scenario.family {
            do { try store.createFamily(organizer: family.organizer, members: family.members) } catch {
                return stopped(ScenarioError(file: scenario.file, location: family.location, message: "\(error)"))
            }
        }
        for entry in scenario.timeline {
            // Store events at this instant run first; then the entry (entries at one instant in file order). The
            // store's actions check their rule before they change anything, so a stopped run shows what led up to it.
            do throws(StoreError) { try store.advance(to: entry.at) } catch {
                return stopped(
                    ScenarioError(
                        file: scenario.file, location: entry.location,
                        message: "\(entry.action.name) at \(entry.at) cannot happen: \(error)"))
            }
            do throws(StoreError) { try perform(entry.action, on: &store) } catch {
                return stopped(
                    ScenarioError(
                        file: scenario.file, location: entry.location,
                        message: "\(entry.action.name) at \(entry.at) cannot happen: \(error)"))
            }
        }
        do { try store.advance(to: scenario.until) } catch {
            return stopped(ScenarioError(file: scenario.file, location: scenario.endLocation, message: "\(error)"))
        }
        let failures = scenario.expectations.flatMap {
            ExpectationChecker.check($0, against: store, file: scenario.file)
        }
        return ScenarioRun(scenario: scenario, store: store, failures: failures, stoppedBy: nil)
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
