import Testing
@testable import SubscriptionSimulator

/// The transition table across every (phase × input) pair: each is a transition, an explicit "ignored", or a
/// named rule violation — and which one is fixed here, so a change to the table is a reviewed change to this test.
@Suite struct TransitionTableTests {
    enum Kind: String { case changed, ignored, rejected }

    static func state(_ phase: SubscriptionPhase, cause: EndReason = .billingError) -> SubscriptionState {
        let request = PurchaseRequest(productId: "p", period: .oneMonth)
        var state = SubscriptionLifecycle.freshState(request, at: testStart)
        state.phase = phase
        switch phase {
        case .gracePeriod, .billingRetry:
            state.failure = BillingFailure(
                failedAt: at("P1M"), cause: cause, graceExpiresAt: phase == .gracePeriod ? at("P1M16D") : nil,
                retryEndsAt: at("P1M60D"))
            state.endReason = cause
            state.isInBillingRetryPeriod = true
        case .expired:
            state.endReason = .customerCancelled
            state.autoRenew = false
        case .revoked:
            state.autoRenew = false
        case .active:
            break
        }
        return state
    }

    /// Expected kind for each phase (rows) and input (columns, in `LifecycleInput.Kind.allCases` order:
    /// renewalDue, gracePeriodEnds, billingRetryEnds, autoRenewDisabled, autoRenewEnabled, billingFixed,
    /// productRestoredToSale, refunded, purchasedAgain).
    static let table: [(SubscriptionPhase, [Kind])] = [
        (.active, [.changed, .ignored, .ignored, .changed, .rejected, .ignored, .ignored, .changed, .rejected]),
        (.gracePeriod, [.ignored, .changed, .changed, .changed, .rejected, .changed, .ignored, .changed, .rejected]),
        (.billingRetry, [.ignored, .ignored, .changed, .changed, .rejected, .changed, .ignored, .changed, .rejected]),
        (.expired, [.ignored, .ignored, .ignored, .rejected, .rejected, .ignored, .ignored, .changed, .changed]),
        (.revoked, [.ignored, .ignored, .ignored, .rejected, .rejected, .ignored, .ignored, .rejected, .changed]),
    ]

    /// One input of `kind` with the data the tables give it: `request` for a purchase or plan change, a redemption
    /// of `offer` for `request`'s product, an increase that needs consent, a 10-day extension with none before, a
    /// full refund for reason 0.
    static func sample(
        _ kind: LifecycleInput.Kind, _ request: PurchaseRequest = PurchaseRequest(productId: "p", period: .oneMonth),
        offer: SubscriptionOffer = promotional
    ) -> LifecycleInput {
        let redemption = OfferRedemption(productId: request.productId, period: request.period, offer: offer)
        switch kind {
        case .renewalDue: return .renewalDue
        case .gracePeriodEnds: return .gracePeriodEnds
        case .billingRetryEnds: return .billingRetryEnds
        case .autoRenewDisabled: return .autoRenewDisabled
        case .autoRenewEnabled: return .autoRenewEnabled
        case .billingFixed: return .billingFixed
        case .productRestoredToSale: return .productRestoredToSale
        case .refunded: return .refunded(amount: .full, reason: 0)
        case .purchasedAgain: return .purchasedAgain(request)
        case .upgradeRequested: return .upgradeRequested(request)
        case .downgradeRequested: return .downgradeRequested(request)
        case .currentProductChosen: return .currentProductChosen
        case .offerRedeemed: return .offerRedeemed(redemption)
        case .priceIncreaseAnnounced: return .priceIncreaseAnnounced(needsConsent: true)
        case .priceIncreaseConsented: return .priceIncreaseConsented
        case .renewalDateExtended:
            return .renewalDateExtended(RenewalExtensionRequest(days: 10, extensionsInPastYear: 0))
        case .refundRequested: return .refundRequested
        case .refundReversed: return .refundReversed
        case .offerUpgradeRedeemed: return .offerUpgradeRedeemed(redemption)
        case .offerDowngradeRedeemed: return .offerDowngradeRedeemed(redemption)
        }
    }

    /// The inputs of ``table``'s columns; each group of inputs has its own table below.
    static let coreInputs: [LifecycleInput.Kind] = [
        .renewalDue, .gracePeriodEnds, .billingRetryEnds, .autoRenewDisabled, .autoRenewEnabled, .billingFixed,
        .productRestoredToSale, .refunded, .purchasedAgain,
    ]

    /// Expected kind for each phase and plan-change input (columns: upgradeRequested, downgradeRequested,
    /// currentProductChosen), from a state without a pending downgrade.
    static let planChangeInputs: [LifecycleInput.Kind] = [
        .upgradeRequested, .downgradeRequested, .currentProductChosen,
    ]
    static let planChangeTable: [(SubscriptionPhase, [Kind])] = [
        (.active, [.changed, .changed, .rejected]),
        (.gracePeriod, [.rejected, .rejected, .rejected]),
        (.billingRetry, [.rejected, .rejected, .rejected]),
        (.expired, [.rejected, .rejected, .rejected]),
        (.revoked, [.rejected, .rejected, .rejected]),
    ]

    /// Expected kind for each phase and offer/price input (columns: offerRedeemed with a promotional offer,
    /// priceIncreaseAnnounced needing consent, priceIncreaseConsented), from a state with no offer waiting and no
    /// increase; the cells that depend on those fields are in OfferRulesTests and PriceIncreaseRulesTests.
    static let offerPriceInputs: [LifecycleInput.Kind] = [
        .offerRedeemed, .priceIncreaseAnnounced, .priceIncreaseConsented,
    ]
    static let offerPriceTable: [(SubscriptionPhase, [Kind])] = [
        (.active, [.changed, .changed, .rejected]),
        (.gracePeriod, [.rejected, .ignored, .rejected]),
        (.billingRetry, [.rejected, .ignored, .rejected]),
        (.expired, [.changed, .ignored, .rejected]),
        (.revoked, [.changed, .ignored, .rejected]),
    ]
    static let promotional = SubscriptionOffer(
        id: "promo", type: .promotional, mode: .payAsYouGo, period: .months(1), periods: 2,
        price: Price(decimal: "4.99")!)

    @Test(arguments: SubscriptionPhase.allCases)
    func everyOfferAndPriceInputHasItsExpectedOutcome(phase: SubscriptionPhase) {
        let expected = Self.offerPriceTable.first { $0.0 == phase }!.1
        let context = LifecycleContext(now: at("P1M20D"))
        for (input, kind) in zip(Self.offerPriceInputs, expected) {
            #expect(
                Self.kind(SubscriptionLifecycle.transition(Self.state(phase), Self.sample(input), context)) == kind,
                "\(phase) × \(input)")
        }
    }

    /// Columns: renewalDateExtended (a 10-day request, none before), refundRequested, refundReversed.
    static let renewalExtensionAndRefundInputs: [LifecycleInput.Kind] = [
        .renewalDateExtended, .refundRequested, .refundReversed,
    ]
    static let renewalExtensionAndRefundTable: [(SubscriptionPhase, [Kind])] = [
        (.active, [.changed, .changed, .rejected]),
        (.gracePeriod, [.rejected, .changed, .rejected]),
        (.billingRetry, [.rejected, .changed, .rejected]),
        (.expired, [.rejected, .ignored, .rejected]),
        (.revoked, [.rejected, .ignored, .changed]),
    ]

    @Test(arguments: SubscriptionPhase.allCases)
    func everyExtensionAndRefundInputHasItsExpectedOutcome(phase: SubscriptionPhase) {
        let expected = Self.renewalExtensionAndRefundTable.first { $0.0 == phase }!.1
        let context = LifecycleContext(now: at("P1M20D"))
        for (input, kind) in zip(Self.renewalExtensionAndRefundInputs, expected) {
            let actual: Kind
            switch SubscriptionLifecycle.transition(Self.state(phase), Self.sample(input), context) {
            case .changed: actual = .changed
            case .ignored: actual = .ignored
            case .rejected: actual = .rejected
            }
            #expect(actual == kind, "\(phase) × \(input)")
        }
    }

    @Test func tableCoversEveryPhaseAndInput() {
        #expect(Set(Self.table.map(\.0)) == Set(SubscriptionPhase.allCases))
        #expect(Self.table.allSatisfy { $0.1.count == Self.coreInputs.count })
        #expect(Set(Self.planChangeTable.map(\.0)) == Set(SubscriptionPhase.allCases))
        #expect(Self.planChangeTable.allSatisfy { $0.1.count == Self.planChangeInputs.count })
        #expect(Set(Self.offerPriceTable.map(\.0)) == Set(SubscriptionPhase.allCases))
        #expect(Self.offerPriceTable.allSatisfy { $0.1.count == Self.offerPriceInputs.count })
        #expect(Set(Self.renewalExtensionAndRefundTable.map(\.0)) == Set(SubscriptionPhase.allCases))
        #expect(
            Self.renewalExtensionAndRefundTable.allSatisfy { $0.1.count == Self.renewalExtensionAndRefundInputs.count })
        #expect(
            Self.coreInputs + Self.planChangeInputs + Self.offerPriceInputs + Self.renewalExtensionAndRefundInputs
                + Self.offerForAnotherProductInputs == LifecycleInput.Kind.allCases)
        #expect(Set(Self.offerForAnotherProductTable.map(\.0)) == Set(SubscriptionPhase.allCases))
        #expect(Self.offerForAnotherProductTable.allSatisfy { $0.1.count == Self.offerForAnotherProductInputs.count })
    }

    @Test(arguments: SubscriptionPhase.allCases)
    func everyPlanChangeInputHasItsExpectedOutcome(phase: SubscriptionPhase) {
        let expected = Self.planChangeTable.first { $0.0 == phase }!.1
        let context = LifecycleContext(now: at("P1M20D"))
        let request = PurchaseRequest(productId: "q", period: .oneMonth)
        for (input, kind) in zip(Self.planChangeInputs, expected) {
            #expect(
                Self.kind(SubscriptionLifecycle.transition(Self.state(phase), Self.sample(input, request), context))
                    == kind,
                "\(phase) × \(input)")
        }
    }

    static func kind(_ result: TransitionResult) -> Kind {
        switch result {
        case .changed: return .changed
        case .ignored: return .ignored
        case .rejected: return .rejected
        }
    }

    @Test(arguments: SubscriptionPhase.allCases)
    func everyInputHasItsExpectedOutcome(phase: SubscriptionPhase) {
        let expected = Self.table.first { $0.0 == phase }!.1
        let context = LifecycleContext(now: at("P1M20D"))
        for (input, kind) in zip(Self.coreInputs, expected) {
            let result = SubscriptionLifecycle.transition(Self.state(phase), Self.sample(input), context)
            let actual: Kind
            switch result {
            case .changed: actual = .changed
            case .ignored: actual = .ignored
            case .rejected: actual = .rejected
            }
            #expect(actual == kind, "\(phase) × \(input)")
        }
    }

    @Test func productRestoredRecoversOnlyAProductNotForSaleFailure() {
        let context = LifecycleContext(now: at("P1M20D"))
        let product = SubscriptionLifecycle.transition(
            Self.state(.billingRetry, cause: .productNotForSale), .productRestoredToSale, context)
        guard case .changed(let recovered, _) = product else { Issue.record("expected a recovery"); return }
        #expect(recovered.phase == .active)
        let billing = SubscriptionLifecycle.transition(Self.state(.billingRetry), .productRestoredToSale, context)
        guard case .ignored = billing else { Issue.record("expected ignored"); return }
    }

    @Test func billingFixedDoesNotRecoverAProductNotForSaleFailure() {
        let result = SubscriptionLifecycle.transition(
            Self.state(.billingRetry, cause: .productNotForSale), .billingFixed, LifecycleContext(now: at("P1M20D")))
        guard case .ignored = result else { Issue.record("expected ignored, got \(result)"); return }
    }

    /// `followingOffer` (renewal info's upcoming offer) is `followingPeriod`'s offer in every case it distinguishes:
    /// none, an offer with periods left or used up, a redeemed offer waiting, a pending plan change with or without
    /// an offer of its own.
    @Test func followingOfferIsTheFollowingPeriodsOffer() {
        let plain = Self.state(.active)
        var offerLeft = plain
        offerLeft.currentOffer = OfferUse(offer: promoHalfOff, periodsRemaining: 2)
        var offerUsedUp = plain
        offerUsedUp.currentOffer = OfferUse(offer: promoHalfOff, periodsRemaining: 0)
        var waiting = plain
        waiting.pendingOffer = codeFreeMonth
        var change = plain
        change.pendingChange = PurchaseRequest(productId: "q", period: .oneYear)
        var changeWithOffer = change
        changeWithOffer.pendingChange?.offer = winBackUpFront
        var cases = [plain, offerLeft, offerUsedUp, waiting, change, changeWithOffer]
        cases.append(
            contentsOf: cases.map {
                var state = $0; state.currentOffer = offerLeft.currentOffer; return state
            })
        for state in cases {
            #expect(SubscriptionLifecycle.followingOffer(state) == SubscriptionLifecycle.followingPeriod(state).1)
        }
        #expect(SubscriptionLifecycle.followingOffer(offerLeft)?.periodsRemaining == 1)
        #expect(SubscriptionLifecycle.followingOffer(waiting)?.offer == codeFreeMonth)
        #expect(SubscriptionLifecycle.followingOffer(changeWithOffer)?.offer == winBackUpFront)
        #expect(
            SubscriptionLifecycle.followingOffer(plain) == nil && SubscriptionLifecycle.followingOffer(change) == nil)
    }

    /// The cycle's end is kept up to date as the cycle changes (it is worked out on change, not on read).
    @Test func billingCycleEndFollowsItsFields() {
        var cycle = BillingCycle(anchor: testStart, unit: .months(1), periodsElapsed: 1)
        #expect(cycle.currentPeriodEnd == at("P1M"))
        cycle.periodsElapsed += 2
        #expect(cycle.currentPeriodEnd == at("P3M"))
        cycle.unit = .days(7)
        #expect(cycle.currentPeriodEnd == at("P21D"))
        cycle.anchor = at("P1D")
        #expect(cycle.currentPeriodEnd == at("P22D") && cycle.nextPeriodEnd == at("P29D"))
    }

    @Test func everyNotificationReportsTheStateItDescribes() {
        // The first of two notifications at one instant (cancel during grace) carries the state before expiry.
        let result = SubscriptionLifecycle.transition(
            Self.state(.gracePeriod), .autoRenewDisabled, LifecycleContext(now: at("P1M2D")))
        guard case .changed(let final, let effects) = result else { Issue.record("expected a change"); return }
        let snapshots = result.notifications.map { ($0.type, $0.snapshot) }
        #expect(snapshots.map(\.0) == [.didChangeRenewalStatus, .expired])
        #expect(snapshots[0].1.phase == .gracePeriod && snapshots[0].1.autoRenew == false)
        #expect(snapshots[1].1 == final && final.phase == .expired)
        // The interim state travels with its effect; the final one is the result's own.
        #expect(effects.first == .notifyInterim(.didChangeRenewalStatus, .autoRenewDisabled, snapshot: snapshots[0].1))
        #expect(effects.last == .notify(.expired, .billingRetry))
    }

    /// Columns: offerUpgradeRedeemed, offerDowngradeRedeemed (a promotional offer for product "q"), from a state with
    /// no offer waiting or running and no pending downgrade.
    static let offerForAnotherProductInputs: [LifecycleInput.Kind] = [.offerUpgradeRedeemed, .offerDowngradeRedeemed]
    static let offerForAnotherProductTable: [(SubscriptionPhase, [Kind])] = [
        (.active, [.changed, .changed]),
        (.gracePeriod, [.rejected, .rejected]),
        (.billingRetry, [.rejected, .rejected]),
        (.expired, [.rejected, .rejected]),
        (.revoked, [.rejected, .rejected]),
    ]

    @Test(arguments: SubscriptionPhase.allCases)
    func everyOfferForAnotherProductInputHasItsExpectedOutcome(phase: SubscriptionPhase) {
        let expected = Self.offerForAnotherProductTable.first { $0.0 == phase }!.1
        let context = LifecycleContext(now: at("P1M20D"))
        let request = PurchaseRequest(productId: "q", period: .oneMonth)
        for (input, kind) in zip(Self.offerForAnotherProductInputs, expected) {
            #expect(
                Self.kind(SubscriptionLifecycle.transition(Self.state(phase), Self.sample(input, request), context))
                    == kind,
                "\(phase) × \(input)")
        }
    }
}
