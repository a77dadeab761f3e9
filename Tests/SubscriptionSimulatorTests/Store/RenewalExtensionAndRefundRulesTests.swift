import Testing
@testable import SubscriptionSimulator

/// Renewal-date extensions and refunds in full (issue 14, items 4 and 5): one rule per test, through the store.
@Suite struct RenewalExtensionAndRefundRulesTests {
    func violation(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            guard let error = error as? StoreError else { return "\(error)" }
            switch error {
            case .lifecycle(let v, _, _): return v.rule
            case .refunds(let v): return v.rule
            default: return "\(error)"
            }
        }
    }

    // MARK: Extensions

    @Test func extensionMovesExpiresDateOfTheSameTransactionAndTheRenewal() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.extendRenewalDate(monthly.id, for: "alice", days: 7)
        #expect(store.transactions.count == 1)
        #expect(store.transactions[0].expiresDate == at("P1M7D"))
        let n = store.notifications.last!
        #expect(n.type == .renewalExtended && n.subtype == nil && n.status == .active)
        #expect(n.renewal?.renewalDate == at("P1M7D"))
        try store.advance(to: at("P2M7D"))
        #expect(
            lines(store.notifications).suffix(2) == [
                "\(at("P1M7D")) alice DID_RENEW 1", "\(at("P2M7D")) alice DID_RENEW 1",
            ])
        #expect(store.transactions[1].purchaseDate == at("P1M7D") && store.transactions[1].expiresDate == at("P2M7D"))
    }

    @Test func extendBy1To90Days() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        #expect(
            violation { try store.extendRenewalDate(monthly.id, for: "alice", days: 91) } == "extend-by-1-to-90-days")
        #expect(
            violation { try store.extendRenewalDate(monthly.id, for: "alice", days: 0) } == "extend-by-1-to-90-days")
        #expect(violation { try store.extendRenewalDate(monthly.id, for: "alice", days: 90) } == nil)
    }

    @Test func twoExtensionsPer365Days() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.extendRenewalDate(monthly.id, for: "alice", days: 5)
        try store.advance(to: at("P2M"))
        try store.extendRenewalDate(monthly.id, for: "alice", days: 5)
        try store.advance(to: at("P4M"))
        #expect(
            violation { try store.extendRenewalDate(monthly.id, for: "alice", days: 5) }
                == "two-extensions-per-365-days")
        // 365 days after the first, one slot is free again.
        try store.advance(to: at("365d"))
        #expect(violation { try store.extendRenewalDate(monthly.id, for: "alice", days: 5) } == nil)
    }

    @Test func extensionNeedsAPaidActiveSubscription() throws {
        var store = makeStore()
        try store.purchase(trialMonthly.id, by: "alice")
        #expect(
            violation { try store.extendRenewalDate(trialMonthly.id, for: "alice", days: 5) }
                == "extension-needs-a-paid-active-subscription")
        try store.purchase(monthly.id, by: "bob")
        store.failBilling(for: "bob")
        try store.advance(to: at("P1M1D"))
        #expect(
            violation { try store.extendRenewalDate(monthly.id, for: "bob", days: 5) }
                == "extension-needs-a-paid-active-subscription")
        try store.advance(to: at("P4M"))
        #expect(
            violation { try store.extendRenewalDate(monthly.id, for: "bob", days: 5) }
                == "extension-needs-a-paid-active-subscription")
    }

    @Test func membersExtendedWithTheirPurchaser() throws {
        var store = makeFamilyStore()
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("2d"))
        #expect(
            violation { try store.extendRenewalDate(familyMonthly.id, for: "bob", days: 5) }
                == "members-extended-with-their-purchaser")
        try store.extendRenewalDate(familyMonthly.id, for: "alice", days: 5)
        #expect(
            lines(store.notifications).suffix(3).map { $0.split(separator: " ")[1...2].joined(separator: " ") } == [
                "alice RENEWAL_EXTENDED", "bob RENEWAL_EXTENDED", "carol RENEWAL_EXTENDED",
            ])
        for member in ["bob", "carol"] {
            let n = store.notifications(for: member).last!
            #expect(n.transaction?.ownership == .familyShared && n.transaction?.expiresDate == at("P1M5D"))
            #expect(n.renewal?.renewalDate == at("P1M5D"))
        }
    }

    // MARK: Refunds

    @Test func refundOfAPastTransactionLeavesTheSubscriptionActive() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("P1M10D"))
        try store.refund(monthly.id, of: "alice", transaction: 1, amount: .full)
        let n = store.notifications.last!
        #expect(n.type == .refund && n.status == .active)
        #expect(n.transaction?.transactionId == store.transactions[0].transactionId)
        #expect(n.transaction?.revocation?.percentage == 100_000)
        #expect(store.entitlements(for: "alice") == [monthly.id])
        #expect(store.transactions[1].revocation == nil)
    }

    @Test func proratedRefundCarriesItsPercentage() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("15d"))
        try store.refund(monthly.id, of: "alice", transaction: nil, amount: .prorated(milliPercent: 50_000))
        let decoded = NotificationEncoder.decodedView(of: store.notifications.last!, app: store.app)
        #expect(FieldPath.lookup("transaction.revocationType", in: decoded) == .string("REFUND_PRORATED"))
        #expect(FieldPath.lookup("transaction.revocationPercentage", in: decoded) == .integer(50_000))
        #expect(store.notifications.last!.status == .revoked)
        #expect(
            violation { try store.refund(coins.id, of: "alice", transaction: nil, amount: .prorated(milliPercent: 0)) }
                == "prorated-percentage-in-milliunits")
    }

    @Test func refundRequestTurnsAutoRenewOffAndAsksForConsumption() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("3d"))
        try store.requestRefund(monthly.id, by: "alice", reason: .unintendedPurchase)
        #expect(
            lines(store.notifications).suffix(2) == [
                "\(at("3d")) alice DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED 1",
                "\(at("3d")) alice CONSUMPTION_REQUEST 1",
            ])
        let decoded = NotificationEncoder.decodedView(of: store.notifications.last!, app: store.app)
        #expect(FieldPath.lookup("data.consumptionRequestReason", in: decoded) == .string("UNINTENDED_PURCHASE"))
        #expect(
            violation { try store.requestRefund(monthly.id, by: "alice", reason: .other) }
                == "one-refund-request-at-a-time")
    }

    @Test func consumptionInformationWithin12Hours() throws {
        var store = makeStore()
        try store.purchase(coins.id, by: "alice")
        try store.requestRefund(coins.id, by: "alice", reason: .other)
        #expect(store.notifications.last?.renewal == nil && store.notifications.last?.status == nil)
        try store.advance(to: at("12h"))
        #expect(
            violation { try store.sendConsumptionInformation(coins.id, of: "alice", customerConsented: false) }
                == "consumption-information-needs-consent")
        #expect(
            violation { try store.sendConsumptionInformation(coins.id, of: "alice", customerConsented: true) } == nil)
        try store.advance(to: at("PT12H1S"))
        #expect(
            violation { try store.sendConsumptionInformation(coins.id, of: "alice", customerConsented: true) }
                == "consumption-information-within-12-hours")
    }

    @Test func consumptionInformationAnswersAConsumptionRequest() throws {
        var store = makeStore()
        try store.purchase(lifetime.id, by: "alice")
        try store.requestRefund(lifetime.id, by: "alice", reason: .other)
        #expect(store.notifications.count == 1)
        #expect(
            violation { try store.sendConsumptionInformation(lifetime.id, of: "alice", customerConsented: true) }
                == "consumption-information-answers-a-consumption-request")
    }

    @Test func decisionNeedsARefundRequest() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        #expect(
            violation { try store.decideRefund(monthly.id, of: "alice", .decline) } == "decision-needs-a-refund-request"
        )
    }

    @Test func declinedRefundKeepsAutoRenewOff() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.requestRefund(monthly.id, by: "alice", reason: .unsatisfiedWithPurchase)
        try store.advance(to: at("2d"))
        try store.decideRefund(monthly.id, of: "alice", .decline)
        #expect(lines(store.notifications).last == "\(at("2d")) alice REFUND_DECLINED 1")
        #expect(store.notifications.last?.renewal?.autoRenewOn == false)
        try store.advance(to: at("P1M"))
        #expect(lines(store.notifications).last == "\(at("P1M")) alice EXPIRED/VOLUNTARY 2")
    }

    @Test func refundReversalRestoresAccess() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("5d"))
        try store.refund(monthly.id, of: "alice")
        #expect(store.entitlements(for: "alice").isEmpty)
        try store.advance(to: at("9d"))
        try store.reverseRefund(monthly.id, of: "alice")
        #expect(lines(store.notifications).last == "\(at("9d")) alice REFUND_REVERSED 1")
        #expect(store.notifications.last?.transaction?.revocation == nil)
        #expect(store.transactions[0].revocation == nil && store.transactions[0].expiresDate == at("P1M"))
        #expect(store.entitlements(for: "alice") == [monthly.id])
        #expect(violation { try store.reverseRefund(monthly.id, of: "alice") } == "reversal-needs-a-refund")
    }

    @Test func refundReversalOnDeviceDeliversTheTransactionWithoutRevocation() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("5d"))
        try store.refund(monthly.id, of: "alice", reason: 1)
        try store.advance(to: at("9d"))
        try store.reverseRefund(monthly.id, of: "alice")
        let updates = store.deviceEvents(for: "alice").compactMap { event -> (TransactionUpdate, Revocation?)? in
            guard case .transaction(let update, let record) = event.kind else { return nil }
            return (update, record.revocation)
        }
        #expect(updates.map(\.0) == [.purchased, .revoked, .reinstated])
        #expect(updates[1].1?.kind == .refundFull && updates[2].1 == nil)
        let states = store.deviceEvents(for: "alice").compactMap { event -> RenewalState? in
            guard case .renewalState(_, let state) = event.kind else { return nil }
            return state
        }
        #expect(states == [.subscribed, .revoked, .subscribed])
    }

    @Test func refundReversalOfAOneTimePurchaseRestoresIt() throws {
        var store = makeStore()
        try store.purchase(lifetime.id, by: "alice")
        try store.refund(lifetime.id, of: "alice")
        try store.advance(to: at("1d"))
        try store.reverseRefund(lifetime.id, of: "alice")
        #expect(store.entitlements(for: "alice") == [lifetime.id])
        #expect(store.notifications.map(\.type) == [.oneTimeCharge, .refund, .refundReversed])
    }

    // MARK: Device view

    @Test func billingIssueMessageWhenOpeningTheAppInBillingRetry() throws {
        var store = makeFamilyStore(grace: .threeDays)
        try store.purchase(familyMonthly.id, by: "alice")
        store.openApp(for: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M1D"))
        store.openApp(for: "alice")
        store.openApp(for: "bob")
        try store.advance(to: at("P1M10D"))
        store.openApp(for: "alice")
        try store.fixBilling(for: "alice")
        store.openApp(for: "alice")
        let messages = { (customer: String) in
            store.deviceEvents(for: customer).filter {
                if case .message = $0.kind { return true }
                return false
            }.map(\.description)
        }
        #expect(
            messages("alice") == [
                "\(at("P1M1D")) alice message billingIssue \(familyMonthly.id)",
                "\(at("P1M10D")) alice message billingIssue \(familyMonthly.id)",
            ])
        #expect(messages("bob").isEmpty)
        // The message comes after the DID_FAIL_TO_RENEW's renewal-state change on the device.
        let alice = store.deviceEvents(for: "alice").map(\.description)
        let failed = alice.firstIndex { $0.contains("renewalState \(familyMonthly.id) inGracePeriod") }!
        let message = alice.firstIndex { $0.contains("message billingIssue") }!
        #expect(failed < message)
    }
}

extension RenewalExtensionAndRefundRulesTests {
    @Test func massExtensionSkipsIneligibleAndSendsFailureOnlyWhereAnExtensionFails() throws {
        var store = makeFamilyStore(grace: .threeDays)
        try store.purchase(familyMonthly.id, by: "alice")
        try store.purchase(familyMonthly.id, by: "dave")
        store.failBilling(for: "dave")
        try store.purchase(familyMonthly.id, by: "erin")
        try store.cancel(familyMonthly.id, by: "erin")
        try store.purchase(familyMonthly.id, by: "frank")
        try store.purchase(familyMonthly.id, by: "gina")
        try store.extendRenewalDate(familyMonthly.id, for: "gina", days: 1)
        try store.extendRenewalDate(familyMonthly.id, for: "gina", days: 1)
        try store.failNextRenewalExtension(familyMonthly.id, for: "frank")
        try store.advance(to: at("P1M10D"))
        let before = store.notifications.count
        let summary = try store.extendRenewalDatesForAllActiveSubscribers(
            familyMonthly.id, days: 5, reason: .serviceIssueOrOutage, requestIdentifier: "r-1")
        // dave (billing retry) and gina (two extensions in 365 days) are ineligible (S-EXT-INELIG): skipped, not
        // counted; frank's marked extension fails.
        #expect(summary.succeededCount == 1 && summary.failedCount == 1)
        #expect(
            lines(Array(store.notifications[before...])) == [
                "\(at("P1M10D")) alice RENEWAL_EXTENDED 1", "\(at("P1M10D")) bob RENEWAL_EXTENDED 1",
                "\(at("P1M10D")) carol RENEWAL_EXTENDED 1", "\(at("P1M10D")) frank RENEWAL_EXTENSION/FAILURE 1",
                "\(at("P1M10D")) (app) RENEWAL_EXTENSION/SUMMARY",
            ])
        // The mark is used once: the next request extends frank.
        let again = try store.extendRenewalDatesForAllActiveSubscribers(
            familyMonthly.id, days: 5, requestIdentifier: "r-1b")
        #expect(again.succeededCount == 2 && again.failedCount == 0)
    }

    @Test func aSingleExtensionCarriesNoRequestIdentifier() throws {
        var store = makeFamilyStore(grace: .threeDays)
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("5d"))
        let before = store.notifications.count
        try store.extendRenewalDate(familyMonthly.id, for: "alice", days: 3)
        let sent = Array(store.notifications[before...])
        #expect(!sent.isEmpty && sent.allSatisfy { $0.type == .renewalExtended })
        for n in sent {
            let text = CanonicalJSON.string(NotificationEncoder.decodedView(of: n, app: store.app))
            #expect(text.contains("\"signedTransactionInfo\"") && !text.contains("requestIdentifier"), "\(text)")
        }
    }

    @Test func proratedRefundByTimeRemainingFollowsTheTimeLeft() throws {
        // 21 of 31 days left: 67.742 % = 67742 milliunits; half a period: 50000; none left: nil.
        let start = at("0")
        let end = at("P1M")
        #expect(BillingRules.proratedRefundPercentage(purchaseDate: start, expiresDate: end, at: at("10d")) == 67742)
        #expect(
            BillingRules.proratedRefundPercentage(
                purchaseDate: start, expiresDate: start.adding(.days(2)), at: start.adding(.days(1))) == 50000)
        #expect(BillingRules.proratedRefundPercentage(purchaseDate: start, expiresDate: end, at: end) == nil)
        var store = makeFamilyStore(grace: .threeDays)
        try store.purchase(familyMonthly.id, by: "alice")
        try store.advance(to: at("P1M10D"))
        // A past period has no time left: refused, naming the rule.
        #expect(throws: StoreError.self) {
            try store.refund(familyMonthly.id, of: "alice", transaction: 1, amount: .proratedByTimeRemaining, reason: 0)
        }
        // A stated percentage wins; without one, the current period's time left (18 of 28 days, 5 February to 5 March).
        try store.refund(
            familyMonthly.id, of: "alice", transaction: 1, amount: .prorated(milliPercent: 1234), reason: 0)
        try store.refund(familyMonthly.id, of: "alice", transaction: 2, amount: .proratedByTimeRemaining, reason: 0)
        let refunds = store.notifications.filter { $0.type == .refund }.map {
            NotificationEncoder.decodedView(of: $0, app: store.app)
                .value(at: "data.signedTransactionInfo.revocationPercentage")
        }
        #expect(refunds == [.integer(1234), .integer(64286)])
    }

    @Test func massExtensionSkipsAMarkedSubscriptionThatIsIneligible() throws {
        var store = makeFamilyStore(grace: .threeDays)
        try store.purchase(familyMonthly.id, by: "dave")
        store.failBilling(for: "dave")
        try store.failNextRenewalExtension(familyMonthly.id, for: "dave")
        try store.advance(to: at("P1M10D"))
        let before = store.notifications.count
        let summary = try store.extendRenewalDatesForAllActiveSubscribers(
            familyMonthly.id, days: 5, requestIdentifier: "r-4")
        #expect(summary.succeededCount == 0 && summary.failedCount == 0)
        #expect(lines(Array(store.notifications[before...])) == ["\(at("P1M10D")) (app) RENEWAL_EXTENSION/SUMMARY"])
        let view = NotificationEncoder.decodedView(of: store.notifications.last!, app: store.app)
        #expect(view.value(at: "summary.storefrontCountryCodes") == nil)
        #expect(view.value(at: "summary.failedCount") == .integer(0))
    }

    @Test func massExtensionSummaryReportsTheRequestAfterEveryExtension() throws {
        var store = makeFamilyStore(grace: .threeDays)
        try store.purchase(familyMonthly.id, by: "alice")
        try store.purchase(familyMonthly.id, by: "dave")
        store.failBilling(for: "dave")
        try store.advance(to: at("P1M10D"))
        _ = try store.extendRenewalDatesForAllActiveSubscribers(
            familyMonthly.id, days: 5, requestIdentifier: "r-2", storefrontCountryCodes: ["USA"])
        let last = try #require(store.notifications.last)
        #expect(last.type == .renewalExtension && last.subtype == .summary && last.isAboutTheApp)
        let view = NotificationEncoder.decodedView(of: last, app: store.app)
        #expect(view.value(at: "data") == nil)
        #expect(
            view.value(at: "summary")
                == .object([
                    "requestIdentifier": .string("r-2"), "environment": .string("LocalTesting"),
                    "appAppleId": .integer(1), "bundleId": .string("com.example.app"),
                    "productId": .string(familyMonthly.id), "storefrontCountryCodes": .array([.string("USA")]),
                    "succeededCount": .integer(1), "failedCount": .integer(0),
                ]))
        // A refused request (days outside 1...90) sends nothing, SUMMARY included.
        let count = store.notifications.count
        #expect(throws: StoreError.self) {
            try store.extendRenewalDatesForAllActiveSubscribers(familyMonthly.id, days: 91, requestIdentifier: "r-3")
        }
        #expect(store.notifications.count == count)
    }
}
