/// `simctl check`'s core, in process: generates cases from a scenario, runs each against a backend, and on the first
/// divergence shrinks it to a counterexample (docs/check.md). The command line and the Swift API
/// (`BackendChecker` in SubscriptionSimulatorTesting) both stand on it.
public struct BackendCheck {
    public let scenario: Scenario
    public let options: CheckOptions
    /// Called as the check goes (cases done, shrink steps), for progress output.
    public var progress: (CheckProgress) -> Void = { _ in }
    /// Asked before each case: false stops the check there with the cases run so far (`simctl check --max-time`);
    /// the report then says it stopped early.
    public var shouldContinue: () -> Bool = { true }

    public init(scenario: Scenario, options: CheckOptions = CheckOptions()) {
        self.scenario = scenario
        self.options = options
    }

    /// Runs up to ``CheckOptions/cases`` cases against `backend`, stopping at the first that diverges or cannot be
    /// judged. Throws when the options are unusable or the scenario's own timeline cannot run.
    public func run(against backend: CheckedBackend) throws(CheckError) -> CheckReport {
        if let problem = options.problem { throw CheckError(message: problem) }
        let generator = CaseGenerator(scenario: scenario, options: options)
        var report = CheckReport(seed: options.seed, verdict: .agrees)
        report.keepGoing = options.keepGoing
        report.firstEpoch = options.epoch
        report.nextEpoch = options.epoch(ofCase: options.cases)
        let people = scenario.customers.isEmpty ? ["alice", "bob", "carol"] : scenario.customers
        let vocabulary = ActionVocabulary(
            catalog: scenario.catalog, people: people, family: scenario.family, choice: options.vocabulary)
        report.vocabulary = vocabulary.used
        if options.vocabulary != nil && vocabulary.kinds.isEmpty {
            throw CheckError(
                message: "no action left to draw: none of the chosen actions applies to this scenario's catalogue "
                    + "and people")
        }
        /// Per class (keep-going), in the order first seen: the first case, its scenario and divergence, and how
        /// many cases showed it.
        var classes: [FindingClass] = []
        var firstSeen: [FindingClass: (caseNumber: Int, scenario: Scenario, divergence: Divergence)] = [:]
        var occurrences: [FindingClass: [Int]] = [:]
        for index in 0..<options.cases {
            guard shouldContinue() else {
                report.stoppedEarly = true
                break
            }
            let generated: Scenario
            do throws(ScenarioError) { generated = try generator.generate(index) } catch {
                throw CheckError(message: "the scenario's timeline cannot run: \(error)")
            }
            let result = CaseRunner.run(generated, against: backend, epoch: options.epoch(ofCase: index))
            report.cases += 1
            report.deliveries += result.deliveries
            report.notifications += result.notifications
            report.checkpoints += result.checkpoints
            report.tolerated += result.tolerated
            report.acceptedRefusals += result.acceptedRefusals
            progress(.caseDone(index + 1, of: options.cases, notifications: report.notifications))
            switch result.outcome {
            case .agrees:
                continue
            case .invalid(let message):
                // Generation tried every action on the store: a refusal here is a bug of simctl, not of the backend.
                throw CheckError(message: "case \(index + 1) cannot run (please report this): \(message)")
            case .cannotJudge(let message):
                report.verdict = .cannotJudge(caseNumber: index + 1, message: message)
                return report
            case .diverges(let divergence) where options.keepGoing:
                let found = divergence.findingClass
                if firstSeen[found] == nil {
                    classes.append(found)
                    firstSeen[found] = (index + 1, generated, divergence)
                }
                occurrences[found, default: []].append(index + 1)
            case .diverges(let divergence):
                var epoch = report.nextEpoch
                report.verdict = .diverges(counterexample(index + 1, generated, divergence, backend, epoch: &epoch))
                report.nextEpoch = epoch
                return report
            }
        }
        guard options.keepGoing else { return report }
        var epoch = report.nextEpoch
        for (number, found) in classes.enumerated() {
            guard let first = firstSeen[found] else { continue }
            progress(.classShrinking(number + 1, of: classes.count))
            let shrunk = counterexample(
                first.caseNumber, first.scenario, first.divergence, backend, epoch: &epoch, keeping: found)
            report.findings.append(
                Finding(
                    number: number + 1, findingClass: found, cases: occurrences[found] ?? [], counterexample: shrunk))
        }
        report.nextEpoch = epoch
        if let first = report.findings.first { report.verdict = .diverges(first.counterexample) }
        return report
    }

    /// Shrinks (when ``CheckOptions/shrinks``) and writes down the counterexample.
    func counterexample(
        _ caseNumber: Int, _ generated: Scenario, _ divergence: Divergence, _ backend: CheckedBackend,
        epoch: inout UInt32, keeping findingClass: FindingClass? = nil
    ) -> Counterexample {
        // Every candidate runs with identities of its own (the epochs after the last case's, and after the candidates
        // of the classes shrunk before), so the backend, which keeps what earlier runs delivered, sees each as new.
        // Each divergence seen, with the epoch it was seen at (its ids and UUIDs are that epoch's).
        var diverged: [(epoch: UInt32, divergence: Divergence)] = [(options.epoch(ofCase: caseNumber - 1), divergence)]
        var next = epoch
        var shrinker = Shrinker(kind: divergence.kind) { candidate in
            defer { next &+= 1 }
            let result = CaseRunner.run(candidate, against: backend, epoch: next)
            if case .diverges(let found) = result.outcome { diverged.append((next, found)) }
            return result
        }
        shrinker.findingClass = findingClass
        shrinker.progress = { [progress] steps in progress(.shrinkStep(steps)) }
        var scenario = generated
        var found = divergence
        if options.shrinks { (scenario, found) = shrinker.shrink(generated, divergence: divergence) }
        epoch = next
        scenario.name = "Counterexample: \(found.kind.rawValue) (check case \(caseNumber), seed \(options.seed))"
        // The file runs at the epoch its divergence was found at, so its stream (`counterexample.jsonl`, `simctl run`,
        // `check --replay`) has the ids and UUIDs the report names.
        scenario.epoch = diverged.last { $0.divergence == found }?.epoch ?? options.epoch(ofCase: caseNumber - 1)
        scenario = Counterexample.stating(scenario, truthOf: found)
        return Counterexample(
            caseNumber: caseNumber, original: divergence, divergence: found, scenario: scenario,
            shrinkSteps: shrinker.steps, shrinkAttempts: shrinker.attempts, signer: backend.signer)
    }
}

/// Progress of a check, for standard error.
public enum CheckProgress: Hashable, Sendable {
    /// `done` cases of `total` have run; `notifications` sent so far in all of them.
    case caseDone(Int, of: Int, notifications: Int)
    /// Shrinking kept its n-th smaller scenario.
    case shrinkStep(Int)
    /// `--keep-going`: shrinking the representative of class n of `total`.
    case classShrinking(Int, of: Int)
}

/// One class of divergence a `--keep-going` check found, with its shrunk representative.
public struct Finding: Sendable {
    /// From 1, in the order the classes were first seen (`counterexample-N.yaml`).
    public var number: Int
    public var findingClass: FindingClass
    /// The cases (from 1) that diverged in this class.
    public var cases: [Int]
    /// The first such case, shrunk within the class.
    public var counterexample: Counterexample
}

/// A check that cannot run: unusable options, or a scenario whose own timeline is refused.
public struct CheckError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// What a check found.
public struct CheckReport: Sendable, CustomStringConvertible {
    /// The verdict.
    public enum Verdict: Sendable {
        /// Every case agreed (exit 0 of the command line to come).
        case agrees
        /// A case diverged (exit 1), with its shrunk counterexample.
        case diverges(Counterexample)
        /// The backend cannot be judged (exit 2).
        case cannotJudge(caseNumber: Int, message: String)
    }

    public var seed: UInt64
    public var verdict: Verdict
    public var cases = 0
    /// Attempts that reached the backend.
    public var deliveries = 0
    public var notifications = 0
    public var checkpoints = 0
    /// Whether ``BackendCheck/shouldContinue`` stopped the check before its last case.
    public var stoppedEarly = false
    /// Whether every case ran (``CheckOptions/keepGoing``); ``findings`` then holds every class.
    public var keepGoing = false
    /// `--keep-going`: every class of divergence, each with its shrunk representative, in the order first seen.
    public var findings: [Finding] = []
    /// The actions the cases were drawn from, with their weights.
    public var vocabulary: [VocabularyEntry] = []
    /// Answers tolerated (``CheckedBackend/toleranceMilliseconds``) and refusals accepted
    /// (``CheckedBackend/acceptedRefusals``), over every case run.
    public var tolerated = 0
    public var acceptedRefusals = 0
    /// The first identity epoch used, and the first one no case or shrinking candidate used (`--epoch auto` starts
    /// the next run there).
    public var firstEpoch: UInt32 = 0
    public var nextEpoch: UInt32 = 0

    public var passed: Bool {
        if case .agrees = verdict { return true }
        return false
    }

    /// The summary, then the divergence and the counterexample when there is one.
    public var description: String {
        let counts =
            "\(cases) case\(cases == 1 ? "" : "s"), \(notifications) notifications, \(deliveries) deliveries, "
            + "\(checkpoints) checkpoints (seed \(seed))"
        if keepGoing, case .cannotJudge = verdict {
        } else if keepGoing {
            return keepGoingSummary(counts)
        }
        switch verdict {
        case .agrees:
            let early = stoppedEarly ? " (stopped early: time limit)" : ""
            return "check: every case agrees with the store\(early): \(counts)"
        case .cannotJudge(let number, let message):
            return "check: case \(number) cannot be judged: \(message)\n\(counts)"
        case .diverges(let counterexample):
            return "check: case \(counterexample.caseNumber) diverges: \(counts)\n\(counterexample)"
        }
    }

    /// `--keep-going`: the counts, the vocabulary, what was tolerated or accepted, a table of the classes and each
    /// class's shrunk divergence.
    func keepGoingSummary(_ counts: String) -> String {
        let early = stoppedEarly ? " (stopped early: time limit)" : ""
        var lines: [String] = []
        if findings.isEmpty {
            lines.append("check: every case agrees with the store\(early): \(counts)")
        } else {
            let classes = "\(findings.count) class\(findings.count == 1 ? "" : "es") of divergence"
            lines.append("check: \(classes)\(early): \(counts)")
        }
        lines.append("vocabulary: " + vocabulary.map(\.description).joined(separator: ", "))
        lines.append("epochs: \(firstEpoch) to \(nextEpoch &- 1) (the next free one: \(nextEpoch))")
        if tolerated > 0 {
            lines.append("tolerated: \(tolerated) answers matched the truth of less than the tolerance ago")
        }
        if acceptedRefusals > 0 { lines.append("accepted refusals: \(acceptedRefusals) attempts (--accept-status)") }
        guard !findings.isEmpty else { return lines.joined(separator: "\n") }
        lines.append("")
        lines.append("  N  cases  first  shrunk  class")
        for finding in findings {
            let example = finding.counterexample
            lines.append(
                Self.padded("\(finding.number)", 3) + Self.padded("\(finding.cases.count)", 7)
                    + Self.padded("\(finding.cases.first ?? 0)", 7)
                    + Self.padded("\(example.scenario.timeline.count)", 8) + "  \(finding.findingClass)")
        }
        for finding in findings {
            let example = finding.counterexample
            lines.append("")
            lines.append(
                "class \(finding.number): \(finding.findingClass), in \(finding.cases.count) case"
                    + "\(finding.cases.count == 1 ? "" : "s") (first: case \(finding.cases.first ?? 0)); shrunk in "
                    + "\(example.shrinkSteps) steps (\(example.shrinkAttempts) candidates tried) to "
                    + "\(example.scenario.timeline.count) timeline entries and \(example.scenario.deliveryFaults.count) "
                    + "delivery faults:")
            lines.append(example.divergence.description)
        }
        return lines.joined(separator: "\n")
    }

    static func padded(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}

/// A shrunk scenario that makes the backend diverge, written down so that it can be replayed and kept as a
/// regression test: `counterexample.yaml` (``yaml``) and `counterexample.jsonl` (``jsonl``).
public struct Counterexample: Sendable, CustomStringConvertible {
    /// The case (from 1) that diverged first.
    public var caseNumber: Int
    /// The divergence in the generated case.
    public var original: Divergence
    /// The divergence in the shrunk scenario.
    public var divergence: Divergence
    /// The shrunk scenario, ending at the divergent instant, with an `expect:` block stating the store's truth there.
    public var scenario: Scenario
    /// Smaller scenarios kept, and candidates tried, while shrinking.
    public var shrinkSteps: Int
    public var shrinkAttempts: Int
    /// Signs ``jsonl`` as the backend's deliveries were signed (``CheckedBackend/signer``); nil: the environment's
    /// default.
    public var signer: (any PayloadSigner)?

    /// `counterexample.yaml`: self-contained; `simctl run` runs it with exit 0 (its expectations state the store's
    /// truth), and its `delivery:` block carries the faults the divergence needs.
    public var yaml: String { ScenarioYAMLWriter.yaml(scenario) }

    /// `counterexample.jsonl`: the POST bodies the scenario delivers, one per line, in the order the store sent them
    /// (`simctl run --format jsonl`).
    public var jsonl: String {
        guard let run = try? ScenarioRunner.run(scenario) else { return "" }
        return DeliveryItem.items(of: run.store, signer: signer).map { $0.body + "\n" }.joined()
    }

    public var description: String {
        "\(divergence)\nshrunk in \(shrinkSteps) steps (\(shrinkAttempts) candidates tried) from case \(caseNumber) "
            + "to \(scenario.timeline.count) timeline entries and \(scenario.deliveryFaults.count) delivery faults:\n"
            + yaml
    }

    /// `scenario` with an `expect:` block stating what the store says at the divergence: the customer's entitled
    /// products and, for a subscription, its status.
    static func stating(_ scenario: Scenario, truthOf divergence: Divergence) -> Scenario {
        var result = scenario
        result.until = max(divergence.instant, scenario.start)
        result.expectations = []
        guard let run = try? ScenarioRunner.run(result) else { return result }
        let location = SourceLocation(line: 0, column: 0)
        let customer = divergence.customer
        // A refused notification to the app (a test notification, a summary) states nothing about a customer.
        guard !customer.isEmpty else { return result }
        result.expectations.append(
            .entitled(
                at: divergence.instant, products: [customer: run.store.entitlements(for: customer)], location: location
            ))
        switch divergence.expected.kind {
        case .subscription, .familySharedSubscription:
            if let status = run.store.status(of: divergence.expected.productId, for: customer) {
                result.expectations.append(
                    .status(
                        at: divergence.instant, codes: [customer: [divergence.expected.productId: status.statusCode]],
                        location: location))
            }
        case .nonConsumable, .familySharedNonConsumable, .consumable, .nonRenewingSubscription:
            break
        }
        return result
    }
}
