/// Shrinks a diverging case to a small scenario that still diverges the same way (docs/check.md, "Shrinking").
///
/// Greedy and deterministic, in the manner of delta debugging: the run first ends at the divergent instant; then,
/// until no pass changes anything, it tries in a fixed order to drop chunks of the timeline (halves, quarters, ...,
/// single entries), to drop a customer with every entry that names them, to drop the family, to drop delivery faults
/// (each, or only its failure or its duplicate), to shorten each wait between entries (to nothing, an hour, a day, or
/// half of it), to simplify actions (a purchase without its app account token or on the up-front plan, a
/// plan change without its `plan`), and to end the run earlier. A
/// candidate is kept when it runs (the store accepts every entry) and diverges with the same ``Divergence/Kind``.
public struct Shrinker {
    /// Runs a candidate; the shrinker keeps it when this returns a divergence of the kind it keeps.
    let run: (Scenario) -> CaseResult
    let kind: Divergence.Kind
    /// With `simctl check --keep-going`: a candidate must also diverge in this class (``FindingClass``), so that the
    /// shrunk scenario still shows the class it stands for.
    public var findingClass: FindingClass?
    /// Candidates tried so far.
    public private(set) var attempts = 0
    /// Candidates kept so far (each a smaller scenario).
    public private(set) var steps = 0
    /// Called after each kept candidate with the number of steps so far (progress output).
    var progress: (Int) -> Void = { _ in }

    public init(kind: Divergence.Kind, run: @escaping (Scenario) -> CaseResult) {
        self.kind = kind
        self.run = run
    }

    /// The smallest scenario found and its divergence, from `scenario` and the divergence it showed.
    public mutating func shrink(_ scenario: Scenario, divergence: Divergence) -> (Scenario, Divergence) {
        var best = scenario
        var found = divergence
        /// Keeps `candidate` when it still diverges the same way.
        func attempt(_ candidate: Scenario) -> Bool {
            guard candidate != best else { return false }
            attempts += 1
            guard case .diverges(let divergence) = run(candidate).outcome, divergence.kind == kind,
                findingClass == nil || divergence.findingClass == findingClass
            else { return false }
            best = candidate
            found = divergence
            steps += 1
            progress(steps)
            return true
        }
        _ = attempt(Self.ending(best, at: found.instant))
        var changed = true
        while changed {
            changed = false
            // Chunks of the timeline, largest first.
            var size = max(1, best.timeline.count / 2)
            while size >= 1 {
                var start = 0
                while start < best.timeline.count {
                    var candidate = best
                    candidate.timeline.removeSubrange(start..<min(best.timeline.count, start + size))
                    if attempt(candidate) { changed = true } else { start += size }
                }
                size /= 2
            }
            for customer in best.customers.reversed() where attempt(Self.without(customer, best)) { changed = true }
            if best.family != nil {
                var candidate = best
                candidate.family = nil
                candidate.timeline.removeAll { $0.action.spec.needsFamily }
                if attempt(candidate) { changed = true }
            }
            var index = best.deliveryFaults.count - 1
            while index >= 0 {
                if index < best.deliveryFaults.count {
                    var candidate = best
                    candidate.deliveryFaults.remove(at: index)
                    if attempt(candidate) {
                        changed = true
                    } else {
                        let fault = best.deliveryFaults[index]
                        if fault.duplicate && fault.failedAttempts > 0 {
                            var onlyFailure = best
                            onlyFailure.deliveryFaults[index].duplicate = false
                            var onlyDuplicate = best
                            onlyDuplicate.deliveryFaults[index].failedAttempts = 0
                            if attempt(onlyFailure) || attempt(onlyDuplicate) { changed = true }
                        } else if fault.failedAttempts > 1 {
                            var fewer = best
                            fewer.deliveryFaults[index].failedAttempts = 1
                            if attempt(fewer) { changed = true }
                        }
                    }
                }
                index -= 1
            }
            if shortenWaits({ best }, attempt) { changed = true }
            for position in best.timeline.indices {
                guard position < best.timeline.count else { continue }
                for simpler in Self.simplifications(of: best.timeline[position].action) {
                    var candidate = best
                    candidate.timeline[position].action = simpler
                    if attempt(candidate) {
                        changed = true
                        break
                    }
                }
            }
            if let last = best.timeline.last?.at, last < found.instant, attempt(Self.ending(best, at: last)) {
                changed = true
            }
        }
        return (best, found)
    }

    /// Simpler forms of `action`, tried in order (its table entry's ``CheckFollowUp/simpler``): a purchase without
    /// its app account token, or on the up-front plan (no `plan:`); a plan change without its `plan`.
    static func simplifications(of action: ScenarioAction) -> [ScenarioAction] {
        action.spec.followUp?.simpler(action) ?? []
    }

    /// Tries shorter waits before each entry of the scenario `current` returns (and before the end): everything from
    /// that entry on moves earlier. `attempt` keeps a candidate (and `current` then returns it).
    func shortenWaits(_ current: () -> Scenario, _ attempt: (Scenario) -> Bool) -> Bool {
        var changed = false
        var position = 0
        while position < current().timeline.count {
            let best = current()
            let previous = position == 0 ? best.start : best.timeline[position - 1].at
            let gap = previous.milliseconds(to: best.timeline[position].at)
            for shorter in [Int64(0), 3_600_000, 86_400_000, gap / 2] where shorter < gap {
                if attempt(Self.moving(best, from: position, earlierBy: gap - shorter)) {
                    changed = true
                    break
                }
            }
            position += 1
        }
        return changed
    }

    /// The scenario with entries from `position` on, the faults at or after that entry's instant and `until` moved
    /// earlier by `milliseconds`.
    static func moving(_ scenario: Scenario, from position: Int, earlierBy milliseconds: Int64) -> Scenario {
        var result = scenario
        let from = scenario.timeline[position].at
        for index in position..<result.timeline.count {
            result.timeline[index].at = result.timeline[index].at.adding(milliseconds: -milliseconds)
        }
        for index in result.deliveryFaults.indices where result.deliveryFaults[index].instant >= from {
            result.deliveryFaults[index].instant = result.deliveryFaults[index].instant.adding(
                milliseconds: -milliseconds)
        }
        result.until = result.until.adding(milliseconds: -milliseconds)
        return result
    }

    /// The scenario ending at `instant`: entries and faults after it dropped.
    static func ending(_ scenario: Scenario, at instant: Instant) -> Scenario {
        var result = scenario
        result.until = max(instant, scenario.start)
        result.timeline.removeAll { $0.at > instant }
        result.deliveryFaults.removeAll { $0.instant > instant }
        return result
    }

    /// The scenario without `customer`: every entry naming them, their faults, their family place (the whole family
    /// when they organize it).
    static func without(_ customer: String, _ scenario: Scenario) -> Scenario {
        var result = scenario
        result.customers.removeAll { $0 == customer }
        result.storefronts[customer] = nil
        result.timeline.removeAll { $0.action.customer == customer }
        result.deliveryFaults.removeAll { $0.recipient == customer }
        if let family = scenario.family {
            if family.organizer == customer {
                result.family = nil
                result.timeline.removeAll { $0.action.spec.needsFamily }
            } else {
                result.family?.members.removeAll { $0 == customer }
            }
        }
        return result
    }
}
