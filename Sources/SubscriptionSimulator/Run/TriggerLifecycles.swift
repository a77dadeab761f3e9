/// `simctl trigger KIND`: for every notification kind simctl emits, the smallest lifecycle that ends in it, written
/// as an ordinary scenario file (``TriggerScenario/yaml``) on a built-in app and catalogue (or a scenario's own). The
/// lifecycles use only the scenario vocabulary (docs/scenario-format.md); each names the rule behind its last
/// notification (docs/lifecycle.md) and Apple's page for the kind.
public enum TriggerLifecycles {
    /// One kind's lifecycle.
    public struct Lifecycle: Sendable {
        public var type: NotificationType
        public var subtype: NotificationSubtype?
        /// One line: what happens.
        public var summary: String
        /// The rule that makes the notification (docs/lifecycle.md) and where Apple describes it.
        public var source: String
        /// What the lifecycle needs besides the subscription (or one-time product) it is about.
        var needs: Set<Need> = []
        /// The timeline (entries of `- at: ...` lines) for a context.
        var timeline: @Sendable (Context) -> [String]

        /// `TYPE` or `TYPE/SUBTYPE`, as `simctl trigger` takes it.
        public var kind: String { type.rawValue + (subtype.map { "/" + $0.rawValue } ?? "") }
        /// Whether the notification is about the app rather than a customer (`TEST`, `RENEWAL_EXTENSION/SUMMARY`).
        public var isAboutTheApp: Bool { type == .test || subtype == .summary }
    }

    /// What a lifecycle needs from the catalogue and app.
    enum Need: Hashable, Sendable {
        /// A product of the subscription's group one level lower (larger `level`).
        case lower
        /// One level higher (smaller `level`).
        case higher
        /// A promotional offer of the subscription's product.
        case promotionalOffer
        /// A consumable, non-consumable or non-renewing product instead of a subscription.
        case oneTimeProduct
        /// A billing grace period (16 days when the app has none).
        case grace
        /// No billing grace period (turned off when the app has one).
        case noGrace
        /// A family: the customer is a member, `family-organizer` the purchaser.
        case family
    }

    /// What a timeline is written with: names and times (offsets from `start`, in the scenario time syntax).
    struct Context: Sendable {
        var customer: String
        var organizer: String
        var product: String
        var lower: String = ""
        var higher: String = ""
        var offer: String = ""
        /// Turn Family Sharing on first (the product is not shareable).
        var makeShareable = false
        /// The end of the customer's first period (the introductory offer's, when the product has one).
        var firstEnd: String
        /// One day after ``firstEnd``.
        var dayAfterFirstEnd: String
        /// The family delay plus one day: after the member's share arrived.
        var afterShare: String
        /// A higher price for `raisePrice` (one more unit of the currency), and the storefront it applies to.
        var raisedPrice: String
        var storefront: String?

        /// `- at: T` and the action line.
        func at(_ time: String, _ action: String) -> String { "  - at: \(time)\n    \(action)" }
        var cp: String { "customer: \(customer), product: \(product)" }
    }

    /// Every kind simctl emits, in the order of Apple's `notificationType` list.
    public static let all: [Lifecycle] = [
        Lifecycle(
            type: .subscribed, subtype: .initialBuy, summary: "a first purchase of the subscription",
            source: "docs/lifecycle.md Introductory offer; Apple: notificationType SUBSCRIBED, subtype INITIAL_BUY",
            timeline: { c in [c.at("0", "purchase: { \(c.cp) }")] }),
        Lifecycle(
            type: .subscribed, subtype: .resubscribe,
            summary: "bought, turned off on day 1, expired, bought again a day after the expiry",
            source: "docs/lifecycle.md Resubscribe; Apple: notificationType SUBSCRIBED, subtype RESUBSCRIBE",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "cancel: { \(c.cp) }"),
                    c.at(c.dayAfterFirstEnd, "purchase: { \(c.cp) }"),
                ]
            }),
        Lifecycle(
            type: .didRenew, subtype: nil, summary: "bought, renewed at the end of the first period",
            source: "docs/lifecycle.md Renewal instant (A-1); Apple: notificationType DID_RENEW",
            timeline: { c in [c.at("0", "purchase: { \(c.cp) }")] }),
        Lifecycle(
            type: .didRenew, subtype: .billingRecovery,
            summary: "bought, billing fails on day 1, the renewal fails, billing fixed a day later: recovered",
            source: "docs/lifecycle.md Recovery after grace or without grace; Apple: DID_RENEW, BILLING_RECOVERY",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "failBilling: { customer: \(c.customer) }"),
                    c.at(c.dayAfterFirstEnd, "fixBilling: { customer: \(c.customer) }"),
                ]
            }),
        Lifecycle(
            type: .didFailToRenew, subtype: nil,
            summary: "bought, billing fails on day 1, the renewal fails (no grace period): billing retry",
            source: "docs/lifecycle.md Billing failure; Apple: notificationType DID_FAIL_TO_RENEW", needs: [.noGrace],
            timeline: { c in
                [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "failBilling: { customer: \(c.customer) }")]
            }),
        Lifecycle(
            type: .didFailToRenew, subtype: .gracePeriod,
            summary: "bought, billing fails on day 1, the renewal fails in a grace period",
            source: "docs/lifecycle.md Billing failure, gracePeriod(...); Apple: DID_FAIL_TO_RENEW, GRACE_PERIOD",
            needs: [.grace],
            timeline: { c in
                [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "failBilling: { customer: \(c.customer) }")]
            }),
        Lifecycle(
            type: .gracePeriodExpired, subtype: nil,
            summary: "bought, billing fails, the renewal fails in a grace period that runs out",
            source: "docs/lifecycle.md End of grace; Apple: notificationType GRACE_PERIOD_EXPIRED", needs: [.grace],
            timeline: { c in
                [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "failBilling: { customer: \(c.customer) }")]
            }),
        Lifecycle(
            type: .expired, subtype: .voluntary, summary: "bought, turned off on day 1, expired at the period's end",
            source: "docs/lifecycle.md Voluntary expiry; Apple: notificationType EXPIRED, subtype VOLUNTARY",
            timeline: { c in [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "cancel: { \(c.cp) }")] }),
        Lifecycle(
            type: .expired, subtype: .billingRetry,
            summary: "bought, billing fails on day 1, never fixed: billing retry ends after 60 days",
            source: "docs/lifecycle.md Retry exhausted; Apple: notificationType EXPIRED, subtype BILLING_RETRY",
            timeline: { c in
                [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "failBilling: { customer: \(c.customer) }")]
            }),
        Lifecycle(
            type: .expired, subtype: .priceIncrease,
            summary: "bought, a price increase needing consent on day 1, no consent: expired at the renewal",
            source: "docs/lifecycle.md Offers and price increases; Apple: EXPIRED, subtype PRICE_INCREASE",
            timeline: { c in [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", raise(c))] }),
        Lifecycle(
            type: .expired, subtype: .productNotForSale,
            summary: "bought, removed from sale on day 1, never back: expired 60 days after the failed renewal",
            source: "docs/lifecycle.md Product removed from sale (A-8); Apple: EXPIRED, PRODUCT_NOT_FOR_SALE",
            timeline: { c in
                [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "removeFromSale: { product: \(c.product) }")]
            }),
        Lifecycle(
            type: .didChangeRenewalStatus, subtype: .autoRenewEnabled,
            summary: "bought, auto-renew turned off on day 1 and on again on day 2",
            source: "docs/scenario-format.md resume; Apple: DID_CHANGE_RENEWAL_STATUS, AUTO_RENEW_ENABLED",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "cancel: { \(c.cp) }"),
                    c.at("2d", "resume: { \(c.cp) }"),
                ]
            }),
        Lifecycle(
            type: .didChangeRenewalStatus, subtype: .autoRenewDisabled,
            summary: "bought, auto-renew turned off on day 1",
            source: "docs/lifecycle.md Voluntary expiry; Apple: DID_CHANGE_RENEWAL_STATUS, AUTO_RENEW_DISABLED",
            timeline: { c in [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "cancel: { \(c.cp) }")] }),
        Lifecycle(
            type: .didChangeRenewalPref, subtype: .upgrade,
            summary: "a lower level of the group bought, moved up to the product on day 1 (at once)",
            source: "docs/lifecycle.md plan-change-upgrade; Apple: DID_CHANGE_RENEWAL_PREF, subtype UPGRADE",
            needs: [.lower],
            timeline: { c in
                [
                    c.at("0", "purchase: { customer: \(c.customer), product: \(c.lower) }"),
                    c.at("1d", "changePlan: { \(c.cp) }"),
                ]
            }),
        Lifecycle(
            type: .didChangeRenewalPref, subtype: .downgrade,
            summary: "bought, a lower level of the group chosen on day 1 (from the next renewal)",
            source: "docs/lifecycle.md plan-change-downgrade; Apple: DID_CHANGE_RENEWAL_PREF, subtype DOWNGRADE",
            needs: [.lower],
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"),
                    c.at("1d", "changePlan: { customer: \(c.customer), product: \(c.lower) }"),
                ]
            }),
        Lifecycle(
            type: .didChangeRenewalPref, subtype: nil,
            summary: "bought, a downgrade chosen on day 1, the current product chosen again on day 2",
            source: "docs/lifecycle.md Cancel a pending downgrade; Apple: DID_CHANGE_RENEWAL_PREF (no subtype)",
            needs: [.lower],
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"),
                    c.at("1d", "changePlan: { customer: \(c.customer), product: \(c.lower) }"),
                    c.at("2d", "changePlan: { \(c.cp) }"),
                ]
            }),
        Lifecycle(
            type: .offerRedeemed, subtype: nil, summary: "bought, a promotional offer of the product redeemed on day 1",
            source: "docs/lifecycle.md offer-notification-choice; Apple: notificationType OFFER_REDEEMED",
            needs: [.promotionalOffer],
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"),
                    c.at("1d", "redeemOffer: { \(c.cp), offer: \(c.offer) }"),
                ]
            }),
        Lifecycle(
            type: .offerRedeemed, subtype: .upgrade,
            summary: "a lower level bought, a promotional offer of the product (higher) redeemed on day 1",
            source: "docs/lifecycle.md offer-notification-choice; Apple: OFFER_REDEEMED, subtype UPGRADE",
            needs: [.promotionalOffer, .lower],
            timeline: { c in
                [
                    c.at("0", "purchase: { customer: \(c.customer), product: \(c.lower) }"),
                    c.at("1d", "redeemOffer: { \(c.cp), offer: \(c.offer) }"),
                ]
            }),
        Lifecycle(
            type: .offerRedeemed, subtype: .downgrade,
            summary: "a higher level bought, a promotional offer of the product (lower) redeemed on day 1",
            source: "docs/lifecycle.md offer-notification-choice; Apple: OFFER_REDEEMED, subtype DOWNGRADE",
            needs: [.promotionalOffer, .higher],
            timeline: { c in
                [
                    c.at("0", "purchase: { customer: \(c.customer), product: \(c.higher) }"),
                    c.at("1d", "redeemOffer: { \(c.cp), offer: \(c.offer) }"),
                ]
            }),
        Lifecycle(
            type: .priceIncrease, subtype: .pending, summary: "bought, a price increase needing consent on day 1",
            source: "docs/lifecycle.md Offers and price increases; Apple: PRICE_INCREASE, subtype PENDING",
            timeline: { c in [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", raise(c))] }),
        Lifecycle(
            type: .priceIncrease, subtype: .accepted,
            summary: "bought, a price increase needing consent on day 1, consent on day 2",
            source: "docs/lifecycle.md Offers and price increases; Apple: PRICE_INCREASE, subtype ACCEPTED",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"), c.at("1d", raise(c)),
                    c.at("2d", "consentToPriceIncrease: { \(c.cp) }"),
                ]
            }),
        Lifecycle(
            type: .refund, subtype: nil, summary: "bought, Apple grants a full refund on day 1",
            source: "docs/lifecycle.md Refund; Apple: notificationType REFUND",
            timeline: { c in [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "refund: { \(c.cp) }")] }),
        Lifecycle(
            type: .refundDeclined, subtype: nil,
            summary: "bought, a refund requested on day 1, declined by Apple on day 2",
            source: "docs/scenario-format.md decideRefund; Apple: notificationType REFUND_DECLINED",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"),
                    c.at("1d", "requestRefund: { \(c.cp), reason: UNSATISFIED_WITH_PURCHASE }"),
                    c.at("2d", "decideRefund: { \(c.cp), decision: REFUND_DECLINED }"),
                ]
            }),
        Lifecycle(
            type: .refundReversed, subtype: nil,
            summary: "bought, refunded on day 1, the refund reversed on day 2",
            source: "docs/scenario-format.md reverseRefund; Apple: notificationType REFUND_REVERSED",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "refund: { \(c.cp) }"),
                    c.at("2d", "reverseRefund: { \(c.cp) }"),
                ]
            }),
        Lifecycle(
            type: .consumptionRequest, subtype: nil, summary: "bought, a refund requested on day 1",
            source: "docs/scenario-format.md requestRefund; Apple: notificationType CONSUMPTION_REQUEST",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"),
                    c.at("1d", "requestRefund: { \(c.cp), reason: UNSATISFIED_WITH_PURCHASE }"),
                ]
            }),
        Lifecycle(
            type: .renewalExtended, subtype: nil, summary: "bought, the renewal date extended by 7 days on day 1",
            source: "docs/scenario-format.md extendRenewalDate; Apple: notificationType RENEWAL_EXTENDED",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"),
                    c.at("1d", "extendRenewalDate: { \(c.cp), days: 7, reason: 3 }"),
                ]
            }),
        Lifecycle(
            type: .renewalExtension, subtype: .summary,
            summary: "bought, every active subscriber of the product extended by 7 days on day 1: the summary",
            source:
                "docs/scenario-format.md extendRenewalDatesForAllActiveSubscribers; Apple: RENEWAL_EXTENSION, SUMMARY",
            timeline: { c in [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", massExtension(c))] }),
        Lifecycle(
            type: .renewalExtension, subtype: .failure,
            summary: "bought, a mass extension on day 2 fails for this subscription",
            source: "docs/scenario-format.md failRenewalExtension [assumed]; Apple: RENEWAL_EXTENSION, FAILURE",
            timeline: { c in
                [
                    c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "failRenewalExtension: { \(c.cp) }"),
                    c.at("2d", massExtension(c)),
                ]
            }),
        Lifecycle(
            type: .rescindConsent, subtype: nil,
            summary: "bought, the customer's parent or guardian withdraws consent on day 1 (appData, no data)",
            source:
                "docs/lifecycle.md Consent (rule rescind-consent); Apple: notificationType RESCIND_CONSENT, appData",
            timeline: { c in
                [c.at("0", "purchase: { \(c.cp) }"), c.at("1d", "rescindConsent: { customer: \(c.customer) }")]
            }
        ),
        Lifecycle(
            type: .revoke, subtype: nil,
            summary: "the family organizer buys, the customer (a member) gets the share, the organizer is refunded",
            source: "docs/family-sharing.md (refund revokes the members' shares); Apple: notificationType REVOKE",
            needs: [.family],
            timeline: { c in
                var lines: [String] = []
                if c.makeShareable { lines.append(c.at("0", "makeFamilyShareable: { product: \(c.product) }")) }
                lines.append(c.at("0", "purchase: { customer: \(c.organizer), product: \(c.product) }"))
                lines.append(c.at(c.afterShare, "refund: { customer: \(c.organizer), product: \(c.product) }"))
                return lines
            }),
        Lifecycle(
            type: .oneTimeCharge, subtype: nil, summary: "a consumable (or other one-time product) bought",
            source: "docs/lifecycle.md One-time purchases; Apple: notificationType ONE_TIME_CHARGE",
            needs: [.oneTimeProduct], timeline: { c in [c.at("0", "purchase: { \(c.cp) }")] }),
        Lifecycle(
            type: .test, subtype: nil, summary: "the developer requests a test notification",
            source: "docs/scenario-format.md requestTestNotification; Apple: Request a Test Notification, TEST",
            timeline: { c in [c.at("0", "requestTestNotification: {}")] }),
    ]

    static func raise(_ c: Context) -> String {
        let storefront = c.storefront.map { ", storefront: \($0)" } ?? ""
        return "raisePrice: { product: \(c.product)\(storefront), price: \(c.raisedPrice), consentRequired: true }"
    }

    static func massExtension(_ c: Context) -> String {
        "extendRenewalDatesForAllActiveSubscribers: { product: \(c.product), days: 7, reason: 3, "
            + "requestIdentifier: 00000000-0000-4000-8000-000000000001 }"
    }

    /// Every kind, `TYPE` or `TYPE/SUBTYPE`.
    public static var kinds: [String] { all.map(\.kind) }

    /// The lifecycle of `text`, read case-insensitively (`refund`, `did_fail_to_renew/grace_period`); the error says
    /// which kinds there are, with the closest one for a near miss.
    public static func lifecycle(named text: String) throws(TriggerError) -> Lifecycle {
        let wanted = text.uppercased()
        if let found = all.first(where: { $0.kind == wanted }) { return found }
        var message = "unknown notification kind '\(text)'"
        if let close = Suggestions.closest(to: wanted, among: kinds) {
            message += "; did you mean '\(close)'?"
        } else if let type = NotificationType(rawValue: wanted.split(separator: "/").first.map(String.init) ?? "") {
            let ofType = all.filter { $0.type == type }.map(\.kind)
            message +=
                ofType.isEmpty
                ? "; simctl does not emit \(type.rawValue)"
                : "; \(type.rawValue) is one of \(ofType.joined(separator: ", "))"
        }
        message += " (simctl trigger --list shows every kind)"
        throw TriggerError(message: message)
    }
}

/// A kind or an option `simctl trigger` cannot use: the whole message.
public struct TriggerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// What makes a trigger's lifecycle the user's own (`simctl trigger` options); nil keeps the app's or catalogue's.
public struct TriggerOptions: Hashable, Sendable {
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: SimulatedEnvironment?
    /// With the built-in catalogue: the id its product gets; with a scenario's: the product to use.
    public var product: String?
    public var customer: String = "alice"
    public var storefront: String?
    public var seed: UInt64 = 0

    public init() {}
}

/// A kind's lifecycle written out as a scenario file, and the notification it ends in.
public struct TriggerScenario: Sendable {
    public var lifecycle: TriggerLifecycles.Lifecycle
    /// The scenario file (`simctl run` reads it back as ``scenario``).
    public var yaml: String
    public var scenario: Scenario
    /// The file name errors and the timeline show.
    public static func fileName(_ lifecycle: TriggerLifecycles.Lifecycle) -> String {
        "trigger-" + lifecycle.kind.lowercased().replacingOccurrences(of: "/", with: "-") + ".yaml"
    }

    /// The start of every trigger lifecycle.
    public static let start = "2026-03-01T09:00:00Z"

    /// The built-in app and catalogue: an app in `Sandbox` (signed by the default test chain, so a verifying
    /// backend can check it against `simctl certs export`'s root), three levels of a monthly subscription (the
    /// middle one with a promotional offer) and a consumable.
    public static let builtIn = """
        name: simctl trigger's app and catalogue
        start: \(start)
        app:
          bundleId: com.example.app
          appAppleId: 1234567890
          environment: Sandbox
        products:
          - { id: com.example.app.monthly, type: autoRenewable, group: pro, level: 2, period: P1M, price: 4.99, offers: [{ id: promo.halfoff, type: promotional, mode: payAsYouGo, period: P1M, periods: 2, price: 2.49 }] }
          - { id: com.example.app.basic.monthly, type: autoRenewable, group: pro, level: 3, period: P1M, price: 2.99 }
          - { id: com.example.app.premium.monthly, type: autoRenewable, group: pro, level: 1, period: P1M, price: 9.99 }
          - { id: com.example.app.coins, type: consumable, price: 0.99 }
        timeline: []

        """

    /// The lifecycle of `lifecycle` on `base`'s app and catalogue (the built-in one when nil), with `options`.
    /// The scenario ends at the instant of the kind's first notification to the customer (or about the app).
    public static func make(
        _ lifecycle: TriggerLifecycles.Lifecycle, options: TriggerOptions = .init(), base: Scenario? = nil
    ) throws(TriggerError) -> TriggerScenario {
        let builtInBase: Scenario
        if let base {
            builtInBase = base
        } else {
            do throws(ScenarioError) {
                builtInBase = try ScenarioDecoder(file: "simctl-trigger-built-in.yaml").decode(builtIn)
            } catch { preconditionFailure("the built-in trigger catalogue does not decode: \(error)") }
        }
        let isBuiltIn = base == nil
        var app = builtInBase.app
        if let id = options.bundleId { app.bundleId = id }
        if let id = options.appAppleId { app.appAppleId = id }
        if let environment = options.environment { app.environment = environment }
        if lifecycle.needs.contains(.grace) && app.gracePeriod == .off {
            app.gracePeriod = .sixteenDays
            app.graceEligibility = .allRenewals
        }
        if lifecycle.needs.contains(.noGrace) { app.gracePeriod = .off }
        var products = builtInBase.catalog.products
        var subject = try subjectIndex(lifecycle, products: products, options: options, isBuiltIn: isBuiltIn)
        if isBuiltIn, let id = options.product {
            guard !id.isEmpty else { throw TriggerError(message: "option '--product' needs a product id") }
            // The built-in product that already has this id gives way.
            if let clash = products.firstIndex(where: { $0.id == id }), clash != subject {
                products.remove(at: clash)
                if clash < subject { subject -= 1 }
            }
            products[subject].id = id
        }
        // The built-in catalogue is priced in USD: in a storefront of another currency each product costs the same
        // figure in that currency [assumed], so `--storefront FRA` needs no catalogue of its own.
        if isBuiltIn, let storefront = options.storefront,
            let currency = Storefronts.currency(countryCode: storefront)
        {
            for index in products.indices
            where products[index].currency != currency && products[index].prices[storefront] == nil {
                products[index].prices[storefront] = products[index].price
            }
        }
        let product = products[subject]
        var used: [Product] = [product]
        let start = builtInBase.start
        let customer = options.customer
        guard !customer.isEmpty else { throw TriggerError(message: "option '--customer' needs a name") }
        let organizer = customer == "family-organizer" ? "family-purchaser" : "family-organizer"
        func time(_ duration: CalendarDuration, plusDays days: Int = 0) -> String {
            let instant = CalendarMath.add(duration, to: start).adding(milliseconds: Int64(days) * 86_400_000)
            return ScenarioYAMLWriter.time(instant, from: start)
        }
        let first = product.introOffer?.totalDuration ?? product.period?.duration ?? .months(1)
        var context = TriggerLifecycles.Context(
            customer: customer, organizer: organizer, product: product.id, firstEnd: time(first),
            dayAfterFirstEnd: time(first, plusDays: 1), afterShare: time(app.familyDelay, plusDays: 1),
            raisedPrice: "", storefront: options.storefront)
        let current = options.storefront.flatMap { product.prices[$0] } ?? product.price
        context.raisedPrice = Price(milliunits: current.milliunits + 1000).description
        func neighbour(_ higher: Bool) throws(TriggerError) -> Product {
            let group = products.filter {
                $0.isSubscription && $0.group == product.group
                    && (higher ? $0.level < product.level : $0.level > product.level)
            }
            let nearest = higher ? group.max { $0.level < $1.level } : group.min { $0.level < $1.level }
            guard let nearest else {
                throw TriggerError(
                    message:
                        "\(lifecycle.kind) needs a product \(higher ? "above" : "below") \(product.id) in its group "
                        + "(level \(higher ? "<" : ">") \(product.level)); the catalogue has none")
            }
            return nearest
        }
        if lifecycle.needs.contains(.lower) {
            let lower = try neighbour(false)
            context.lower = lower.id
            used.append(lower)
        }
        if lifecycle.needs.contains(.higher) {
            let higher = try neighbour(true)
            context.higher = higher.id
            used.append(higher)
        }
        if lifecycle.needs.contains(.promotionalOffer) {
            guard let offer = product.offers.first(where: { $0.type == .promotional })?.identifier else {
                throw TriggerError(
                    message: "\(lifecycle.kind) needs a promotional offer of \(product.id); the catalogue has none")
            }
            context.offer = offer
        }
        if lifecycle.needs.contains(.family) { context.makeShareable = !product.familyShareable }
        // Pass one runs well past the lifecycle (60 days of billing retry after a renewal); pass two ends at the
        // kind's first notification.
        let written = isBuiltIn ? products.filter { p in used.contains { $0.id == p.id } } : products
        func yaml(until: String) -> String {
            var out = ScenarioYAMLWriter.Lines()
            out.add("# simctl trigger \(lifecycle.kind): \(lifecycle.summary).")
            out.add("# Source: \(lifecycle.source).")
            out.add("name: \(ScenarioYAMLWriter.scalar("trigger \(lifecycle.kind): \(lifecycle.summary)"))")
            out.add("start: \(start)")
            out.add("seed: \(options.seed)")
            ScenarioYAMLWriter.writeApp(app, to: &out)
            out.add("products:")
            for p in written { ScenarioYAMLWriter.writeProduct(p, start: start, to: &out) }
            if let storefront = options.storefront {
                out.add("customers:")
                out.add(
                    "  \(ScenarioYAMLWriter.scalar(customer)): { storefront: \(ScenarioYAMLWriter.scalar(storefront)) }"
                )
            }
            if lifecycle.needs.contains(.family) {
                out.add(
                    "family: { organizer: \(organizer), members: [\(ScenarioYAMLWriter.scalar(customer))] }")
            }
            out.add("timeline:")
            for line in lifecycle.timeline(context) { out.add(line) }
            out.add("until: \(until)")
            return out.text
        }
        let file = fileName(lifecycle)
        func decode(_ text: String) throws(TriggerError) -> Scenario {
            do throws(ScenarioError) { return try ScenarioDecoder(file: file).decode(text) } catch {
                throw TriggerError(message: "\(error)")
            }
        }
        let horizon = time(first, plusDays: 100)
        let probe = try decode(yaml(until: horizon))
        let run: ScenarioRun
        do throws(ScenarioError) { run = try ScenarioRunner.run(probe) } catch {
            throw TriggerError(message: "\(error)")
        }
        guard let chosen = chosenIndex(lifecycle, in: run.store.notifications, customer: customer) else {
            throw TriggerError(
                message:
                    "the lifecycle of \(lifecycle.kind) sends no \(lifecycle.kind) on this app and catalogue "
                    + "(simctl trigger \(lifecycle.kind) --print-scenario shows it)")
        }
        let text = yaml(until: ScenarioYAMLWriter.time(run.store.notifications[chosen].instant, from: start))
        return TriggerScenario(lifecycle: lifecycle, yaml: text, scenario: try decode(text))
    }

    /// The index of the kind's first notification to `customer` (or about the app) in `notifications`.
    public static func chosenIndex(
        _ lifecycle: TriggerLifecycles.Lifecycle, in notifications: [SentNotification], customer: String
    ) -> Int? {
        notifications.firstIndex {
            $0.type == lifecycle.type && $0.subtype == lifecycle.subtype
                && (lifecycle.isAboutTheApp ? $0.recipient == nil : $0.recipient == customer)
        }
    }

    /// The product the lifecycle is about: `--product` (a scenario's) or the first that fits.
    static func subjectIndex(
        _ lifecycle: TriggerLifecycles.Lifecycle, products: [Product], options: TriggerOptions, isBuiltIn: Bool
    ) throws(TriggerError) -> Int {
        let oneTime = lifecycle.needs.contains(.oneTimeProduct)
        func fits(_ p: Product) -> Bool { oneTime ? !p.isSubscription : p.isSubscription }
        let what =
            oneTime ? "a one-time product (consumable, nonConsumable or nonRenewing)" : "an autoRenewable product"
        if !isBuiltIn, let id = options.product {
            guard let index = products.firstIndex(where: { $0.id == id }) else {
                let hint =
                    Suggestions.closest(to: id, among: products.map(\.id)).map { "; did you mean '\($0)'?" } ?? ""
                throw TriggerError(
                    message: "option '--product': the scenario's catalogue has no product '\(id)'\(hint)")
            }
            guard fits(products[index]) else {
                throw TriggerError(message: "\(lifecycle.kind) needs \(what); '\(id)' is not one")
            }
            return index
        }
        // The built-in catalogue's first subscription is the middle level (it has neighbours both ways).
        guard let index = products.firstIndex(where: fits) else {
            throw TriggerError(message: "\(lifecycle.kind) needs \(what); the scenario's catalogue has none")
        }
        return index
    }
}
