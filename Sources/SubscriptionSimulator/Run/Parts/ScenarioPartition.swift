/// Rule partition-order (docs/streaming.md, "Every core, same bytes"): how a scenario's customers split into
/// independent parts, and the order of a run's output that each part can compute alone.
///
/// - **Families**: the connected components of "ever in the same family" over the whole scenario: the `family:`
///   organizer and members and every customer a `joinFamily` or `leaveFamily` entry names are one family; every other
///   customer is a family of their own. A family's **ordinal** is the smallest position (``Scenario/customers``
///   order, the order every run registers them in) among its customers.
/// - **Order**: the store's events of one instant and priority run in (family ordinal, order scheduled) order
///   (the customers' order group, ``OrderKey``), so every record a run emits (notification, entitlement change) has the key
///   ``RecordKey`` (segment, instant, family ordinal), and a run emits its records in key order; records of one key
///   belong to one family, and keep the order that family's own run gives them.
/// - **Parts** (rotated blocks, ``partIndex(ofPlace:count:)``): the families, in ordinal order (places 0, 1, 2,
///   ...), go in blocks of `n`, one family of each block to each of the `n` parts, each block rotated by a
///   pseudo-random amount (SplitMix64's finalizer of the block's number). Every part gets the same number of
///   families, give or take one, as with plain round robin, but a pattern with a period in the scenario (every 20th
///   customer cancels, every 20th from the 10th has a failing card, as in the scale scenario) no longer lands wholly
///   in one part: with round robin both of those went to part 1 of 2, and part 2 then did 7.8% more instructions
///   than part 1 (callgrind, 2,000 coincident customers) and the run went at the pace of the busier part. A part
///   walks the whole timeline but applies only its own families' entries; its
///   records are exactly the one-job run's records of those families, with the same keys, so merging the parts'
///   records by key gives the one-job run's records.
/// - **One job**: a scenario whose timeline has an action for no one customer (a change to a product or the
///   catalogue, a `TEST` notification, a mass renewal extension, whose `SUMMARY` counts every customer) is not
///   partitioned: ``oneJobReason`` says why, and its part 0 holds every family (the other parts are empty).
package struct ScenarioPartition: Sendable {
    /// Each customer's family ordinal, by position in ``Scenario/customers``.
    package let familyOrdinals: [UInt32]
    /// The place of each family ordinal in ordinal order, by position of the customer (what ``RunPart`` assigns).
    let familyPlaces: [Int]
    /// How many families there are.
    package let familyCount: Int
    /// Positions by customer name.
    let positions: [String: Int]
    /// The family place (as in `familyPlaces`) of each timeline entry's customer, by the entry's position in
    /// ``Scenario/timeline``; -1 for an entry for no customer, or a name the scenario does not know (part 0 holds it).
    let entryPlaces: [Int32]
    /// Why the scenario runs as one job (nil: it is partitioned).
    package let oneJobReason: String?

    package init(_ scenario: Scenario) {
        // Built at its full size at once, one hash per name: grown by doubling, its rehashing alone took 5% of the
        // calling thread's time before the parts start (perf, 100,000 customers).
        let positions = [String: Int](
            zip(scenario.customers, scenario.customers.indices), uniquingKeysWith: { first, _ in first })
        self.positions = positions
        // The family's people: the organizer, members and every customer who joins or leaves.
        var family = Set<Int>()
        if let spec = scenario.family {
            for name in [spec.organizer] + spec.members {
                if let position = positions[name] { family.insert(position) }
            }
        }
        var reason: String?
        var entryPositions: [Int] = []
        entryPositions.reserveCapacity(scenario.timeline.count)
        for entry in scenario.timeline {
            entryPositions.append(entry.action.customer.flatMap { positions[$0] } ?? -1)
            switch entry.action {
            case .joinFamily(let name), .leaveFamily(let name):
                if let position = positions[name] { family.insert(position) }
            default: break
            }
            if reason == nil, entry.action.customer == nil {
                reason =
                    "its timeline has \(entry.action.name) (line \(entry.location.line)), which is for no one customer"
            }
        }
        oneJobReason = reason
        let ordinalOfFamily = UInt32(family.min() ?? 0)
        var ordinals: [UInt32] = []
        var places: [Int] = []
        ordinals.reserveCapacity(scenario.customers.count)
        places.reserveCapacity(scenario.customers.count)
        var count = 0
        var familyPlace = -1
        for position in scenario.customers.indices {
            if family.contains(position) {
                if familyPlace < 0 {
                    familyPlace = count
                    count += 1
                }
                ordinals.append(ordinalOfFamily)
                places.append(familyPlace)
            } else {
                ordinals.append(UInt32(position))
                places.append(count)
                count += 1
            }
        }
        familyOrdinals = ordinals
        familyPlaces = places
        familyCount = count
        entryPlaces = entryPositions.map { $0 < 0 ? -1 : Int32(places[$0]) }
    }

    /// Whether the scenario is split into parts (``oneJobReason`` is nil).
    package var isPartitioned: Bool { oneJobReason == nil }

    /// The family ordinal of a customer (0 for a name the scenario does not know, or no customer).
    package func familyOrdinal(of customer: String?) -> UInt32 {
        guard let customer, let position = positions[customer] else { return 0 }
        return familyOrdinals[position]
    }

    /// Whether `part` holds timeline entry `index` (``part(_:holds:)`` of its customer, read from a table).
    func part(_ part: RunPart, holdsEntry index: Int) -> Bool {
        let place = Int(entryPlaces[index])
        return self.part(part, holdsPlace: place < 0 ? nil : place)
    }

    /// Whether `part` holds the customer (a name the scenario does not know, or no customer: part 0).
    package func part(_ part: RunPart, holds customer: String?) -> Bool {
        self.part(part, holdsPlace: customer.flatMap { positions[$0] }.map { familyPlaces[$0] })
    }

    /// Whether `part` holds the customer at `position` in ``Scenario/customers``.
    func part(_ part: RunPart, holdsCustomerAt position: Int) -> Bool {
        self.part(part, holdsPlace: familyPlaces[position])
    }

    /// Whether `part` holds the family at `place` (``partIndex(ofPlace:count:)``); part 0 holds what belongs to no
    /// family (nil), and everything when the scenario is not partitioned.
    private func part(_ part: RunPart, holdsPlace place: Int?) -> Bool {
        guard isPartitioned, let place else { return part.index == 0 }
        return Self.partIndex(ofPlace: place, count: part.count) == part.index
    }

    /// The rotated blocks (rule partition-order): the part, from 0, of the family at `place` in ordinal order, of
    /// `count` parts. Places `b·count` to `b·count + count - 1` (block `b`) go to distinct parts: place `p` to
    /// `(p mod count + SplitMix64.mix(b) mod count) mod count` (`mix`: SplitMix64's finalizer).
    static func partIndex(ofPlace place: Int, count: Int) -> Int {
        guard count > 1 else { return 0 }
        let block = UInt64(place / count)
        let rotation = Int(SplitMix64.mix(block) % UInt64(count))
        return (place % count + rotation) % count
    }
}

/// One part of a partitioned run (``ScenarioPartition``): `index` (from 0) of `count`. Each block of `count`
/// families in family-ordinal order gives one family to each part, the block rotated by a pseudo-random amount
/// (``ScenarioPartition/partIndex(ofPlace:count:)``).
package struct RunPart: Hashable, Sendable, CustomStringConvertible {
    package let index: Int
    package let count: Int

    package init(index: Int, count: Int) {
        precondition(count >= 1 && index >= 0 && index < count, "part \(index) of \(count)")
        self.index = index
        self.count = count
    }

    /// The whole run.
    package static let whole = RunPart(index: 0, count: 1)

    package var description: String { "\(index + 1)/\(count)" }
}

/// Where a record stands in a run's output (rule partition-order, ``ScenarioPartition``): the driver's segment (2k
/// for the store's events before timeline entry k, 2k + 1 for entry k itself, 2n for the events after the last of
/// n entries), the instant, the family ordinal of its customer. A run emits its records in key order; records of
/// one key are one family's, in their run's order.
package struct RecordKey: Hashable, Sendable, Comparable {
    package var segment: Int
    package var instant: Int64
    package var family: UInt32

    package init(segment: Int, instant: Int64, family: UInt32) {
        self.segment = segment
        self.instant = instant
        self.family = family
    }

    package static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
        if lhs.segment != rhs.segment { return lhs.segment < rhs.segment }
        if lhs.instant != rhs.instant { return lhs.instant < rhs.instant }
        return lhs.family < rhs.family
    }

    /// After every key.
    package static let end = RecordKey(segment: .max, instant: .max, family: .max)
}

/// What one part of a run emitted, with each record's key (``ScenarioRunner/runPart(_:part:)``).
package struct KeyedRecords: Sendable {
    package var notifications: [SentNotification] = []
    package var notificationKeys: [RecordKey] = []
    package var changes: [EntitlementChange] = []
    package var changeKeys: [RecordKey] = []

    package init() {}

    /// The records of `parts` merged by key (ties keep part order, then each part's own order).
    package static func merged(_ parts: [KeyedRecords]) -> (
        notifications: [SentNotification], changes: [EntitlementChange]
    ) {
        func merge<T>(_ values: [[T]], _ keys: [[RecordKey]]) -> [T] {
            var order: [(RecordKey, Int, Int)] = []
            for (part, partKeys) in keys.enumerated() {
                for (index, key) in partKeys.enumerated() { order.append((key, part, index)) }
            }
            order.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
            return order.map { values[$0.1][$0.2] }
        }
        return (
            merge(parts.map(\.notifications), parts.map(\.notificationKeys)),
            merge(parts.map(\.changes), parts.map(\.changeKeys))
        )
    }
}
