import Testing

@testable import SubscriptionSimulator

/// Rule ids-change-with-the-epoch (`Engine/IdentifierSource.swift`): the epoch gives the same store new identities.
@Suite struct EpochIdentityTests {
    /// A family purchase and a month of renewals: transaction ids, web order line item ids, appTransactionIds and
    /// notificationUUIDs, in order.
    func identities(epoch: UInt32?, seed: UInt64 = 0) throws -> [String] {
        var store =
            if let epoch {
                SimulatedStore(
                    app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [monthly]),
                    start: testStart, seed: seed, epoch: epoch)
            } else {
                SimulatedStore(
                    app: AppConfiguration(bundleId: "com.example.app"), catalog: try Catalog(products: [monthly]),
                    start: testStart, seed: seed)
            }
        try store.purchase(monthly.id, by: "alice")
        try store.purchase(monthly.id, by: "bob")
        try store.advance(by: .months(2))
        var ids: [String] = []
        for t in store.transactions { ids += [t.transactionId, t.originalTransactionId, t.webOrderLineItemId ?? ""] }
        ids += ["alice", "bob"].compactMap { store.appTransactionId(of: $0) }
        ids += store.notifications.map(\.notificationUUID)
        return ids
    }

    @Test func epochZeroGivesTheUsualIdentities() throws {
        #expect(try identities(epoch: 0) == identities(epoch: nil))
        #expect(try identities(epoch: 0, seed: 42) == identities(epoch: nil, seed: 42))
    }

    @Test func everyIdentityChangesWithTheEpoch() throws {
        let epochs: [UInt32] = [0, 1, 2, 999, 1000, 65_536, .max]
        var seen: [String: UInt32] = [:]
        for epoch in epochs {
            let ids = try identities(epoch: epoch)
            // The same id may appear twice within one epoch (an original transaction id); never in two epochs.
            for id in Set(ids) where !id.isEmpty {
                #expect(seen[id] == nil, "\(id) in epochs \(seen[id].map(String.init) ?? "") and \(epoch)")
                seen[id] = epoch
            }
        }
    }

    @Test func theLayoutIsPrefixEpochSeedCounter() {
        #expect(IdentifierSource(seed: 0, epoch: 1).identifier(prefix: "2", counter: 1) == "2001000000000000001")
        #expect(IdentifierSource(seed: 42, epoch: 7).identifier(prefix: "3", counter: 12) == "3007000042000000012")
        #expect(IdentifierSource(seed: 0, epoch: 0).identifier(prefix: "2", counter: 1) == "2000000000000001")
        #expect(IdentifierSource(seed: 0, epoch: 1234).identifier(prefix: "7", counter: 1) == "71234000000000000001")
        // Epochs up to 999 with seeds up to 999,999 stay within a signed 64-bit integer, counters of 9 digits too.
        for prefix in ["2", "3", "7"] as [Character] {
            let largest = IdentifierSource(seed: 999_999, epoch: 999).identifier(prefix: prefix, counter: 999_999_999)
            #expect(largest.count == 19)
            #expect(Int64(largest) != nil)
        }
    }

    @Test func notificationUUIDsStayVersion4() {
        let source = IdentifierSource(seed: 3, epoch: 5)
        for counter: UInt64 in 1...100 {
            let text = source.notificationUUID(
                ofCustomerAt: counter % 3 == 0 ? nil : Int(counter % 5), counter: counter
            )
            .description
            let characters = Array(text)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
        }
    }
}
