import Testing
@testable import SubscriptionSimulator

/// What renewal info says against the status beside it: once expired (2) or revoked (5), it never claims billing
/// retry, nor a grace period running past `signedDate` (issue 9, rule 3).
func renewalInfoContradiction(_ renewal: RenewalSnapshot?, status: SubscriptionPhase?, at instant: Instant) -> String? {
    guard let renewal, let status, status == .expired || status == .revoked else { return nil }
    if renewal.isInBillingRetryPeriod == true { return "status \(status.statusCode) with isInBillingRetryPeriod true" }
    if let grace = renewal.gracePeriodExpiresDate, grace > instant {
        return "status \(status.statusCode) at \(instant) with gracePeriodExpiresDate \(grace) still ahead"
    }
    return nil
}

/// Every notification the store sent, and the status API's view of every subscription now.
func renewalInfoContradictions(in store: SimulatedStore) -> [String] {
    var problems = store.notifications.compactMap { n in
        renewalInfoContradiction(n.renewal, status: n.status, at: n.instant).map {
            "\(n.instant) \(n.recipient ?? "(app)") \(n.type.rawValue): \($0)"
        }
    }
    for customer in store.customers {
        for summary in store.subscriptions(for: customer) {
            if let problem = renewalInfoContradiction(summary.renewal, status: summary.state.phase, at: store.now) {
                problems.append("status API for \(customer) at \(store.now): \(problem)")
            }
        }
    }
    return problems
}

@Suite struct RenewalInfoAgreesWithStatusTests {
    /// The pure table: from every phase, with a 16-day grace (P1M ..< P1M16D) where one applies, every input at an
    /// instant inside and after the grace; every notification reporting status 2 or 5 agrees.
    @Test(arguments: SubscriptionPhase.allCases)
    func renewalInfoAgreesWithStatus_inEveryCellOfTheTransitionTable(phase: SubscriptionPhase) {
        var state = TransitionTableTests.state(phase)
        if phase == .gracePeriod || phase == .billingRetry { state.gracePeriodExpiresDate = at("P1M16D") }
        if phase == .billingRetry { state.failure?.graceExpiresAt = at("P1M16D") }
        for now in [at("P1M2D"), at("P1M16D"), at("P1M20D")] {
            let context = LifecycleContext(now: now)
            for input in LifecycleInput.Kind.allCases.map({ TransitionTableTests.sample($0) }) {
                let result = SubscriptionLifecycle.transition(state, input, context)
                guard case .changed(let final, _) = result else { continue }
                for (type, _, snapshot) in result.notifications {
                    let problem = renewalInfoContradiction(
                        RenewalSnapshot(
                            originalTransactionId: "1", productId: "p", autoRenewProductId: "p",
                            autoRenewOn: snapshot.autoRenew, expirationIntent: snapshot.endReason,
                            isInBillingRetryPeriod: snapshot.isInBillingRetryPeriod,
                            gracePeriodExpiresDate: snapshot.gracePeriodExpiresDate, renewalDate: snapshot.expiresDate,
                            recentSubscriptionStartDate: testStart, renewalPrice: nil, currency: "USD",
                            upcomingOffer: nil),
                        status: snapshot.phase, at: now)
                    #expect(problem == nil, "\(phase) × \(input) at \(now): \(type.rawValue)")
                }
                if final.phase == .expired || final.phase == .revoked {
                    #expect(final.isInBillingRetryPeriod != true, "\(phase) × \(input) at \(now)")
                }
            }
        }
    }

    @Test func renewalInfoAgreesWithStatus_refundDuringGrace() throws {
        var store = makeFamilyStore(grace: .sixteenDays)
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M3D"))
        try store.refund(familyMonthly.id, of: "alice")
        #expect(
            lines(store.notifications.suffix(3)) == [
                "\(at("P1M3D")) alice REFUND 5", "\(at("P1M3D")) bob REVOKE 5", "\(at("P1M3D")) carol REVOKE 5",
            ])
        let refund = store.notifications.suffix(3).first!
        #expect(refund.renewal?.isInBillingRetryPeriod == false, "the refund ends the retry (S-IBR: false once ended)")
        #expect(refund.renewal?.gracePeriodExpiresDate == nil, "the grace was cut short: no grace date (S-GPED)")
        try store.advance(to: at("P3M"))
        #expect(renewalInfoContradictions(in: store) == [])
    }

    @Test func renewalInfoAgreesWithStatus_refundDuringBillingRetry() throws {
        var store = makeFamilyStore(grace: .threeDays)
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M10D"))
        try store.refund(familyMonthly.id, of: "alice")
        let refund = try #require(store.notifications(for: "alice").last)
        #expect(refund.type == .refund && refund.renewal?.isInBillingRetryPeriod == false)
        #expect(refund.renewal?.gracePeriodExpiresDate == at("P1M3D"), "a grace that ran its course stays (A-9)")
        try store.advance(to: at("P3M"))
        #expect(renewalInfoContradictions(in: store) == [])
    }

    @Test func renewalInfoAgreesWithStatus_refundWithoutABillingFailureHasNoRetryFlag() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("5d"))
        try store.refund(familyMonthly.id, of: "alice")
        #expect(store.notifications(for: "alice").last?.renewal?.isInBillingRetryPeriod == nil)
    }

    @Test func renewalInfoAgreesWithStatus_revokeDuringGrace() throws {
        var store = makeFamilyStore(grace: .twentyEightDays)
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M2D"))
        try store.stopSharing(familyMonthly.id, by: "alice")
        let revoke = try #require(store.notifications(for: "bob").last)
        #expect(revoke.type == .revoke && revoke.status == .revoked)
        #expect(revoke.renewal?.isInBillingRetryPeriod == false && revoke.renewal?.gracePeriodExpiresDate == nil)
        try store.advance(to: at("P4M"))
        #expect(renewalInfoContradictions(in: store) == [])
    }

    @Test func renewalInfoAgreesWithStatus_revokeDuringBillingRetry() throws {
        var store = makeFamilyStore(grace: .off)
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M2D"))
        try store.leaveFamily("carol")
        let revoke = try #require(store.notifications(for: "carol").last)
        #expect(revoke.type == .revoke && revoke.renewal?.isInBillingRetryPeriod == false)
        #expect(renewalInfoContradictions(in: store) == [])
    }

    @Test func renewalInfoAgreesWithStatus_expiredAfterACancelDuringGrace() throws {
        var store = makeFamilyStore(grace: .sixteenDays)
        try store.purchase(familyMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M5D"))
        try store.cancel(familyMonthly.id, by: "alice")
        let cancel = store.notifications(for: "alice").suffix(2)
        #expect(cancel.map(\.type) == [.didChangeRenewalStatus, .expired])
        #expect(cancel.first?.renewal?.gracePeriodExpiresDate == at("P1M16D"), "still in grace when cancelling")
        #expect(cancel.last?.renewal?.isInBillingRetryPeriod == false)
        #expect(cancel.last?.renewal?.gracePeriodExpiresDate == nil, "the grace ended at the cancel")
        try store.advance(to: at("P3M"))
        #expect(renewalInfoContradictions(in: store) == [])
    }

    @Test func renewalInfoAgreesWithStatus_retryExhaustedKeepsThePastGraceDate() throws {
        var store = makeStore(grace: .sixteenDays)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P4M"))
        let expired = try #require(store.notifications(for: "alice").last)
        #expect(expired.type == .expired && expired.renewal?.gracePeriodExpiresDate == at("P1M16D"), "A-9")
        #expect(renewalInfoContradictions(in: store) == [])
    }

    @Test func renewalInfoAgreesWithStatus_statusAPIAfterARefundDuringGrace() throws {
        var store = makeStore(grace: .sixteenDays)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M3D"))
        try store.refund(monthly.id, of: "alice")
        try store.advance(to: at("P1M10D"))
        let summary = try #require(store.subscriptions(for: "alice").first)
        #expect(summary.state.phase == .revoked)
        #expect(summary.renewal.isInBillingRetryPeriod == false && summary.renewal.gracePeriodExpiresDate == nil)
        #expect(
            store.deviceEvents(for: "alice").last?.kind == .renewalState(productId: monthly.id, .revoked),
            "the device view says revoked, not in grace")
    }
}
