import Testing

@testable import SubscriptionSimulator

/// The pending-downgrade state (active, `autoRenewProductId` another product) across every input: each a
/// transition, an explicit "ignored" or a named rule violation.
@Suite struct PendingDowngradeTableTests {
    static func pending() -> SubscriptionState {
        var state = TransitionTableTests.state(.active)
        state.pendingChange = PurchaseRequest(productId: "q", period: .oneYear)
        return state
    }

    /// Each input as ``TransitionTableTests/sample(_:_:offer:)`` makes it, for product "r" (with a promotional
    /// offer where the input redeems one).
    static let expected: [LifecycleInput.Kind: TransitionTableTests.Kind] = [
        .renewalDue: .changed, .gracePeriodEnds: .ignored, .billingRetryEnds: .ignored, .autoRenewDisabled: .changed,
        .autoRenewEnabled: .rejected, .billingFixed: .ignored, .productRestoredToSale: .ignored, .refunded: .changed,
        .purchasedAgain: .rejected, .upgradeRequested: .changed, .downgradeRequested: .changed,
        .currentProductChosen: .changed,
        // an offer for the current product waits for no downgrade (rule no-offer-while-plan-change-pending)
        .offerRedeemed: .rejected, .priceIncreaseAnnounced: .changed, .priceIncreaseConsented: .rejected,
        .renewalDateExtended: .changed, .refundRequested: .changed, .refundReversed: .rejected,
        // an offer for another product replaces or drops the pending downgrade (OfferForAnotherProductTests)
        .offerUpgradeRedeemed: .changed, .offerDowngradeRedeemed: .changed,
    ]

    @Test func everyInputHasItsExpectedOutcome() {
        #expect(Set(Self.expected.keys) == Set(LifecycleInput.Kind.allCases))
        let context = LifecycleContext(now: at("P1M"))
        let request = PurchaseRequest(productId: "r", period: .oneMonth)
        for input in LifecycleInput.Kind.allCases {
            let result = SubscriptionLifecycle.transition(
                Self.pending(), TransitionTableTests.sample(input, request), context)
            #expect(TransitionTableTests.kind(result) == Self.expected[input], "pending downgrade × \(input)")
        }
    }

    @Test func renewalSwitchesToThePendingProduct() {
        let result = SubscriptionLifecycle.transition(Self.pending(), .renewalDue, LifecycleContext(now: at("P1M")))
        guard case .changed(let next, let effects) = result else { Issue.record("expected a change"); return }
        #expect(next.productId == "q" && next.period == .oneYear && next.pendingChange == nil)
        #expect(next.expiresDate == at("P1M").adding(.years(1)))
        #expect(effects.contains(.notify(.didRenew, nil)))
    }

    @Test func failedRenewalKeepsThePendingProduct() {
        let result = SubscriptionLifecycle.transition(
            Self.pending(), .renewalDue, LifecycleContext(now: at("P1M"), paymentSucceeds: false))
        guard case .changed(let next, _) = result else { Issue.record("expected a change"); return }
        #expect(next.phase == .billingRetry && next.productId == "p" && next.autoRenewProductId == "q")
    }

    @Test func cancelAndRefundKeepThePendingProduct() {
        for input in [LifecycleInput.autoRenewDisabled, .refunded(amount: .full, reason: 0)] {
            let result = SubscriptionLifecycle.transition(Self.pending(), input, LifecycleContext(now: at("10d")))
            guard case .changed(let next, _) = result else { Issue.record("expected a change"); return }
            #expect(next.autoRenewProductId == "q", "\(input)")
        }
    }

    @Test func upgradeDropsThePendingDowngrade() {
        let result = SubscriptionLifecycle.transition(
            Self.pending(), .upgradeRequested(PurchaseRequest(productId: "r", period: .oneMonth)),
            LifecycleContext(now: at("10d")))
        guard case .changed(let next, let effects) = result else { Issue.record("expected a change"); return }
        #expect(next.productId == "r" && next.pendingChange == nil && next.expiresDate == at("10d").adding(.months(1)))
        #expect(effects.first == .cancelAllTimers && effects[1] == .markCurrentTransactionUpgraded)
    }

    @Test func choosingTheCurrentProductCancelsIt() {
        let result = SubscriptionLifecycle.transition(
            Self.pending(), .currentProductChosen, LifecycleContext(now: at("10d")))
        guard case .changed(let next, let effects) = result else { Issue.record("expected a change"); return }
        #expect(next.pendingChange == nil && effects == [.notify(.didChangeRenewalPref, nil)])
    }
}
