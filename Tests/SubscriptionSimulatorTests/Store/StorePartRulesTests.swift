import Testing

@testable import SubscriptionSimulator

/// The rules the store's parts own since issue 44 (part 3), each tested on the part alone: the store facade asks the
/// part and carries out what follows.

private func price(_ text: String) -> Price { Price(decimal: text)! }

private func refundRule(_ error: any Error) -> String? {
    guard case .refunds(let violation) = error as? StoreError else { return nil }
    return violation.rule
}

private func scheduleRule(_ error: any Error) -> String? {
    guard case .priceIncreaseSchedule(_, let rule, _) = error as? StoreError else { return nil }
    return rule
}

/// ``CustomerDirectory``: its fields change only through its own methods.
@Suite struct CustomerDirectoryMutationTests {
    @Test func entitlementRefreshesAreSortedThenCleared() {
        var directory = CustomerDirectory()
        var ids = IdentifierSource(seed: 1)
        for name in ["alice", "bob", "carol"] { _ = directory.register(name, ids: &ids) }
        directory.needsRefresh(ofCustomerAt: 2)
        directory.needsRefresh(ofCustomerAt: 0)
        directory.needsRefresh("carol")
        directory.needsRefresh("nobody")
        directory.sortRefreshes()
        #expect(directory.toRefresh == [0, 2, 2], "in the order first named; an unknown name is not marked")
        #expect(directory.isConsistent)
        directory.clearRefreshes()
        #expect(directory.toRefresh.isEmpty)
    }

    @Test func anAppAccountTokenIsReplacedAndPutBack() {
        var directory = CustomerDirectory()
        let none = directory.setAppAccountToken("7e3fb20b-4cdb-47cc-936d-99d65f608138", for: "alice")
        #expect(none == nil)
        let previous = directory.setAppAccountToken("00000000-0000-0000-0000-000000000001", for: "alice")
        #expect(previous == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        directory.setAppAccountToken(previous, for: "alice")
        #expect(directory.appAccountTokens["alice"] == previous)
    }

    @Test func idCountersArePerCustomer() {
        var directory = CustomerDirectory()
        var ids = IdentifierSource(seed: 1)
        _ = directory.register("alice", ids: &ids)
        _ = directory.register("bob", ids: &ids)
        let counted = [
            directory.countTransactionId(ofCustomerAt: 0), directory.countTransactionId(ofCustomerAt: 0),
            directory.countTransactionId(ofCustomerAt: 1), directory.countWebOrderLineItemId(ofCustomerAt: 1),
        ]
        #expect(counted == [1, 2, 1, 1], "rule ids-per-customer: each customer counts their own")
        directory.setPaymentFails(true, ofCustomerAt: 1)
        #expect(directory.records[1].paymentFails && !directory.records[0].paymentFails)
        directory.setEventGroups([7])
        #expect(directory.records.map(\.eventGroup) == [7, 0], "customers beyond the list keep theirs")
        #expect(directory.isConsistent)
    }
}

/// ``PriceTarget``: rules price-increase-raises-price and commitment-price-range, and who an increase reaches.
@Suite struct PriceTargetTests {
    @Test func priceIncreaseRaisesPrice() throws {
        #expect(throws: StoreError.self) { try PriceTarget.upfront(monthly, to: price("9.99"), in: nil) }
        #expect(throws: StoreError.self) { try PriceTarget.upfront(lifetime, to: price("39.99"), in: nil) }
        let target = try PriceTarget.upfront(monthly, to: price("10.99"), in: nil)
        #expect(target.oldPrice == price("9.99") && target.currency == "USD" && target.storefront == nil)
        #expect(target.scopeKey == PriceIncreaseSchedule.scopeKey(monthly.id, "USD"))
    }

    @Test func aStorefrontOfTheProductsCurrencyIsTheBasePrice() throws {
        let target = try PriceTarget.upfront(monthly, to: price("10.99"), in: "USA")
        #expect(target.storefront == nil, "one price applies per currency")
        #expect(throws: StoreError.self) { try PriceTarget.upfront(monthly, to: price("10.99"), in: "XYZ") }
        #expect(throws: StoreError.self, "no price of its own in France") {
            try PriceTarget.upfront(monthly, to: price("10.99"), in: "FRA")
        }
    }

    @Test func theBasePriceCoversTheStorefrontsOfItsCurrency() throws {
        let target = try PriceTarget.upfront(monthly, to: price("10.99"), in: nil)
        #expect(target.covers(Storefront(countryCode: "USA", id: "143441")))
        #expect(!target.covers(Storefront(countryCode: "FRA", id: "143442")))
    }

    @Test func priceIncreaseReachesItsPlan() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        let chain = store.subscriptionBook.chains[0]
        #expect(try PriceTarget.upfront(monthly, to: price("10.99"), in: nil).reachesPlan(of: chain))
        #expect(!PriceTarget.renewsOnMonthlyPlan(chain), "an up-front subscription renews up front")
        #expect(!(try PriceTarget.upfront(weekly, to: price("3.99"), in: nil).reachesPlan(of: chain)))
    }
}

/// ``PriceIncreaseSchedule``: one scheduled change per scope, consent, notices.
@Suite struct PriceIncreaseSchedulePartTests {
    static func increase(_ productId: String = monthly.id, effective: String = "60d") -> ScheduledPriceIncrease {
        ScheduledPriceIncrease(
            productId: productId, storefront: nil, oldPrice: price("9.99"), newPrice: price("10.99"),
            scheduledAt: testStart, effective: at(effective), needsConsent: false)
    }

    @Test func oneScheduledPriceChange() throws {
        var schedule = PriceIncreaseSchedule()
        let target = try PriceTarget.upfront(monthly, to: price("10.99"), in: nil)
        try schedule.refuseSecondScheduledChange(target)
        let number = schedule.add(Self.increase())
        #expect(number == 0 && schedule.upcoming == 1 && schedule.isConsistent)
        #expect { try schedule.refuseSecondScheduledChange(target) } throws: {
            scheduleRule($0) == "one-scheduled-price-change"
        }
        schedule.start(number)
        #expect(schedule.upcoming == 0 && schedule.isConsistent)
        try schedule.refuseSecondScheduledChange(target)
    }

    @Test func priceIncreaseNoticeLead() throws {
        let earliest = testStart.adding(PriceIncreaseRules.noticeLead)
        let dayBefore = Instant(millisecondsSince1970: testStart.millisecondsSince1970 - 86_400_000)
        for effective in [dayBefore, Instant(millisecondsSince1970: earliest.millisecondsSince1970 - 1)] {
            #expect {
                try PriceIncreaseSchedule.checkNoticeLead(of: monthly.id, effective: effective, at: testStart)
            } throws: { scheduleRule($0) == "price-increase-notice-lead" }
        }
        try PriceIncreaseSchedule.checkNoticeLead(of: monthly.id, effective: earliest, at: testStart)
    }

    @Test func priceIncreaseOnceAYear() throws {
        var schedule = PriceIncreaseSchedule()
        let target = try PriceTarget.upfront(monthly, to: price("10.99"), in: nil)
        #expect(try schedule.consentNeeded(nil, target, price("10.99"), effective: at("60d")) == false)
        #expect(try schedule.consentNeeded(true, target, price("10.99"), effective: at("60d")), "stated wins")
        schedule.noteWithoutConsent(target, at: at("60d"))
        #expect(try schedule.consentNeeded(nil, target, price("10.99"), effective: at("300d")))
        #expect(try schedule.consentNeeded(nil, target, price("10.99"), effective: at("P2Y")) == false)
    }

    @Test func aSubscriptionToldOfAnIncreaseSeesItsPriceUntilTheStart() {
        var schedule = PriceIncreaseSchedule()
        let number = schedule.add(Self.increase())
        let first = schedule.tell(3, of: number)
        let again = schedule.tell(3, of: number)
        #expect(first && !again, "told once")
        schedule.markSent(true, "1000", of: number)
        #expect(schedule.toldPriceNotStarted(of: monthly.id, to: "1000", plan: .upfront) == price("10.99"))
        #expect(schedule.toldPriceNotStarted(of: monthly.id, to: "1000", plan: .monthly) == nil)
        #expect(schedule.toldPriceNotStarted(of: monthly.id, to: "2000", plan: .upfront) == nil)
        schedule.markSent(false, "1000", of: number)
        #expect(schedule.toldPriceNotStarted(of: monthly.id, to: "1000", plan: .upfront) == nil)
        #expect(schedule.isConsistent)
    }
}

/// ``ServerRequestRecords``: what the developer's Server API requests leave.
@Suite struct ServerRequestRecordsTests {
    @Test func aTransactionIsFinishedOnce() {
        var records = ServerRequestRecords()
        let first = records.finish("1", at: testStart)
        let again = records.finish("1", at: at("1d"))
        #expect(first && !again)
        #expect(records.finished.map(\.finishedAt) == [testStart] && records.isConsistent)
    }

    @Test func consumptionInformationKeptLatest() {
        var records = ServerRequestRecords()
        let kept = ServerRequestRecords.consumptionInformationKeptPerTransaction
        for version in 0...kept {
            records.keep(
                ConsumptionInformation(transactionId: "1", version: version, receivedAt: testStart, body: .null))
        }
        records.keep(ConsumptionInformation(transactionId: "2", version: 1, receivedAt: testStart, body: .null))
        #expect(records.consumptionInformation.count == kept + 1)
        #expect(records.consumptionInformation.first?.version == 1, "the oldest of transaction 1 went")
        #expect(records.isConsistent)
    }

    @Test func orderIdFromTheSeed() {
        let id = ServerRequestRecords.orderId(ofTransaction: "2000000000000001", seed: 1)
        #expect(id == ServerRequestRecords.orderId(ofTransaction: "2000000000000001", seed: 1))
        #expect(id != ServerRequestRecords.orderId(ofTransaction: "2000000000000001", seed: 2))
        #expect(ServerRequestRecords.looksLikeOrderId(id))
        #expect(id.allSatisfy { "M23456789ABCDEFGHJKLMNPQRSTUVWXYZ".contains($0) })
    }

    @Test func extensionRequestIdentifierOnce() {
        var records = ServerRequestRecords()
        let record = RenewalExtensionRecord(
            originalTransactionId: "1", requestIdentifier: "r", webOrderLineItemId: nil, effectiveDate: nil,
            extendedAt: testStart)
        records.record(record)
        #expect(records.renewalExtension(originalTransactionId: "1", requestIdentifier: "r") == record)
        #expect(records.renewalExtension(originalTransactionId: "2", requestIdentifier: "r") == nil)
    }
}

/// ``CommitmentPriceLocks``: rule commitment-price-increase-at-commitment-renewal.
@Suite struct CommitmentPriceLocksTests {
    @Test func aCommitmentKeepsItsFirstPriceToItsEnd() {
        var locks = CommitmentPriceLocks()
        #expect(locks.isEmpty && locks.kept(of: "alice", inGroup: "1") == nil)
        locks.keep(StorefrontPrice(price: price("9.99"), currency: "EUR"), of: "alice", inGroup: "1")
        locks.keep(StorefrontPrice(price: price("12.99"), currency: "EUR"), of: "alice", inGroup: "1")
        #expect(locks.kept(of: "alice", inGroup: "1")?.price == price("9.99"), "an earlier rise's price stays")
        let kept = locks.priceForCharge(ofPeriod: 5, of: "alice", inGroup: "1", currency: "EUR")
        let otherCurrency = locks.priceForCharge(ofPeriod: 5, of: "alice", inGroup: "1", currency: "USD")
        #expect(kept == price("9.99") && otherCurrency == nil)
        #expect(locks.isConsistent)
        let newCommitment = locks.priceForCharge(ofPeriod: 1, of: "alice", inGroup: "1", currency: "EUR")
        #expect(newCommitment == nil)
        #expect(locks.isEmpty, "a new commitment keeps nothing")
    }
}

/// ``TransactionLedger``'s refund rules.
@Suite struct LedgerRefundRulesTests {
    @Test func proratedPercentageInMilliunits() throws {
        for value: Int32 in [0, 100_000] {
            #expect { try TransactionLedger.checkRefundAmount(.prorated(milliPercent: value)) } throws: {
                refundRule($0) == "prorated-percentage-in-milliunits"
            }
        }
        try TransactionLedger.checkRefundAmount(.prorated(milliPercent: 50_000))
        try TransactionLedger.checkRefundAmount(.full)
    }

    @Test func refundNeedsAPurchase() throws {
        var store = makeStore()
        try store.purchase(monthly.id, by: "alice")
        try store.advance(to: at("P1M"))
        let ledger = store.ledger
        #expect(try ledger.purchasedTransaction(monthly.id, of: "alice", position: nil) == 1, "the latest")
        #expect(try ledger.purchasedTransaction(monthly.id, of: "alice", position: 1) == 0)
        #expect { try ledger.purchasedTransaction(monthly.id, of: "alice", position: 3) } throws: {
            refundRule($0) == "refund-needs-a-purchase"
        }
        #expect(throws: StoreError.self) { try ledger.purchasedTransaction(monthly.id, of: "bob", position: nil) }
    }

    @Test func reversalNeedsARefundAndAlreadyRefunded() throws {
        var store = makeStore()
        try store.purchase(lifetime.id, by: "alice")
        #expect { try store.ledger.checkRefunded(0) } throws: { refundRule($0) == "reversal-needs-a-refund" }
        try store.ledger.checkNotRefunded(0)
        try store.refund(lifetime.id, of: "alice")
        try store.ledger.checkRefunded(0)
        #expect { try store.ledger.checkNotRefunded(0) } throws: { refundRule($0) == "already-refunded" }
    }

    @Test func consumptionInformationNeedsConsentWithin12Hours() throws {
        var store = makeStore()
        try store.purchase(coins.id, by: "alice")
        try store.requestRefund(coins.id, by: "alice", reason: .unintendedPurchase)
        #expect { try store.ledger.checkRefundRequestAllowed(0) } throws: {
            refundRule($0) == "one-refund-request-at-a-time"
        }
        #expect {
            try store.ledger.requestAnswerable(
                for: 0, customer: "alice", productId: coins.id, customerConsented: false, at: store.now)
        } throws: { refundRule($0) == "consumption-information-needs-consent" }
        #expect {
            try store.ledger.requestAnswerable(
                for: 0, customer: "alice", productId: coins.id, customerConsented: true, at: at("13h"))
        } throws: { refundRule($0) == "consumption-information-within-12-hours" }
        #expect(
            try store.ledger.requestAnswerable(
                for: 0, customer: "alice", productId: coins.id, customerConsented: true, at: at("12h")) == 0)
    }
}

/// ``FamilyBook``'s membership rules.
@Suite struct FamilyMembershipRulesTests {
    private func rule(_ error: any Error) -> String? {
        guard case .family(let violation) = error as? StoreError else { return nil }
        return violation.rule
    }

    @Test func oneFamilyPerCustomerAndItsSizeLimit() throws {
        var book = FamilyBook()
        book.createFamily(organizer: "alice")
        #expect { try book.checkCanCreateFamily(organizer: "alice") } throws: { rule($0) == "one-family-per-customer" }
        #expect(try book.familyToJoin("bob", organizer: nil) == 0, "the only family")
        for person in 1..<FamilyRules.maximumFamilySize { book.add("member\(person)", toFamilyAt: 0) }
        #expect { try book.familyToJoin("zoe", organizer: "alice") } throws: { rule($0) == "family-size-limit" }
        #expect { try book.familyToJoin("member1", organizer: "alice") } throws: {
            rule($0) == "one-family-per-customer"
        }
        #expect(throws: StoreError.self) { try book.familyToJoin("zoe", organizer: "nobody") }
        #expect(book.isConsistent)
    }

    @Test func theOrganizerLeavingDisbandsTheFamily() throws {
        let store = try exercisedStore()
        var book = store.familyBook
        #expect { try book.sharesEndedByLeaving("nobody") } throws: { rule($0) == "leave-needs-a-family" }
        let (family, ended) = try book.sharesEndedByLeaving("alice")
        let group = book.families[family]
        #expect(ended.allSatisfy { group.contains(book.shares[$0].member) })
        book.leave("alice", familyAt: family)
        #expect(book.families.isEmpty && book.family(of: "bob") == nil && book.isConsistent)
    }
}
