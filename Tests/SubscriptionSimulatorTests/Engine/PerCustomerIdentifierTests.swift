import Testing

@testable import SubscriptionSimulator

/// Rule ids-per-customer (`Engine/IdentifierSource.swift`): ids and UUIDs depend on the seed, the epoch, the owner
/// and the owner's counter only.
@Suite struct PerCustomerIdentifierTests {
    @Test func theLayoutIsPrefixSeedLengthPositionCounter() {
        let ids = IdentifierSource(seed: 0)
        #expect(ids.transactionId(ofCustomerAt: 0, counter: 1) == "2000000100000001")
        #expect(ids.transactionId(ofCustomerAt: 0, counter: 2) == "2000000100000002")
        #expect(ids.transactionId(ofCustomerAt: 10, counter: 1) == "2000000210000001")
        #expect(ids.webOrderLineItemId(ofCustomerAt: 123, counter: 45) == "3000000312300045")
        #expect(IdentifierSource(seed: 0, epoch: 1).transactionId(ofCustomerAt: 0, counter: 1) == "2001000000100000001")
        #expect(
            IdentifierSource(seed: 42, epoch: 7).webOrderLineItemId(ofCustomerAt: 5, counter: 12)
                == "3007000042150000012")
        // A counter wider than its padding keeps all its digits.
        #expect(ids.transactionId(ofCustomerAt: 9999, counter: 12_345) == "20000004999912345")
    }

    @Test func smallRunsKeepSixteenDigits() {
        let ids = IdentifierSource(seed: 999_999)
        for position in [0, 9, 10, 99, 100, 999, 1000, 9999] {
            for counter: UInt32 in [1, 9999] {
                #expect(
                    ids.transactionId(ofCustomerAt: position, counter: counter).count == 16, "\(position) \(counter)")
            }
        }
        // Within a signed 64-bit integer: ten million customers at epoch 0, ten thousand at epochs 1-999.
        let epoch0 = IdentifierSource(seed: 999_999)
        let epoch999 = IdentifierSource(seed: 999_999, epoch: 999)
        for id in [
            epoch0.transactionId(ofCustomerAt: 9_999_999, counter: 9999),
            epoch0.webOrderLineItemId(ofCustomerAt: 9_999_999, counter: 9999),
            epoch999.transactionId(ofCustomerAt: 9999, counter: 9999),
            epoch999.webOrderLineItemId(ofCustomerAt: 9999, counter: 9999),
        ] {
            #expect(id.count == 19 && Int64(id) != nil, "\(id)")
        }
    }

    @Test func idsAreUniqueAcrossPositionAndCounterBoundaries() {
        let ids = IdentifierSource(seed: 12)
        let positions = [
            0, 1, 8, 9, 10, 11, 98, 99, 100, 101, 999, 1000, 1001, 9999, 10_000, 99_999, 100_000, 999_999, 1_000_000,
            999_999_999,
        ]
        let counters: [UInt32] = [
            1, 2, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 99_999, 100_000, 999_999, 1_000_000, 9_999_999, 10_000_000,
            99_999_999, 100_000_000, .max,
        ]
        var seen: Set<String> = []
        var count = 0
        for position in positions {
            for counter in counters {
                let transaction = ids.transactionId(ofCustomerAt: position, counter: counter)
                let webOrder = ids.webOrderLineItemId(ofCustomerAt: position, counter: counter)
                #expect(transaction.allSatisfy(\.isASCIIDigit) && webOrder.allSatisfy(\.isASCIIDigit))
                seen.insert(transaction)
                seen.insert(webOrder)
                count += 2
            }
        }
        #expect(seen.count == count)
        // Exhaustively for the first 120 positions and counters around the padded width of each position length.
        var all: Set<String> = []
        var made = 0
        for position in 0..<120 {
            for counter: UInt32 in [1, 2, 9999, 10_000, 99_999, 100_000, 999_999, 1_000_000, 9_999_999, 10_000_000] {
                all.insert(ids.transactionId(ofCustomerAt: position, counter: counter))
                made += 1
            }
        }
        #expect(all.count == made)
    }

    @Test func storeUUIDsNeverEqualACustomersAndTheEpochChangesThem() {
        let ids = IdentifierSource(seed: 3)
        let other = IdentifierSource(seed: 3, epoch: 1)
        var seen: Set<NotificationUUID> = []
        for counter: UInt64 in 1...1000 {
            seen.insert(ids.notificationUUID(ofCustomerAt: nil, counter: counter))
            for position in 0..<5 { seen.insert(ids.notificationUUID(ofCustomerAt: position, counter: counter)) }
            #expect(
                other.notificationUUID(ofCustomerAt: 0, counter: counter)
                    != ids.notificationUUID(ofCustomerAt: 0, counter: counter))
        }
        #expect(seen.count == 6000)
    }

    /// alice's ids in a store where she alone buys, and in one where bob (named after her) buys at the same instant
    /// and renews weekly, interleaving his events with hers.
    @Test func aCustomersIdsDoNotChangeWhenAnotherCustomerIsAddedAfterThem() throws {
        func run(withBob: Bool) throws -> (transactions: [String], webOrders: [String], uuids: [String]) {
            var store = makeStore(seed: 11)
            try store.purchase(monthly.id, by: "alice")
            if withBob {
                try store.purchase(weekly.id, by: "bob")
                try store.purchase(coins.id, by: "bob")
            }
            try store.advance(to: at("P1M10D"))
            try store.purchase(coins.id, by: "alice")
            try store.advance(to: at("P3M"))
            let transactions = store.transactions.filter { $0.customer == "alice" }
            return (
                transactions.map(\.transactionId), transactions.map { $0.webOrderLineItemId ?? "" },
                store.notifications.filter { $0.recipient == "alice" }.map(\.notificationUUID)
            )
        }
        let alone = try run(withBob: false)
        let withBob = try run(withBob: true)
        #expect(alone.transactions.count == 5)
        #expect(alone.transactions == withBob.transactions)
        #expect(alone.webOrders == withBob.webOrders)
        #expect(alone.uuids == withBob.uuids)
        // The same run twice: the same ids.
        let again = try run(withBob: true)
        #expect(again.transactions == withBob.transactions && again.uuids == withBob.uuids)
    }

    @Test func aMembersSharedTransactionBelongsToTheMember() throws {
        let shared = Product(
            id: "com.example.family.monthly", type: .autoRenewable, group: "family", period: .oneMonth,
            price: Price(decimal: "14.99")!, familyShareable: true)
        var store = SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [shared]),
            start: testStart, seed: 1)
        try store.createFamily(organizer: "alice", members: ["bob"])
        try store.purchase(shared.id, by: "alice")
        try store.advance(by: .months(2))
        let ids = IdentifierSource(seed: 1)
        let bobs = store.transactions.filter { $0.customer == "bob" }
        #expect(bobs.count >= 2)
        for (index, record) in bobs.enumerated() {
            #expect(record.transactionId == ids.transactionId(ofCustomerAt: 1, counter: UInt32(index + 1)))
            #expect(record.webOrderLineItemId == ids.webOrderLineItemId(ofCustomerAt: 1, counter: UInt32(index + 1)))
        }
        let bobsUUIDs = store.notifications.filter { $0.recipient == "bob" }.map(\.notificationUUID)
        #expect(
            bobsUUIDs
                == (1...bobsUUIDs.count).map { ids.notificationUUID(ofCustomerAt: 1, counter: UInt64($0)).description })
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
