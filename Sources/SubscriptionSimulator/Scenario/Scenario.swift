/// A scenario file, decoded and checked: everything needed to run it and judge the run.
public struct Scenario: Hashable, Sendable {
    public var name: String
    public var file: String
    public var start: Instant
    public var seed: UInt64
    public var app: AppConfiguration
    public var catalog: Catalog
    public var family: FamilySpec?
    public var timeline: [TimelineEntry]
    public var until: Instant
    public var expectations: [Expectation]
    /// Every customer the scenario knows: the family's people, then anyone a timeline entry names, in order.
    public var customers: [String]
    /// Customers given a storefront of their own (`customers:`); the others are in `app.storefront`.
    public var storefronts: [String: Storefront] = [:]
    /// Where the run's end is given (`until:`, else `start:`): errors after the last timeline entry, such as a run
    /// limit reached on the way to `until`, are reported there.
    public var endLocation = SourceLocation(line: 1, column: 1)
    /// The `delivery:` block: delivery faults written down as data, which `simctl run --deliver` makes on top of its
    /// chaos options (docs/scenario-format.md, "`delivery`"). Empty without the block.
    public var deliveryFaults: [DeliveryFault] = []
    /// `epoch:`: the store's identity epoch (rule ids-change-with-the-epoch, `Engine/IdentifierSource.swift`); 0, the
    /// default, gives the usual ids and UUIDs. `simctl check` writes the epoch its counterexample ran at, so that
    /// `simctl run` and `check --replay` of the file send exactly the notifications it found.
    public var epoch: UInt32 = 0
}

public struct FamilySpec: Hashable, Sendable {
    public var organizer: String
    public var members: [String]
    /// The `family:` key's value, where an error creating the family is reported.
    public var location = SourceLocation(line: 1, column: 1)
}

/// One timeline entry: an action at an instant.
public struct TimelineEntry: Hashable, Sendable {
    public var at: Instant
    public var action: ScenarioAction
    public var location: SourceLocation
}

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
    /// with `appData` to that customer (rule rescind-consent, `Store/SimulatedStore+Consent.swift`).
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

/// A check on the run.
public enum Expectation: Hashable, Sendable {
    /// Exact product sets per customer at an instant.
    case entitled(at: Instant, products: [String: [String]], location: SourceLocation)
    /// Subscription status codes (1–5) per customer and product at an instant.
    case status(at: Instant, codes: [String: [String: Int]], location: SourceLocation)
    /// The notifications one customer receives: all of them in order (`exactly`), or an ordered subsequence
    /// (`includes`). `customer` nil: the notifications about the app (`TEST`, `RENEWAL_EXTENSION` / `SUMMARY`).
    case notifications(
        customer: String?, mode: NotificationMatchMode, items: [ExpectedNotification], location: SourceLocation)
}

public enum NotificationMatchMode: String, Hashable, Sendable {
    case exactly
    case includes
}

/// One expected notification. An item without a subtype matches only a notification without one.
public struct ExpectedNotification: Hashable, Sendable {
    public var at: Instant
    public var type: NotificationType
    public var subtype: NotificationSubtype?
    /// Paths into the decoded payload (`data.`, `transaction.`, `renewal.`) and the expected value as written.
    public var fields: [ExpectedField]
    public var location: SourceLocation
}

public struct ExpectedField: Hashable, Sendable {
    public var path: String
    public var expected: String
    public var location: SourceLocation
}

/// An error in a scenario file, with the place it was found.
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation
    public var message: String
    /// Set when the error is in the value of a command-line option (such as `--until`), not in the file: the
    /// command line reports it as a usage error. `location` is then 0:0.
    public var commandLineOption: String?

    public init(file: String, location: SourceLocation, message: String) {
        self.file = file
        self.location = location
        // Text quoted from the input may hold control characters (a NUL in a key): shown escaped, never raw.
        self.message = SourceText.escapingControlCharacters(message)
    }

    /// `FILE:LINE:COLUMN`: where the error is (a stopped timeline's last line names it).
    public var place: String { "\(file):\(location.line):\(location.column)" }

    /// `FILE:LINE:COLUMN: error: MESSAGE`, the form compilers use, so editors can jump to it (a merge of parts reads
    /// the place back from it: `PartFile.location(ofStop:file:)`).
    public var description: String { "\(place): error: \(message)" }
}
