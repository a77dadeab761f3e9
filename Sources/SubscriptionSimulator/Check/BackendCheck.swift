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
        for index in 0..<options.cases {
            guard shouldContinue() else {
                report.stoppedEarly = true
                return report
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
            case .diverges(let divergence):
                report.verdict = .diverges(counterexample(index + 1, generated, divergence, backend))
                return report
            }
        }
        return report
    }

    /// Shrinks (when ``CheckOptions/shrinks``) and writes down the counterexample.
    func counterexample(
        _ caseNumber: Int, _ generated: Scenario, _ divergence: Divergence, _ backend: CheckedBackend
    ) -> Counterexample {
        // Every candidate runs with identities of its own (the epochs after the last case's), so the backend, which
        // keeps what earlier runs delivered, sees each as new.
        var epoch = options.epoch(ofCase: options.cases)
        // Each divergence seen, with the epoch it was seen at (its ids and UUIDs are that epoch's).
        var diverged: [(epoch: UInt32, divergence: Divergence)] = [(options.epoch(ofCase: caseNumber - 1), divergence)]
        var shrinker = Shrinker(kind: divergence.kind) { candidate in
            defer { epoch &+= 1 }
            let result = CaseRunner.run(candidate, against: backend, epoch: epoch)
            if case .diverges(let found) = result.outcome { diverged.append((epoch, found)) }
            return result
        }
        shrinker.progress = { [progress] steps in progress(.shrinkStep(steps)) }
        var scenario = generated
        var found = divergence
        if options.shrinks { (scenario, found) = shrinker.shrink(generated, divergence: divergence) }
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

    public var passed: Bool {
        if case .agrees = verdict { return true }
        return false
    }

    /// The summary, then the divergence and the counterexample when there is one.
    public var description: String {
        let counts =
            "\(cases) case\(cases == 1 ? "" : "s"), \(notifications) notifications, \(deliveries) deliveries, "
            + "\(checkpoints) checkpoints (seed \(seed))"
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
