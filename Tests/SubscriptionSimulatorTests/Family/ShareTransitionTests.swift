import Testing

@testable import SubscriptionSimulator

/// ``ShareTransition``, row by row: every (share phase, input) pair, each with the phase and effects it gives.
@Suite struct ShareTransitionTests {
    static let at1h = at("1h")
    static let phases: [SharePhase] = [.pending(at: at1h), .held, .granted, .ended]

    static func run(_ phase: SharePhase, _ input: ShareInput) -> ShareTransitionResult {
        ShareTransition.transition(phase, input)
    }

    @Test func delayStartedMakesEveryPhaseWaitForTheDelay() {
        for phase in Self.phases {
            #expect(
                Self.run(phase, .delayStarted(at: at("2h")))
                    == .changed(.pending(at: at("2h")), [.scheduleGrant(at: at("2h"))]), "\(phase)")
        }
    }

    @Test func offeredToAMemberWithoutTheShareJoinsAPendingGrantOrStartsNow() {
        #expect(
            Self.run(.ended, .offered(joiningPendingAt: Self.at1h, start: .grantNow))
                == .changed(.pending(at: Self.at1h), [.scheduleGrant(at: Self.at1h)]))
        #expect(
            Self.run(.ended, .offered(joiningPendingAt: nil, start: .grantNow))
                == .changed(.granted, [.grant(restored: false)]))
        #expect(Self.run(.ended, .offered(joiningPendingAt: nil, start: .holdUntilRecovery)) == .changed(.held, []))
        #expect(Self.run(.ended, .offered(joiningPendingAt: nil, start: .nothing)) == .changed(.ended, []))
    }

    @Test func offeredToAMemberWhoHasOrAwaitsTheShareIsIgnored() {
        for phase in [SharePhase.pending(at: Self.at1h), .held, .granted] {
            #expect(Self.run(phase, .offered(joiningPendingAt: nil, start: .grantNow)) == .ignored, "\(phase)")
        }
    }

    @Test func delayEndedStartsTheShareInTheSameFamily() {
        let pending = SharePhase.pending(at: Self.at1h)
        #expect(
            Self.run(pending, .delayEnded(sameFamily: true, start: .grantNow))
                == .changed(.granted, [.grant(restored: false)]))
        #expect(Self.run(pending, .delayEnded(sameFamily: true, start: .holdUntilRecovery)) == .changed(.held, []))
        #expect(Self.run(pending, .delayEnded(sameFamily: true, start: .nothing)) == .changed(.ended, []))
    }

    @Test func delayEndedAfterSomeoneLeftTheFamilyGivesNothing() {
        #expect(
            Self.run(.pending(at: Self.at1h), .delayEnded(sameFamily: false, start: .grantNow)) == .changed(.ended, []))
    }

    @Test func delayEndedIsIgnoredByAShareNotWaiting() {
        for phase in [SharePhase.held, .granted, .ended] {
            #expect(Self.run(phase, .delayEnded(sameFamily: true, start: .grantNow)) == .ignored, "\(phase)")
        }
    }

    @Test func restoredGrantsANonConsumableAsRestored() {
        for phase in [SharePhase.pending(at: Self.at1h), .held, .ended] {
            #expect(Self.run(phase, .restored) == .changed(.granted, [.grant(restored: true)]), "\(phase)")
        }
        #expect(Self.run(.granted, .restored) == .ignored)
    }

    @Test func aHeldShareIsGrantedAtTheRecoveryAndEndsWithTheSubscription() {
        func notified(_ phase: SubscriptionPhase) -> ShareInput {
            .purchaserNotified(.didRenew, .billingRecovery, purchaserPhase: phase, refundReason: 0)
        }
        #expect(Self.run(.held, notified(.active)) == .changed(.granted, [.grant(restored: false)]))
        #expect(Self.run(.held, notified(.gracePeriod)) == .changed(.granted, [.grant(restored: false)]))
        #expect(Self.run(.held, notified(.billingRetry)) == .ignored)
        #expect(Self.run(.held, notified(.expired)) == .changed(.ended, []))
        #expect(Self.run(.held, notified(.revoked)) == .changed(.ended, []))
    }

    @Test func aGrantedShareFollowsThePurchasersNotifications() {
        #expect(
            Self.run(.granted, .purchaserNotified(.didRenew, nil, purchaserPhase: .active, refundReason: 0))
                == .changed(.granted, [.notifyMember(.didRenew, nil)]))
        #expect(
            Self.run(.granted, .purchaserNotified(.expired, .voluntary, purchaserPhase: .expired, refundReason: 0))
                == .changed(.granted, [.notifyMember(.expired, .voluntary)]))
        // REFUND reaches members as REVOKE, with the refund's reason (rule member-notifications).
        #expect(
            Self.run(.granted, .purchaserNotified(.refund, nil, purchaserPhase: .revoked, refundReason: 1))
                == .changed(.ended, [.revokeMember(reason: 1)]))
        // PRICE_INCREASE and REFUND_DECLINED are the purchaser's alone.
        #expect(
            Self.run(.granted, .purchaserNotified(.priceIncrease, .pending, purchaserPhase: .active, refundReason: 0))
                == .ignored)
        #expect(
            Self.run(.granted, .purchaserNotified(.refundDeclined, nil, purchaserPhase: .active, refundReason: 0))
                == .ignored)
    }

    @Test func aShareWithNothingGivenIsNotToldAnything() {
        for phase in [SharePhase.pending(at: Self.at1h), .ended] {
            #expect(
                Self.run(phase, .purchaserNotified(.didRenew, nil, purchaserPhase: .active, refundReason: 0))
                    == .ignored, "\(phase)")
        }
    }

    @Test func aResubscriptionEndsOnlyGrantedShares() {
        #expect(Self.run(.granted, .purchaserResubscribed) == .changed(.ended, []))
        for phase in [SharePhase.pending(at: Self.at1h), .held, .ended] {
            #expect(Self.run(phase, .purchaserResubscribed) == .ignored, "\(phase)")
        }
    }

    @Test func endingAShareRevokesWhatWasGivenAndCancelsWhatWasNot() {
        #expect(Self.run(.granted, .ended(reason: 1)) == .changed(.ended, [.revokeMember(reason: 1)]))
        #expect(Self.run(.pending(at: Self.at1h), .ended(reason: 0)) == .changed(.ended, [.cancelGrant]))
        #expect(Self.run(.held, .ended(reason: 0)) == .changed(.ended, []))
        #expect(Self.run(.ended, .ended(reason: 0)) == .ignored)
    }
}
