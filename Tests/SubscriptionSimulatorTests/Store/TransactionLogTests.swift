import Testing
@testable import SubscriptionSimulator

/// ``TransactionLog`` under ``StoreRetention/liveState``: compaction keeps exactly the live transactions (and every
/// one-time purchase), reachable by their creation index, in place, however many compactions come after each other.
@Suite struct TransactionLogTests {
    static let start = Instant(millisecondsSince1970: 1_767_225_600_000)

    static func record(_ number: Int, oneTime: Bool = false) -> TransactionRecord {
        TransactionRecord(
            transactionId: String(2_000_000_000_000_000 + number), originalTransactionId: "2000000000000000",
            webOrderLineItemId: nil, customer: "c\(number % 7)", productId: oneTime ? "coins" : "monthly",
            productType: oneTime ? .consumable : .autoRenewable, subscriptionGroupIdentifier: nil,
            purchaseDate: start, originalPurchaseDate: start, expiresDate: nil, ownership: .purchased,
            reason: .purchase, offer: nil, price: Price(milliunits: 990), currency: "USD", revocation: nil,
            lastModified: start)
    }

    @Test func compactionKeepsTheLiveAndOneTimeTransactionsByIndex() {
        // A reference model: the set of indices that must stay readable, checked after each of 40 compactions of a
        // log that grows by 50 transactions (every 9th a one-time purchase) between them, with a live set that
        // keeps some old transactions for many rounds and drops others after one.
        var log = TransactionLog()
        var kept: Set<Int> = []
        var oneTime: Set<Int> = []
        var next = 0
        for round in 0..<40 {
            for _ in 0..<50 {
                let isOneTime = next % 9 == 4
                log.append(Self.record(next, oneTime: isOneTime))
                if isOneTime { oneTime.insert(next) }
                next += 1
            }
            // Live: every 5th transaction of this round, every 10th older one still kept, and the newest.
            var live = (0..<next).filter { index in
                (index >= next - 50 && index % 5 == 0) || (kept.contains(index) && index % 10 == 0)
            }
            live.append(next - 1)
            live.append(live[0])  // repeats are allowed
            log.keepOnly(live.reversed(), orNotAutoRenewable: true)
            kept = Set(live).union(oneTime)
            #expect(log.startIndex == next && log.endIndex == next && log.isEmpty, "round \(round)")
            #expect(log.retainedCount == kept.count, "round \(round)")
            for index in kept {
                #expect(log[index].transactionId == String(2_000_000_000_000_000 + index), "round \(round) #\(index)")
            }
        }
    }

    @Test func aKeptTransactionCanStillBeChanged() {
        var log = TransactionLog()
        for number in 0..<6 { log.append(Self.record(number)) }
        log.keepOnly([1, 4], orNotAutoRenewable: false)
        log.append(Self.record(6))
        log[4].isUpgraded = true
        log[6].isUpgraded = true
        log.keepOnly([4, 6], orNotAutoRenewable: false)
        #expect(log.retainedCount == 2)
        #expect(log[4].isUpgraded && log[6].isUpgraded)
        #expect(log[4].transactionId == "2000000000000004")
    }
}
