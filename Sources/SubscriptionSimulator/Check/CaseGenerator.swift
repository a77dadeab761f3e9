/// Generates the cases of `simctl check` from a scenario's header (docs/check.md, "What is generated").
///
/// Case `i` (from 0) is a pure function of the scenario, the options and `i`: its own random source is seeded from
/// the check's seed and `i`. It starts with the scenario's timeline (a prefix), then alternates clock advances
/// (from an hour to three months, so grace periods, billing retry and expiry are reached) with actions of the
/// scenario vocabulary drawn among those the catalogue and the people support. Each action is tried on the store at
/// that instant (``TimelineDriver/perform(_:on:)``): an action the rules refuse is not kept and another is drawn,
/// so every case is valid by construction. Then the delivery faults are drawn per notification (``CheckChaos``).
/// A case is a ``Scenario``: it can be written as YAML (``ScenarioYAMLWriter``) and replayed.
public struct CaseGenerator: Sendable {
    public let scenario: Scenario
    public let options: CheckOptions
    /// The people cases act for: the scenario's customers, or three of its own when it names none.
    let people: [String]

    public init(scenario: Scenario, options: CheckOptions) {
        self.scenario = scenario
        self.options = options
        people = scenario.customers.isEmpty ? ["alice", "bob", "carol"] : scenario.customers
    }

    /// Case `index` (from 0), or the error that stops the scenario's own timeline (then no case can be made).
    public func generate(_ index: Int) throws(ScenarioError) -> Scenario {
        var random = RandomSource(seed: SplitMix64.mix(options.seed ^ 0x6368_6563_6B63_6173) &+ UInt64(index))
        var header = scenario
        header.customers = people
        header = CaseIdentities.fresh(header, caseNumber: index + 1)
        header.name = "\(scenario.name) (check case \(index + 1), seed \(options.seed))"
        header.expectations = []
        header.deliveryFaults = []
        var store = try TimelineDriver.prepare(header, epoch: options.epoch(ofCase: index))
        var driver = TimelineDriver(header)
        let prefixEnd = header.timeline.last?.at ?? header.start
        switch driver.advance(&store, to: prefixEnd) {
        case nil: break
        case .refused(let error): throw error
        case .store(let error):
            throw ScenarioError(file: header.file, location: header.endLocation, message: "\(error)")
        }
        var vocabulary = ActionVocabulary(
            catalog: header.catalog, people: header.customers, family: header.family, choice: options.vocabulary)
        var timeline = header.timeline
        let count = random.nextInt(in: options.actions)
        var previous = timeline.last?.action.customer
        for step in 0..<count {
            // The first action comes at once (usually a purchase); later ones mostly after a wait.
            if step > 0 && random.nextDouble() < 0.8 || step == 0 && random.nextDouble() < 0.2 {
                guard advance(&store, by: Waits.draw(&random)) else { break }
            }
            for _ in 0..<12 {
                let action = vocabulary.draw(&random, store: store, previous: previous)
                // Tried on a copy: a refused action leaves the store exactly as it was, whatever it touched first.
                var trial = store
                do throws(StoreError) {
                    try TimelineDriver.perform(action, on: &trial)
                    store = trial
                    timeline.append(
                        TimelineEntry(at: store.now, action: action, location: SourceLocation(line: 0, column: 0)))
                    vocabulary.note(action)
                    previous = action.customer ?? previous
                    if random.nextDouble() < 0.5, let next = vocabulary.followUp(after: action, &random) {
                        var followed = store
                        if (try? TimelineDriver.perform(next, on: &followed)) != nil {
                            store = followed
                            timeline.append(
                                TimelineEntry(at: store.now, action: next, location: SourceLocation(line: 0, column: 0))
                            )
                        }
                    }
                    break
                } catch { continue }
            }
        }
        var generated = header
        generated.timeline = timeline
        let tail = Waits.drawTail(&random)
        generated.until = store.now.adding(tail)
        guard advance(&store, by: tail) else {
            generated.until = store.now
            return generated
        }
        generated.deliveryFaults = Self.faults(of: store.notifications, chaos: options.chaos, random: &random)
        return generated
    }

    /// Moves the store on by `duration`; false when that would leave the supported range or a run limit stops it.
    func advance(_ store: inout SimulatedStore, by duration: CalendarDuration) -> Bool {
        guard let target = try? store.now.checkedAdding(duration), target <= Instant.latest else { return false }
        do throws(StoreError) { try store.advance(to: target) } catch { return false }
        return true
    }

    /// One draw per notification, in order: a failure (with ``CheckChaos/failureRate``, three times as likely, at
    /// most 1, for a notification that a newer one of the same `originalTransactionId` follows within 13 hours: its
    /// retry then arrives after the newer one), then a duplicate (``CheckChaos/duplicateRate``). A notification that
    /// shares its recipient and instant with another gets no failure (it would arrive after the other, with the same
    /// `signedDate`).
    static func faults(of notifications: [SentNotification], chaos: CheckChaos, random: inout RandomSource)
        -> [DeliveryFault]
    {
        var atInstant: [String: Int] = [:]
        for n in notifications { atInstant[Self.siblingKey(n), default: 0] += 1 }
        // Each notification's next one about the same originalTransactionId, by instant.
        var followedSoon = [Bool](repeating: false, count: notifications.count)
        var lastIndex: [String: Int] = [:]
        for (index, n) in notifications.enumerated() {
            guard let id = n.transaction?.originalTransactionId else { continue }
            if let earlier = lastIndex[id] {
                let gap = notifications[earlier].instant.milliseconds(to: n.instant)
                followedSoon[earlier] = gap > 0 && gap <= 13 * 3_600_000
            }
            lastIndex[id] = index
        }
        var faults: [DeliveryFault] = []
        for (index, n) in notifications.enumerated() {
            var failed = 0
            let rate = followedSoon[index] ? min(1, 3 * chaos.failureRate) : chaos.failureRate
            if chaos.failureRate > 0 && random.nextDouble() < rate {
                let attempts = random.nextInt(in: 1...max(1, chaos.maximumFailedAttempts))
                if atInstant[Self.siblingKey(n)] == 1 { failed = attempts }
            }
            let duplicate = chaos.duplicateRate > 0 && random.nextDouble() < chaos.duplicateRate
            guard failed > 0 || duplicate else { continue }
            faults.append(
                DeliveryFault(
                    recipient: n.recipient, instant: n.instant, notificationType: n.type.rawValue,
                    subtype: n.subtype?.rawValue, failedAttempts: failed, duplicate: duplicate))
        }
        return faults
    }

    /// Notifications with the same key share a recipient and a `signedDate`.
    static func siblingKey(_ n: SentNotification) -> String {
        "\(n.recipient ?? "")\u{0}\(n.instant.millisecondsSince1970)"
    }
}

/// The clock advances between a case's actions: short and long, so that a case reaches the ends of billing grace
/// periods (3, 16 and 28 days), of billing retry (60 days), renewals and expiry, and acts between a failed attempt and
/// its retry (1 and 13 hours later).
enum Waits {
    static let choices: [(weight: Int, duration: CalendarDuration)] = [
        (2, .minutes(30)), (3, .hours(1)), (2, .hours(2)), (2, .hours(6)), (2, .hours(12)), (4, .days(1)),
        (2, .days(2)), (3, .days(3)), (2, .days(4)), (3, .days(7)),
        (3, .days(16)), (2, .days(17)), (3, .days(28)), (2, .days(29)), (3, .months(1)), (2, .days(45)),
        (3, .days(60)), (2, .days(61)), (2, .months(2)), (1, .months(3)),
    ]
    static let totalWeight = choices.reduce(0) { $0 + $1.weight }

    static func draw(_ random: inout RandomSource) -> CalendarDuration {
        var pick = random.nextInt(in: 0...totalWeight - 1)
        for choice in choices {
            if pick < choice.weight { return choice.duration }
            pick -= choice.weight
        }
        return choices[0].duration
    }

    /// The time after the last action until the case ends: long enough for retries (at most 13 hours late with two
    /// failed attempts) and often for a renewal, a grace period or billing retry to run out.
    static func drawTail(_ random: inout RandomSource) -> CalendarDuration {
        let tails: [CalendarDuration] = [.days(2), .days(7), .days(17), .days(29), .months(1), .days(61), .months(3)]
        return tails[random.nextInt(in: 0...tails.count - 1)]
    }
}

/// Fresh identities per case (docs/check.md, "Fresh identities"): the customers get the case's suffix; the store's ids
/// and UUIDs come from the case's epoch (``CheckOptions/epoch(ofCase:)``), given when the case runs.
enum CaseIdentities {
    /// `scenario` with every customer renamed `name.cN` (N the case number).
    static func fresh(_ scenario: Scenario, caseNumber: Int) -> Scenario {
        scenario.renamingCustomers { "\($0).c\(caseNumber)" }
    }
}

extension Scenario {
    /// The scenario with every customer renamed by `rename`: the customer list, storefronts, family, timeline,
    /// expectations and delivery faults.
    public func renamingCustomers(_ rename: (String) -> String) -> Scenario {
        var result = self
        result.customers = customers.map(rename)
        result.storefronts = Dictionary(uniqueKeysWithValues: storefronts.map { (rename($0.key), $0.value) })
        if var family {
            family.organizer = rename(family.organizer)
            family.members = family.members.map(rename)
            result.family = family
        }
        result.timeline = timeline.map { entry in
            var entry = entry
            entry.action = entry.action.renamingCustomer(rename)
            return entry
        }
        result.expectations = expectations.map { expectation in
            switch expectation {
            case .entitled(let at, let products, let location):
                return .entitled(
                    at: at, products: Dictionary(uniqueKeysWithValues: products.map { (rename($0.key), $0.value) }),
                    location: location)
            case .status(let at, let codes, let location):
                return .status(
                    at: at, codes: Dictionary(uniqueKeysWithValues: codes.map { (rename($0.key), $0.value) }),
                    location: location)
            case .notifications(let customer, let mode, let items, let location):
                return .notifications(customer: customer.map(rename), mode: mode, items: items, location: location)
            }
        }
        result.deliveryFaults = deliveryFaults.map { fault in
            var fault = fault
            fault.recipient = fault.recipient.map(rename)
            return fault
        }
        return result
    }
}
