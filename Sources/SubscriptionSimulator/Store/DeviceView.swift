/// What an app using StoreKit on the customer's device observes (reference §7).
public struct DeviceEvent: Hashable, Sendable {
    public var instant: Instant
    public var customer: String
    public var kind: Kind

    public enum Kind: Hashable, Sendable {
        /// A transaction arriving in `Transaction.updates` (StoreKit 2) / `paymentQueue(_:updatedTransactions:)`.
        case transaction(TransactionUpdate, TransactionRecord)
        /// `Product.SubscriptionInfo.RenewalState` of a subscription changed.
        case renewalState(productId: String, RenewalState)
        /// Original StoreKit: `paymentQueue(_:didRevokeEntitlementsForProductIdentifiers:)`.
        case didRevokeEntitlements(productIds: [String])

        /// StoreKit 2 `Product.SubscriptionInfo.RenewalInfo.autoRenewPreference` changed: after a downgrade (the
        /// product of the next renewal) or its cancellation (the current product again) (reference §5.10, §7.1).
        case autoRenewPreference(productId: String, autoRenewProductId: String)
        /// A StoreKit `Message` shown when the customer opens the app (`Message.messages`), for a product.
        case message(StoreKitMessageReason, productId: String)
        /// StoreKit 2 `RenewalInfo.renewalBillingPlanType` or `RenewalInfo.commitmentInfo` changed (iOS 26.4+):
        /// a commitment's renewal turned off or on, the product or plan chosen for after it, or the plan of the next
        /// billing period (rule commitment-renewal-on-device).
        case renewalBillingPlan(productId: String, DeviceRenewalPlan)
    }
}

/// The billing-plan part of a subscription's renewal info as a StoreKit app reads it (iOS 26.4+; reference Appendix E
/// O6, P10-P12): `Product.SubscriptionInfo.RenewalInfo.renewalBillingPlanType` and `.commitmentInfo`, whose
/// `RenewalInfo.CommitmentInfo` has `willAutoRenew` (``RenewalCommitment/autoRenewOn``), `autoRenewPreference`
/// (``RenewalCommitment/autoRenewProductId``), `renewalBillingPlanType` (``RenewalCommitment/renewalPlan``),
/// `renewalDate` and `renewalPrice`. The same values as the server's `signedRenewalInfo`.
public struct DeviceRenewalPlan: Hashable, Sendable {
    /// `renewalBillingPlanType`: the plan of the next billing period; `nil` when the renewal info has none (rule
    /// billing-plan-type-on-standard-transactions).
    public var renewalBillingPlanType: BillingPlan?
    /// `commitmentInfo`: present only while the subscription is in a commitment.
    public var commitmentInfo: RenewalCommitment?

    public init(renewalBillingPlanType: BillingPlan?, commitmentInfo: RenewalCommitment?) {
        self.renewalBillingPlanType = renewalBillingPlanType
        self.commitmentInfo = commitmentInfo
    }

    init(_ renewal: RenewalSnapshot) {
        self.init(renewalBillingPlanType: renewal.renewalBillingPlan, commitmentInfo: renewal.commitment)
    }

    /// **commitment-renewal-on-device**: what a change is judged on: the plan of the next period and the
    /// commitment's auto-renew, product and plan after it, not its date or price (a recovery or an extension moves
    /// the date; a price rise has its own message and notification) [assumed: StoreKit documents the fields
    /// (reference Appendix E O6), not when an app is told of a change].
    var preferences: Preferences {
        Preferences(
            plan: renewalBillingPlanType, willAutoRenew: commitmentInfo?.autoRenewOn,
            autoRenewPreference: commitmentInfo?.autoRenewProductId, renewalPlan: commitmentInfo?.renewalPlan)
    }

    struct Preferences: Hashable {
        var plan: BillingPlan?
        var willAutoRenew: Bool?
        var autoRenewPreference: String?
        var renewalPlan: BillingPlan?
    }

    /// StoreKit's name of a billing plan (`Product.SubscriptionInfo.BillingPlanType`): `upFront` or `monthly`
    /// (reference Appendix E R2).
    public static func storeKitName(_ plan: BillingPlan) -> String {
        plan == .upfront ? "upFront" : "monthly"
    }
}

/// How a transaction reached the device. A shared subscription arrives as purchased; a shared non-consumable as
/// purchased when sharing was on at purchase time, otherwise as restored (reference §4.5, §7.2; S-FSA).
public enum TransactionUpdate: String, Hashable, Sendable {
    case purchased
    case restored
    case renewed
    case revoked
    /// **refund-reversal-on-device**: after `REFUND_REVERSED` the transaction arrives again, its revocation fields
    /// (`revocationDate`, `revocationReason`, `revocationType`, `revocationPercentage`) removed, and the product is
    /// entitled again (reference §5.14; S-NT `REFUND_REVERSED`: "reinstates content or services") [assumed: StoreKit
    /// delivers the updated transaction through `Transaction.updates`, as it does a revocation].
    case reinstated
}

/// StoreKit `Message.Reason` values the device view shows (reference §7.1).
public enum StoreKitMessageReason: String, Hashable, Sendable {
    /// `priceIncreaseConsent`: the App Store asks the customer to agree to a price increase that needs consent.
    /// Shown at the PRICE_INCREASE / PENDING instant, as if the app were opened then [assumed]; never to family
    /// members, who are not asked (reference §5.12).
    case priceIncreaseConsent
    /// `billingIssue`: the customer's own subscription is in billing retry or grace for a billing problem; shown
    /// each time the app opens (``SimulatedStore/openApp(for:)``; reference §7).
    case billingIssue
}

/// StoreKit 2 `Product.SubscriptionInfo.RenewalState` (reference §7.1, S-RS).
public enum RenewalState: String, Hashable, Sendable {
    case subscribed
    case inGracePeriod
    case inBillingRetryPeriod
    case expired
    case revoked

    init(_ phase: SubscriptionPhase) {
        switch phase {
        case .active: self = .subscribed
        case .gracePeriod: self = .inGracePeriod
        case .billingRetry: self = .inBillingRetryPeriod
        case .expired: self = .expired
        case .revoked: self = .revoked
        }
    }
}

/// A `restorePurchases` on a device: where it falls among the notifications, and what it restored.
struct RestoreRecord: Hashable, Sendable {
    /// The number of notifications sent before it.
    var position: Int
    var instant: Instant
    var customer: String
    var transactions: [TransactionRecord]
}

/// The StoreKit device view of a store: a read model over what the store emitted (its ``EmissionLog``), beside the
/// App Store Server API's (``ServerAPI``); it holds a copy of the store and changes nothing.
public struct DeviceView: Sendable {
    let store: SimulatedStore

    public init(_ store: SimulatedStore) { self.store = store }

    /// The ordered stream a StoreKit app on `customer`'s device would observe, derived from what the store sent.
    ///
    /// `paymentQueue(_:didRevokeEntitlementsForProductIdentifiers:)` is called in a member's app on REVOKE, and in
    /// the purchaser's app when refunded for a non-consumable or an auto-renewable subscription, shared or not
    /// (reference §7.2, S-REVOKECB).
    public func events(for customer: String) -> [DeviceEvent] {
        store.requireHistory("deviceEvents(for:)")
        return store.emissions.deviceEvents(for: customer)
    }
}

extension SimulatedStore {
    /// ``DeviceView/events(for:)`` of this store (`DeviceView(store).events(for: customer)`).
    public func deviceEvents(for customer: String) -> [DeviceEvent] { DeviceView(self).events(for: customer) }
}

extension EmissionLog {
    /// ``DeviceView/events(for:)``: derived from the notifications, restores and app openings.
    fileprivate func deviceEvents(for customer: String) -> [DeviceEvent] {
        var events: [DeviceEvent] = []
        var lastState: [String: RenewalState] = [:]
        var pendingRestores = restores.filter { $0.customer == customer }[...]
        func flushRestores(upTo position: Int) {
            while let restore = pendingRestores.first, restore.position <= position {
                for record in restore.transactions {
                    events.append(
                        DeviceEvent(instant: restore.instant, customer: customer, kind: .transaction(.restored, record))
                    )
                }
                pendingRestores = pendingRestores.dropFirst()
            }
        }
        // Rule commitment-renewal-on-device: the billing-plan preferences each subscription (by
        // originalTransactionId) last showed; set without an event by its first notification, dropped when it ends.
        var lastPlan: [String: DeviceRenewalPlan.Preferences] = [:]
        // `RenewalInfo.autoRenewPreference` each subscription last showed, so that only a change is an event.
        var lastPreference: [String: String] = [:]
        var pendingOpens = appOpens.filter { $0.customer == customer }[...]
        func flushOpens(upTo position: Int) {
            while let open = pendingOpens.first, open.position <= position {
                for productId in open.billingIssues {
                    events.append(
                        DeviceEvent(
                            instant: open.instant, customer: customer,
                            kind: .message(.billingIssue, productId: productId)))
                }
                pendingOpens = pendingOpens.dropFirst()
            }
        }
        for (index, notification) in notifications.enumerated() {
            flushRestores(upTo: index)
            flushOpens(upTo: index)
            guard notification.recipient == customer, let record = notification.transaction else { continue }
            var kinds: [DeviceEvent.Kind] = []
            switch notification.type {
            case .subscribed:
                kinds.append(.transaction(.purchased, record))
            case .didRenew:
                kinds.append(.transaction(.renewed, record))
            case .oneTimeCharge:
                kinds.append(
                    .transaction(restoredNotifications.contains(index) ? .restored : .purchased, record))
            case .refund, .revoke:
                kinds.append(.transaction(.revoked, record))
                if record.productType == .autoRenewable || record.productType == .nonConsumable {
                    kinds.append(.didRevokeEntitlements(productIds: [record.productId]))
                }
            case .didChangeRenewalPref:
                // An upgrade is a purchase on the device: the new transaction arrives in `Transaction.updates`, and
                // the superseded one has `isUpgraded` (StoreKit leaves it out of `currentEntitlements`). A downgrade
                // or its cancellation changes only the renewal preference (reference §5.10, §7.1).
                if notification.subtype == .upgrade {
                    kinds.append(.transaction(.purchased, record))
                } else if let renewal = notification.renewal,
                    lastPreference[renewal.originalTransactionId] != renewal.autoRenewProductId
                {
                    // Only a change: a commitment's downgrade or plan switch leaves the top-level preference as it
                    // is (its change is in `commitmentInfo`, rule commitment-renewal-on-device).
                    kinds.append(
                        .autoRenewPreference(
                            productId: record.productId, autoRenewProductId: renewal.autoRenewProductId))
                }
            case .priceIncrease:
                if notification.subtype == .pending {
                    kinds.append(.message(.priceIncreaseConsent, productId: record.productId))
                }
            case .refundReversed:
                kinds.append(.transaction(.reinstated, record))
            case .didFailToRenew, .gracePeriodExpired, .expired, .didChangeRenewalStatus,
                .offerRedeemed, .refundDeclined, .consumptionRequest, .renewalExtended,
                .renewalExtension, .test, .externalPurchaseToken, .rescindConsent, .metadataUpdate, .migration,
                .priceChange:
                break  // no transaction update; a renewal-state change, if any, follows
            }
            if let renewal = notification.renewal {
                lastPreference[renewal.originalTransactionId] = renewal.autoRenewProductId
            }
            if let renewal = notification.renewal, let phase = notification.status {
                let key = renewal.originalTransactionId
                if phase == .expired || phase == .revoked {
                    lastPlan[key] = nil
                } else {
                    let view = DeviceRenewalPlan(renewal)
                    let preferences = view.preferences
                    if let last = lastPlan[key], last != preferences {
                        kinds.append(.renewalBillingPlan(productId: record.productId, view))
                    }
                    lastPlan[key] = preferences
                }
            }
            if let phase = notification.status {
                let state = RenewalState(phase)
                if lastState[record.productId] != state {
                    lastState[record.productId] = state
                    kinds.append(.renewalState(productId: record.productId, state))
                }
            }
            for kind in kinds {
                events.append(DeviceEvent(instant: notification.instant, customer: customer, kind: kind))
            }
        }
        flushRestores(upTo: notifications.count)
        flushOpens(upTo: notifications.count)
        return events
    }
}

extension DeviceEvent: CustomStringConvertible {
    /// One line for people and golden files, e.g.
    /// `2026-04-10T09:00:00Z bob transaction revoked com.example.monthly tx 2000000000000005 familyShared revocationDate 2026-04-10T09:00:00Z`.
    public var description: String {
        let head = "\(instant) \(customer) "
        switch kind {
        case .transaction(let update, let t):
            var text =
                head + "transaction \(update.rawValue) \(t.productId) tx \(t.transactionId) "
                + (t.ownership == .familyShared ? "familyShared" : "purchased")
            if let expires = t.expiresDate { text += " expires \(expires)" }
            if let commitment = t.commitment {
                // `Transaction.billingPlanType` and `Transaction.commitmentInfo` (reference Appendix E O6).
                text +=
                    " billingPlanType monthly commitmentInfo \(commitment.billingPeriodNumber)/"
                    + "\(commitment.totalBillingPeriods) expirationDate \(commitment.expiresDate) price \(commitment.price)"
            }
            if let revocation = t.revocation { text += " revocationDate \(revocation.date)" }
            return text
        case .renewalState(let productId, let state):
            return head + "renewalState \(productId) \(state.rawValue)"
        case .didRevokeEntitlements(let ids):
            return head + "paymentQueue(_:didRevokeEntitlementsForProductIdentifiers:) [\(ids.joined(separator: ", "))]"
        case .autoRenewPreference(let productId, let autoRenewProductId):
            return head + "autoRenewPreference \(productId) -> \(autoRenewProductId)"
        case .message(let reason, let productId):
            return head + "message \(reason.rawValue) \(productId)"
        case .renewalBillingPlan(let productId, let view):
            var text =
                head + "renewalBillingPlanType \(productId) "
                + (view.renewalBillingPlanType.map(DeviceRenewalPlan.storeKitName) ?? "none")
            if let c = view.commitmentInfo {
                text +=
                    " commitmentInfo willAutoRenew \(c.autoRenewOn) autoRenewPreference \(c.autoRenewProductId) "
                    + "renewalBillingPlanType \(DeviceRenewalPlan.storeKitName(c.renewalPlan)) renewalDate "
                    + "\(c.renewalDate) renewalPrice \(c.renewalPrice)"
            }
            return text
        }
    }
}
