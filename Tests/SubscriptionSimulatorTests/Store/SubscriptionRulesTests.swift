import Testing
@testable import SubscriptionSimulator

/// One rule per test, through the store's public actions.
@Suite struct SubscriptionRulesTests {
    @Test func initialPurchaseSendsSubscribedInitialBuy() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        #expect(lines(store.notifications) == ["\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1"])
        let tx = store.transactions[0]
        #expect(tx.transactionId == tx.originalTransactionId)
        #expect(tx.expiresDate == at("P1M"))
        #expect(tx.reason == .purchase)
        #expect(tx.price.milliunits == 9990)
    }

    @Test func renewalKeepsOriginalIdAndDrawsNewIds() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("P2M"))
        let txs = store.transactions(for: "alice")
        #expect(txs.count == 3)
        #expect(Set(txs.map(\.originalTransactionId)).count == 1)
        #expect(Set(txs.map(\.transactionId)).count == 3)
        #expect(Set(txs.compactMap(\.webOrderLineItemId)).count == 3)
        #expect(txs.dropFirst().allSatisfy { $0.reason == .renewal })
        #expect(txs.map(\.expiresDate) == [at("P1M"), at("P2M"), at("P3M")])
        #expect(
            lines(store.notifications).dropFirst() == [
                "\(at("P1M")) alice DID_RENEW 1", "\(at("P2M")) alice DID_RENEW 1",
            ])
    }

    @Test func renewalDatesFollowTheAnchorWithMonthEndClamping() throws {
        var store = makeStore()
        try store.advance(to: CalendarMath.instant(year: 2026, month: 1, day: 31, hour: 9))
        try store.purchase(monthly.id, by: "alice")
        try store.advance(by: .months(3))
        let expiries = store.transactions(for: "alice").compactMap(\.expiresDate).map(\.description)
        #expect(
            expiries == [
                "2026-02-28T09:00:00Z", "2026-03-31T09:00:00Z", "2026-04-30T09:00:00Z", "2026-05-31T09:00:00Z",
            ])
    }

    @Test func cancelThenVoluntaryExpiry() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.cancel(monthly.id, by: "alice")
        try store.advance(to: at("P2M"))
        #expect(
            lines(store.notifications) == [
                "\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1",
                "\(at("10d")) alice DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED 1",
                "\(at("P1M")) alice EXPIRED/VOLUNTARY 2",
            ])
        #expect(store.notifications.last?.renewal?.expirationIntent == .customerCancelled)
        #expect(store.entitlements(for: "alice").isEmpty)
    }

    @Test func resumeBeforeExpiryKeepsRenewing() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.cancel(monthly.id, by: "alice")
        try store.resume(monthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        #expect(lines(store.notifications).last == "\(at("P1M")) alice DID_RENEW 1")
    }

    @Test func resubscribeKeepsOriginalTransactionId() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.cancel(monthly.id, by: "alice")
        try store.advance(to: at("P1M10D"))
        try store.purchase(monthly.id, by: "alice")
        let last = store.notifications.last!
        #expect(last.type == .subscribed && last.subtype == .resubscribe)
        #expect(last.transaction?.originalTransactionId == store.transactions[0].originalTransactionId)
        #expect(last.transaction?.transactionId != last.transaction?.originalTransactionId)
        // A gap of 10 days (≤ 60) keeps recentSubscriptionStartDate (reference §5.15).
        #expect(last.renewal?.recentSubscriptionStartDate == at("0"))
    }

    @Test func resubscribeAfterMoreThanSixtyDaysRestartsRecentStartDate() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.cancel(monthly.id, by: "alice")
        try store.advance(to: at("P1M61D"))
        try store.purchase(monthly.id, by: "alice")
        #expect(store.notifications.last?.renewal?.recentSubscriptionStartDate == at("P1M61D"))
    }

    @Test func secondPurchaseInActiveGroupIsAnError() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        #expect(throws: StoreError.lifecycle(.changingProductsNotSupported, customer: "alice", productId: monthly.id)) {
            try store.purchase(monthly.id, by: "alice")
        }
    }

    @Test func billingFailureWithoutGraceEntersRetry() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M"))
        let n = store.notifications.last!
        #expect(n.type == .didFailToRenew && n.subtype == nil && n.status == .billingRetry)
        #expect(n.renewal?.isInBillingRetryPeriod == true)
        #expect(n.renewal?.gracePeriodExpiresDate == nil)
        #expect(n.renewal?.expirationIntent == .billingError)
        #expect(n.renewal?.autoRenewOn == true)
        #expect(n.transaction?.expiresDate == at("P1M"))
        #expect(store.entitlements(for: "alice").isEmpty)
    }

    @Test(arguments: [(GracePeriodSetting.threeDays, 3), (.sixteenDays, 16), (.twentyEightDays, 28)])
    func billingFailureWithGraceKeepsAccessUntilGraceEnds(setting: GracePeriodSetting, days: Int) throws {
        var store = makeStore(grace: setting)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M"))
        let n = store.notifications.last!
        #expect(n.type == .didFailToRenew && n.subtype == .gracePeriod && n.status == .gracePeriod)
        #expect(n.renewal?.gracePeriodExpiresDate == at("P1M").adding(.days(days)))
        #expect(n.renewal?.isInBillingRetryPeriod == true)
        #expect(store.entitlements(for: "alice") == [monthly.id])
        try store.advance(to: at("P1M").adding(.days(days)))
        #expect(lines([store.notifications.last!]) == ["\(at("P1M").adding(.days(days))) alice GRACE_PERIOD_EXPIRED 3"])
        #expect(store.entitlements(for: "alice").isEmpty)
    }

    @Test(arguments: [GracePeriodSetting.off, .threeDays, .sixteenDays, .twentyEightDays])
    func retryExhaustedSixtyDaysAfterFailureWhateverTheGrace(setting: GracePeriodSetting) throws {
        var store = makeStore(grace: setting)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M70D"))
        let last = store.notifications.last!
        #expect(last.instant == at("P1M60D"))
        #expect(last.type == .expired && last.subtype == .billingRetry && last.status == .expired)
        #expect(last.renewal?.isInBillingRetryPeriod == false)
        #expect(last.renewal?.autoRenewOn == false)
        #expect(last.renewal?.expirationIntent == .billingError)
        // A-9: a past grace expiry date is kept through the end of retry.
        #expect((last.renewal?.gracePeriodExpiresDate != nil) == (setting != .off))
    }

    @Test func recoveryInsideGraceKeepsTheBillingCycle() throws {
        var store = makeStore(grace: .sixteenDays)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M14D"))
        try store.fixBilling(for: "alice")
        let n = store.notifications.last!
        #expect(n.type == .didRenew && n.subtype == .billingRecovery && n.status == .active)
        #expect(n.transaction?.purchaseDate == at("P1M14D"))
        #expect(n.transaction?.expiresDate == at("P2M"))
        #expect(n.renewal?.gracePeriodExpiresDate == nil && n.renewal?.isInBillingRetryPeriod == nil)
        try store.advance(to: at("P2M"))
        #expect(lines([store.notifications.last!]) == ["\(at("P2M")) alice DID_RENEW 1"])
    }

    @Test func recoveryWithoutGraceSetsANewBillingDate() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M10D"))
        try store.fixBilling(for: "alice")
        let n = store.notifications.last!
        #expect(n.type == .didRenew && n.subtype == .billingRecovery)
        #expect(n.transaction?.expiresDate == at("P1M10D").adding(.months(1)))
        #expect(n.renewal?.recentSubscriptionStartDate == at("0"))
    }

    @Test func recoveryAfterGraceSetsANewBillingDate() throws {
        var store = makeStore(grace: .threeDays)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M40D"))
        try store.fixBilling(for: "alice")
        #expect(
            lines(store.notifications) == [
                "\(at("0")) alice SUBSCRIBED/INITIAL_BUY 1", "\(at("P1M")) alice DID_FAIL_TO_RENEW/GRACE_PERIOD 4",
                "\(at("P1M3D")) alice GRACE_PERIOD_EXPIRED 3", "\(at("P1M40D")) alice DID_RENEW/BILLING_RECOVERY 1",
            ])
        #expect(store.notifications.last?.transaction?.expiresDate == at("P1M40D").adding(.months(1)))
    }

    @Test(arguments: [GracePeriodSetting.off, .sixteenDays])
    func cancelDuringBillingFailureExpiresAtOnce(setting: GracePeriodSetting) throws {
        var store = makeStore(grace: setting)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M5D"))
        try store.cancel(monthly.id, by: "alice")
        let statusBefore = setting == .off ? 3 : 4
        #expect(
            lines(store.notifications.suffix(2)) == [
                "\(at("P1M5D")) alice DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED \(statusBefore)",
                "\(at("P1M5D")) alice EXPIRED/BILLING_RETRY 2",
            ])
        let disabled = store.notifications[store.notifications.count - 2]
        #expect(disabled.renewal?.autoRenewOn == false)
        let expired = store.notifications.last!
        #expect(expired.renewal?.expirationIntent == .billingError)
        #expect(expired.renewal?.isInBillingRetryPeriod == false)
        try store.advance(to: at("P4M"))
        #expect(store.notifications.count == 4, "no GRACE_PERIOD_EXPIRED or later EXPIRED follows")
    }

    @Test func productRemovedFromSaleFailsTheNextRenewalWithoutGrace() throws {
        var store = makeStore(grace: .sixteenDays)
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("10d"))
        try store.removeFromSale(monthly.id)
        #expect(store.notifications.count == 1, "nothing is sent at removal (A-8)")
        try store.advance(to: at("P1M"))
        let n = store.notifications.last!
        #expect(n.type == .didFailToRenew && n.subtype == nil && n.status == .billingRetry)
        #expect(n.renewal?.expirationIntent == .productNotForSale)
        try store.advance(to: at("P1M60D"))
        let last = store.notifications.last!
        #expect(last.type == .expired && last.subtype == .productNotForSale && last.instant == at("P1M60D"))
        #expect(last.renewal?.expirationIntent == .productNotForSale)
    }

    @Test func productRestoredToSaleWithinSixtyDaysRecovers() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.removeFromSale(monthly.id)
        try store.advance(to: at("P1M20D"))
        try store.restoreToSale(monthly.id)
        let n = store.notifications.last!
        #expect(n.type == .didRenew && n.subtype == .billingRecovery && n.instant == at("P1M20D"))
        #expect(n.transaction?.expiresDate == at("P1M20D").adding(.months(1)))
    }

    @Test func freeTrialTransactionHasOfferFieldsAndZeroPrice() throws {
        var store = makeStore()
        try store.purchase(trialMonthly.id, by: "alice")
        let tx = store.transactions[0]
        #expect(tx.offer?.mode == .freeTrial && tx.price == .free && tx.expiresDate == at("1w"))
        try store.advance(to: at("1w"))
        let renewal = store.transactions[1]
        #expect(
            renewal.offer == nil && renewal.price.milliunits == 4990
                && renewal.expiresDate == at("1w").adding(.months(1)))
    }

    @Test func introOfferIsUsedOncePerGroup() throws {
        var store = makeStore()
        try store.purchase(trialMonthly.id, by: "alice")
        try store.cancel(trialMonthly.id, by: "alice")
        try store.advance(to: at("2w"))
        try store.purchase(trialMonthly.id, by: "alice")
        #expect(store.transactions.last?.offer == nil)
        #expect(store.transactions.last?.expiresDate == at("2w").adding(.months(1)))
    }

    @Test func paidToPaidOnlyGivesNoGraceWhenATrialConverts() throws {
        var store = makeStore(grace: .sixteenDays, eligibility: .paidToPaidOnly)
        try store.purchase(trialMonthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("1w"))
        let n = store.notifications.last!
        #expect(n.type == .didFailToRenew && n.subtype == nil && n.status == .billingRetry)
    }

    @Test func paidToPaidOnlyStillGivesGraceToPaidRenewals() throws {
        var store = makeStore(grace: .sixteenDays, eligibility: .paidToPaidOnly)
        try store.purchase(monthly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("P1M"))
        #expect(store.notifications.last?.subtype == .gracePeriod)
    }

    @Test(arguments: [(GracePeriodSetting.threeDays, 3), (.sixteenDays, 6), (.twentyEightDays, 6)])
    func weeklyGraceIsCapped(setting: GracePeriodSetting, days: Int) throws {
        var store = makeStore(grace: setting)
        try store.purchase(weekly.id, by: "alice")
        store.failBilling(for: "alice")
        try store.advance(to: at("1w"))
        #expect(store.notifications.last?.renewal?.gracePeriodExpiresDate == at("1w").adding(.days(days)))
    }

    @Test func refundEndsTheSubscriptionThere() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("P1M3D"))
        try store.refund(monthly.id, of: "alice", reason: 1)
        let n = store.notifications.last!
        #expect(n.type == .refund && n.status == .revoked && n.renewal?.autoRenewOn == false)
        #expect(n.transaction?.revocation == Revocation(date: at("P1M3D"), reason: 1, kind: .refundFull))
        #expect(n.transaction?.revocation?.percentage == 100_000)
        #expect(n.transaction?.transactionId == store.transactions[1].transactionId, "the current transaction")
        try store.advance(to: at("P6M"))
        #expect(store.notifications.count == 3, "nothing follows a refund")
        #expect(store.entitlements(for: "alice").isEmpty)
    }

    @Test func refundWithoutPurchaseIsAnError() {
        var store = makeStore()
        #expect(throws: StoreError.nothingToRefund(customer: "alice", productId: monthly.id)) {
            try store.refund(monthly.id, of: "alice")
        }
    }

    @Test(arguments: [lifetime, coins, season])
    func oneTimePurchasesSendOneTimeCharge(product: Product) throws {
        var store = makeStore()
        try store.purchase(product.id, by: "alice")
        let n = store.notifications.last!
        #expect(n.type == .oneTimeCharge && n.subtype == nil && n.status == nil && n.renewal == nil)
        #expect(n.transaction?.productType == product.type && n.transaction?.webOrderLineItemId == nil)
    }

    @Test func entitlementsFollowProductTypes() throws {
        var store = makeStore()
        try store.purchase(lifetime.id, by: "alice")
        try store.purchase(coins.id, by: "alice")
        try store.purchase(season.id, by: "alice")
        #expect(store.entitlements(for: "alice") == [lifetime.id, season.id])
        try store.advance(to: at("P3M"))
        #expect(store.entitlements(for: "alice") == [lifetime.id])
        #expect(store.entitlements(for: "alice", at: at("P2M")) == [lifetime.id, season.id])
    }

    @Test func nonConsumableCanBeBoughtOnlyOnce() throws {
        var store = makeStore()
        try store.purchase(lifetime.id, by: "alice")
        #expect(throws: StoreError.nonConsumableAlreadyOwned(customer: "alice", productId: lifetime.id)) {
            try store.purchase(lifetime.id, by: "alice")
        }
    }

    @Test func sameSeedGivesIdenticalRuns() throws {
        func run(seed: UInt64) throws -> [SentNotification] {
            var store = makeStore(grace: .sixteenDays, seed: seed)
            try store.purchase(monthly.id, by: "alice")
            store.failBilling(for: "alice")
            try store.advance(to: at("P1M3D"))
            try store.fixBilling(for: "alice")
            try store.advance(to: at("P3M"))
            return store.notifications
        }
        #expect(try run(seed: 9) == run(seed: 9))
        #expect(try run(seed: 9).map(\.notificationUUID) != run(seed: 10).map(\.notificationUUID))
    }

    @Test func aCopyIsAWhatIfBranch() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        var branch = store
        try branch.cancel(monthly.id, by: "alice")
        try branch.advance(to: at("P2M"))
        try store.advance(to: at("P2M"))
        #expect(store.entitlements(for: "alice") == [monthly.id])
        #expect(branch.entitlements(for: "alice").isEmpty)
    }
}
