import Testing

@testable import SubscriptionSimulator

/// The rules of the monthly plan with a 12-month commitment, on the pure transition table (reference Appendix E;
/// `Lifecycle/CommitmentRules.swift`).
@Suite struct CommitmentRulesTests {
    static let request = PurchaseRequest(productId: "p", period: .oneYear, plan: .monthly)

    static func bought() -> SubscriptionState {
        let (state, effects) = SubscriptionLifecycle.initialPurchase(request, at: testStart)
        #expect(effects.last == .notify(.subscribed, .initialBuy))
        return state
    }

    /// A one-year subscription to `productId` bought on the up-front plan at the start.
    static func boughtUpfront(_ productId: String) -> SubscriptionState {
        SubscriptionLifecycle.initialPurchase(PurchaseRequest(productId: productId, period: .oneYear), at: testStart).0
    }

    static func changed(_ result: TransitionResult) -> (SubscriptionState, [LifecycleEffect])? {
        guard case .changed(let state, let effects) = result else { return nil }
        return (state, effects)
    }

    /// Renews `state` `count` times, each at its expiry, with payment working.
    static func renewed(_ state: SubscriptionState, _ count: Int) -> SubscriptionState {
        var state = state
        for _ in 0..<count {
            state =
                changed(
                    SubscriptionLifecycle.transition(state, .renewalDue, LifecycleContext(now: state.expiresDate)))!.0
        }
        return state
    }

    @Test func purchaseStartsPeriodOneOfAYearLongCommitmentBilledMonthly() {
        let state = Self.bought()
        #expect(state.commitment == CommitmentState(billingPeriodNumber: 1, expiresDate: at("P1Y"), autoRenew: true))
        #expect(state.expiresDate == at("P1M"))
        #expect(state.billingPlan == .monthly)
        let upfront = Self.boughtUpfront("p")
        #expect(upfront.commitment == nil && upfront.expiresDate == at("P1Y") && upfront.billingPlan == .upfront)
    }

    @Test func eachMonthIsANewTransactionWithTheNextPeriodNumber() {
        var state = Self.bought()
        for number in 2...12 {
            let (next, effects) = Self.changed(
                SubscriptionLifecycle.transition(state, .renewalDue, LifecycleContext(now: state.expiresDate)))!
            #expect(next.commitment?.billingPeriodNumber == number)
            #expect(next.commitment?.expiresDate == at("P1Y"))
            #expect(effects.contains(.notify(.didRenew, nil)))
            state = next
        }
        #expect(state.expiresDate == at("P1Y"))
    }

    @Test func afterPeriodTwelveANewCommitmentBegins() {
        let last = Self.renewed(Self.bought(), 11)
        #expect(last.commitment?.isLastPeriod == true)
        let (next, effects) = Self.changed(
            SubscriptionLifecycle.transition(last, .renewalDue, LifecycleContext(now: at("P1Y"))))!
        #expect(next.commitment == CommitmentState(billingPeriodNumber: 1, expiresDate: at("P2Y"), autoRenew: true))
        #expect(effects.contains(.notify(.didRenew, nil)))
    }

    @Test func cancelStopsOnlyTheCommitmentsRenewalAndBillingContinuesToPeriodTwelve() {
        let state = Self.renewed(Self.bought(), 2)
        let (cancelled, effects) = Self.changed(
            SubscriptionLifecycle.transition(state, .autoRenewDisabled, LifecycleContext(now: at("P2M5D"))))!
        #expect(effects == [.notify(.didChangeRenewalStatus, .autoRenewDisabled)])
        #expect(cancelled.autoRenew && cancelled.commitment?.autoRenew == false)
        #expect(
            SubscriptionLifecycle.transition(cancelled, .autoRenewDisabled, LifecycleContext(now: at("P2M6D")))
                == .rejected(.autoRenewAlreadyOff))
        let last = Self.renewed(cancelled, 9)
        #expect(last.commitment?.billingPeriodNumber == 12 && last.phase == .active)
        let (ended, endEffects) = Self.changed(
            SubscriptionLifecycle.transition(last, .renewalDue, LifecycleContext(now: at("P1Y"))))!
        #expect(endEffects == [.notify(.expired, .voluntary)])
        #expect(ended.phase == .expired && ended.commitment == nil && !ended.autoRenew)
    }

    @Test func failureHasNoGraceAndRetriesNinetyDays() {
        let state = Self.renewed(Self.bought(), 2)
        let context = LifecycleContext(now: at("P3M"), paymentSucceeds: false, gracePeriod: .sixteenDays)
        let (failing, effects) = Self.changed(SubscriptionLifecycle.transition(state, .renewalDue, context))!
        #expect(failing.phase == .billingRetry && failing.gracePeriodExpiresDate == nil)
        #expect(effects.contains(.notify(.didFailToRenew, nil)))
        #expect(effects.contains(.schedule(.billingRetryEnd, at: at("P3M90D"))))
        let (expired, expiryEffects) = Self.changed(
            SubscriptionLifecycle.transition(failing, .billingRetryEnds, LifecycleContext(now: at("P3M90D"))))!
        #expect(expiryEffects.last == .notify(.expired, .billingRetry))
        #expect(expired.commitment == nil && expired.isInBillingRetryPeriod == false)
    }

    @Test func recoveryChargesTheFailedPeriodAndMovesTheCommitmentsEnd() {
        let state = Self.renewed(Self.bought(), 2)
        let failing = Self.changed(
            SubscriptionLifecycle.transition(
                state, .renewalDue, LifecycleContext(now: at("P3M"), paymentSucceeds: false)))!.0
        let (recovered, effects) = Self.changed(
            SubscriptionLifecycle.transition(failing, .billingFixed, LifecycleContext(now: at("P3M10D"))))!
        #expect(effects.last == .notify(.didRenew, .billingRecovery))
        #expect(recovered.commitment?.billingPeriodNumber == 4)
        #expect(recovered.commitment?.expiresDate == at("P1Y10D"))
        #expect(recovered.expiresDate == at("P4M10D"))
    }

    @Test func upgradeEndsTheCommitmentAndDowngradeWaitsForItsEnd() {
        let state = Self.renewed(Self.bought(), 1)
        let higher = PurchaseRequest(productId: "h", period: .oneYear)
        let upgraded = Self.changed(
            SubscriptionLifecycle.transition(state, .upgradeRequested(higher), LifecycleContext(now: at("P1M10D"))))!
            .0
        #expect(upgraded.commitment == nil && upgraded.productId == "h" && upgraded.expiresDate == at("P1Y1M10D"))
        let lower = PurchaseRequest(productId: "l", period: .oneYear)
        let downgrading = Self.changed(
            SubscriptionLifecycle.transition(state, .downgradeRequested(lower), LifecycleContext(now: at("P1M10D"))))!
            .0
        let beforeEnd = Self.renewed(downgrading, 10)
        #expect(beforeEnd.productId == "p" && beforeEnd.commitment?.billingPeriodNumber == 12)
        let after = Self.renewed(beforeEnd, 1)
        #expect(after.productId == "l" && after.commitment == nil && after.expiresDate == at("P2Y"))
    }

    @Test func upfrontPlanChosenInsideTheCommitmentTakesEffectAtItsEnd() {
        let state = Self.renewed(Self.bought(), 1)
        let upfront = PurchaseRequest(productId: "p", period: .oneYear, plan: .upfront)
        let (switching, effects) = Self.changed(
            SubscriptionLifecycle.transition(state, .downgradeRequested(upfront), LifecycleContext(now: at("P1M10D"))))!
        // Rule billing-plan-switch-no-subtype: the same product on another plan is neither an upgrade nor a downgrade.
        #expect(effects == [.notify(.didChangeRenewalPref, nil)])
        #expect(switching.commitment?.billingPeriodNumber == 2 && switching.pendingChange?.plan == .upfront)
        // Asked again: already pending; the monthly plan again undoes it (`currentProductChosen`).
        #expect(
            SubscriptionLifecycle.transition(
                switching, .downgradeRequested(upfront), LifecycleContext(now: at("P1M11D")))
                == .rejected(.downgradeAlreadyPending))
        let undone = Self.changed(
            SubscriptionLifecycle.transition(switching, .currentProductChosen, LifecycleContext(now: at("P1M11D"))))!
        #expect(undone.0.pendingChange == nil && undone.1 == [.notify(.didChangeRenewalPref, nil)])
        let lastPeriod = Self.renewed(switching, 10)
        #expect(lastPeriod.commitment?.billingPeriodNumber == 12 && lastPeriod.billingPlan == .monthly)
        let after = Self.renewed(lastPeriod, 1)
        #expect(after.productId == "p" && after.commitment == nil && after.billingPlan == .upfront)
        #expect(after.expiresDate == at("P2Y") && after.period == .oneYear)
    }

    @Test func monthlyPlanChosenOnTheUpfrontPlanStartsACommitmentAtTheNextRenewal() {
        let state = Self.boughtUpfront("p")
        let monthly = PurchaseRequest(productId: "p", period: .oneYear, plan: .monthly)
        let switching = Self.changed(
            SubscriptionLifecycle.transition(state, .downgradeRequested(monthly), LifecycleContext(now: at("P1M"))))!.0
        #expect(switching.commitment == nil && switching.expiresDate == at("P1Y"))
        let renewed = Self.renewed(switching, 1)
        #expect(renewed.commitment == CommitmentState(billingPeriodNumber: 1, expiresDate: at("P2Y"), autoRenew: true))
        #expect(renewed.expiresDate == at("P13M") && renewed.billingPlan == .monthly)
    }

    @Test func planChangeInACancelledCommitmentIsRefused() {
        let state = Self.renewed(Self.bought(), 1)
        let cancelled = Self.changed(
            SubscriptionLifecycle.transition(state, .autoRenewDisabled, LifecycleContext(now: at("P1M5D"))))!.0
        let upfront = PurchaseRequest(productId: "p", period: .oneYear, plan: .upfront)
        let result = SubscriptionLifecycle.transition(
            cancelled, .downgradeRequested(upfront), LifecycleContext(now: at("P1M10D")))
        #expect(result == .rejected(.planChangeNeedsCommitmentRenewal))
        #expect(LifecycleRuleViolation.planChangeNeedsCommitmentRenewal.rule == "plan-change-needs-commitment-renewal")
    }

    /// Rule crossgrade-between-plans [assumed]: at once only between up-front plans of the same duration.
    @Test func crossgradeTimingBetweenPlans() {
        let plus = Product(id: "plus", type: .autoRenewable, group: "g", level: 1, period: .oneYear, price: .free)
        let pro = Product(id: "pro", type: .autoRenewable, group: "g", level: 1, period: .oneYear, price: .free)
        let basic = Product(id: "basic", type: .autoRenewable, group: "g", level: 2, period: .oneYear, price: .free)
        #expect(PlanChangeKind.of(from: plus, to: pro) == .immediate)
        #expect(PlanChangeKind.of(from: plus, currentPlan: .monthly, to: pro) == .atNextRenewal)
        #expect(PlanChangeKind.of(from: plus, to: pro, targetPlan: .monthly) == .atNextRenewal)
        #expect(PlanChangeKind.of(from: basic, to: plus, targetPlan: .monthly) == .immediate)
        #expect(PlanChangeKind.of(from: plus, currentPlan: .monthly, to: plus, targetPlan: .upfront) == .atNextRenewal)
        #expect(PlanChangeKind.of(from: plus, currentPlan: .monthly, to: plus, targetPlan: .monthly) == .currentProduct)
    }

    @Test func upgradeOntoAMonthlyPlanStartsACommitmentAtOnce() {
        let state = Self.boughtUpfront("b")
        let higher = PurchaseRequest(productId: "h", period: .oneYear, plan: .monthly)
        let upgraded = Self.changed(
            SubscriptionLifecycle.transition(state, .upgradeRequested(higher), LifecycleContext(now: at("P1M"))))!.0
        #expect(upgraded.productId == "h" && upgraded.expiresDate == at("P2M"))
        #expect(
            upgraded.commitment == CommitmentState(billingPeriodNumber: 1, expiresDate: at("P1Y1M"), autoRenew: true))
    }

    /// Rule commitment-starts-after-free-trial [assumed]: the trial is not billing period 1; a paid offer period is.
    @Test func freeTrialPrecedesTheCommitmentAndADiscountedOfferDoesNot() {
        let trial = IntroductoryOffer(mode: .freeTrial, period: .weeks(1))
        let request = PurchaseRequest(productId: "p", period: .oneYear, offer: trial, plan: .monthly)
        let inTrial = SubscriptionLifecycle.initialPurchase(request, at: testStart).0
        #expect(inTrial.commitment == nil && inTrial.pendingChange?.plan == .monthly)
        #expect(inTrial.expiresDate == at("7d"))
        let paid = Self.renewed(inTrial, 1)
        #expect(paid.commitment == CommitmentState(billingPeriodNumber: 1, expiresDate: at("P1Y7D"), autoRenew: true))
        #expect(paid.expiresDate == at("P1M7D") && paid.currentOffer == nil && paid.pendingChange == nil)
        let discount = IntroductoryOffer(
            mode: .payAsYouGo, period: .months(1), periods: 2, price: Price(milliunits: 5490))
        let discounted = SubscriptionLifecycle.initialPurchase(
            PurchaseRequest(productId: "p", period: .oneYear, offer: discount, plan: .monthly), at: testStart
        ).0
        #expect(discounted.commitment?.billingPeriodNumber == 1 && discounted.expiresDate == at("P1M"))
    }

    /// Rule offer-for-its-plan: an offer with a plan applies to that plan only; without one, to both.
    @Test func offersApplyToTheirPlan() {
        var offer = IntroductoryOffer(mode: .freeTrial, period: .weeks(1))
        #expect(OfferRules.applies(offer, to: .upfront) && OfferRules.applies(offer, to: .monthly))
        offer.plan = .monthly
        #expect(!OfferRules.applies(offer, to: .upfront) && OfferRules.applies(offer, to: .monthly))
    }

    @Test func catalogueRefusesThePlanWhereItCannotBe() {
        let plan = CommitmentPlan(monthlyPrice: Price(decimal: "10.99")!)
        let annual = Product(
            id: "y", type: .autoRenewable, group: "g", period: .oneYear, price: Price(decimal: "109.99")!)
        #expect(CommitmentPlan.problem(with: plan, of: annual) == nil)
        var monthlyProduct = annual
        monthlyProduct.period = .oneMonth
        #expect(
            CommitmentPlan.problem(with: plan, of: monthlyProduct)?.contains("commitment-plan-needs-one-year") == true)
        let tooCheap = CommitmentPlan(monthlyPrice: Price(decimal: "8.99")!)
        #expect(CommitmentPlan.problem(with: tooCheap, of: annual)?.contains("commitment-price-range") == true)
        let tooDear = CommitmentPlan(monthlyPrice: Price(decimal: "13.99")!)
        #expect(CommitmentPlan.problem(with: tooDear, of: annual)?.contains("commitment-price-range") == true)
        let inSingapore = CommitmentPlan(monthlyPrice: Price(decimal: "10.99")!, prices: ["SGP": Price(decimal: "15")!])
        #expect(CommitmentPlan.problem(with: inSingapore, of: annual)?.contains("commitment-storefronts") == true)
        #expect(plan.price(currency: "USD", in: .unitedStates) == nil)
    }

    /// Rule commitment-price-range in each storefront `monthlyCommitment.prices` names: against the product's up-front
    /// price there, which must exist (the monthly plan is offered only where the up-front plan is, E R5).
    @Test func thePriceRangeHoldsInEveryStorefrontOfThePlan() {
        var annual = Product(
            id: "y", type: .autoRenewable, group: "g", period: .oneYear, price: Price(decimal: "109.99")!,
            currency: "GBP", prices: ["FRA": Price(decimal: "119.99")!])
        let inRange = CommitmentPlan(monthlyPrice: Price(decimal: "10.99")!, prices: ["FRA": Price(decimal: "11.99")!])
        #expect(CommitmentPlan.problem(with: inRange, of: annual) == nil)
        let tooDearInFrance = CommitmentPlan(
            monthlyPrice: Price(decimal: "10.99")!, prices: ["FRA": Price(decimal: "15.00")!])
        #expect(
            CommitmentPlan.problem(with: tooDearInFrance, of: annual)
                == "12 × the monthly price (180.00) must be at least the up-front price (119.99) and at most 1.5 × it "
                + "(179.985) in FRA (rule commitment-price-range)")
        let tooCheapInFrance = CommitmentPlan(
            monthlyPrice: Price(decimal: "10.99")!, prices: ["FRA": Price(decimal: "9.99")!])
        #expect(
            CommitmentPlan.problem(with: tooCheapInFrance, of: annual)?.hasSuffix(
                "in FRA (rule commitment-price-range)") == true)
        annual.prices = [:]
        #expect(
            CommitmentPlan.problem(with: inRange, of: annual)?.hasPrefix(
                "`monthlyCommitment.prices` gives FRA, where the product has no up-front price") == true)
    }
}
