import Testing

@testable import SubscriptionSimulator

/// Issue 47: every class of divergence in one run, refusals as findings, the vocabulary chosen, tolerance, and a
/// scenario's products mapped to a backend's own.
@Suite struct KeepGoingTests {
    static func keepGoing(cases: Int, seed: UInt64 = 0) -> CheckOptions {
        var options = CheckOptions(cases: cases, seed: seed)
        options.keepGoing = true
        return options
    }

    static let twoBugs: Set<ReferenceBackend.Bug> = [.endsAccessOnAnyFailToRenew, .endsAccessOnAnyRefund]

    /// Both bugs of a two-bug backend are found in one run, each class shrunk within itself; the classes name no id,
    /// so another seed finds the same ones.
    @Test func twoBugsGiveTwoClassesStableAcrossSeeds() throws {
        let scenario = try BackendCheckTests.scenario()
        var seen: [Set<String>] = []
        for seed: UInt64 in [0, 1] {
            let report = try BackendCheck(scenario: scenario, options: Self.keepGoing(cases: 80, seed: seed))
                .run(against: ReferenceBackend(bugs: Self.twoBugs).checked)
            #expect(!report.passed)
            #expect(report.cases == 80, "keep-going runs every case")
            let classes = report.findings.map(\.findingClass)
            #expect(Set(classes).count == classes.count, "one finding per class")
            #expect(
                classes.contains { $0.kind == .deniesAccess && $0.notification == "DID_FAIL_TO_RENEW/GRACE_PERIOD" },
                "\(report)")
            #expect(classes.contains { $0.kind == .deniesAccess && $0.notification.hasPrefix("REFUND") }, "\(report)")
            for finding in report.findings {
                #expect(finding.counterexample.divergence.findingClass == finding.findingClass)
                #expect(finding.counterexample.scenario.timeline.count <= 12, "\(finding.counterexample)")
                #expect(finding.cases.first == finding.counterexample.caseNumber)
                let replayed = try ScenarioDecoder(file: "c.yaml").decode(finding.counterexample.yaml)
                #expect(ScenarioRunner.execute(replayed).passed)
            }
            #expect(report.description.contains("class 1: "), "\(report)")
            #expect(report.nextEpoch > report.firstEpoch + 80, "the shrinking candidates' epochs are counted")
            seen.append(Set(classes.map { "\($0.kind) \($0.notification)" }.filter { $0.contains("DID_FAIL") }))
        }
        #expect(seen[0] == seen[1])
    }

    /// A backend that answers 500 to TEST: a refusal class, shrunk; with the refusal accepted, the check passes.
    @Test func refusalsAreFindingsUnlessAccepted() throws {
        let scenario = try BackendCheckTests.scenario()
        func backend(_ reference: ReferenceBackend) -> CheckedBackend {
            CheckedBackend(
                deliver: { request in
                    request.item.notificationType == "TEST"
                        ? DeliveryOutcome(
                            sendAttemptResult: .unsuccessfulHTTPResponseCode, httpStatus: 500,
                            responseStart: "not handled")
                        : reference.receive(request)
                }, entitlement: { reference.entitlement($0) })
        }
        let report = try BackendCheck(scenario: scenario, options: Self.keepGoing(cases: 120))
            .run(against: backend(ReferenceBackend()))
        let refusals = report.findings.filter { $0.findingClass.kind == .refusesNotification }
        #expect(!refusals.isEmpty && refusals.count == report.findings.count, "\(report)")
        for finding in refusals {
            #expect(finding.findingClass.notification == "TEST" && finding.findingClass.httpStatus == 500)
            #expect(finding.counterexample.divergence.refusal?.responseStart == "not handled")
            #expect(finding.counterexample.divergence.description.contains("HTTP 500: not handled"))
        }
        var accepting = backend(ReferenceBackend())
        accepting.acceptedRefusals = ["TEST": [500]]
        let accepted = try BackendCheck(scenario: scenario, options: Self.keepGoing(cases: 120)).run(against: accepting)
        #expect(accepted.passed, "\(accepted)")
        #expect(accepted.acceptedRefusals > 0)
        var otherStatus = backend(ReferenceBackend())
        otherStatus.acceptedRefusals = ["TEST": [503]]
        #expect(
            !(try BackendCheck(scenario: scenario, options: Self.keepGoing(cases: 120)).run(against: otherStatus))
                .passed)
    }

    /// An answer that matches the truth of less than the tolerance ago is tolerated; older, it is not.
    @Test func toleranceLooksBackOverTransitions() {
        let start = Instant(millisecondsSince1970: 1_767_225_600_000)
        let active = OriginalTransactionAccess(
            originalTransactionId: "1", customer: "a", kind: .subscription, grantsAccess: true, productId: "p")
        var ended = active
        ended.grantsAccess = false
        var history = TruthHistory()
        history.note(active, at: start)
        history.note(ended, at: start.adding(milliseconds: 86_400_000))
        let stillActive = BackendAnswer(active: true, productId: "p")
        let hour: Int64 = 3_600_000
        #expect(
            history.tolerates(
                stillActive, about: "1", at: start.adding(milliseconds: 86_400_000 + hour), tolerance: hour))
        #expect(
            !history.tolerates(
                stillActive, about: "1", at: start.adding(milliseconds: 86_400_000 + hour + 1), tolerance: hour))
        #expect(!history.tolerates(stillActive, about: "1", at: start.adding(milliseconds: 86_400_000), tolerance: 0))
        #expect(
            !history.tolerates(
                BackendAnswer(active: true, productId: "q"), about: "1", at: start.adding(milliseconds: 86_400_000),
                tolerance: hour))
    }

    /// `--actions` / `--without`: generation draws only the chosen actions; the report lists them.
    @Test func theVocabularyIsChosen() throws {
        let scenario = try BackendCheckTests.scenario()
        var options = CheckOptions(cases: 20)
        options.vocabulary = VocabularyChoice(only: ["purchase", "cancel", "failBilling"])
        let generator = CaseGenerator(scenario: scenario, options: options)
        for index in 0..<20 {
            let names = Set(try generator.generate(index).timeline.map(\.action.name))
            #expect(names.isSubset(of: ["purchase", "cancel", "failBilling"]), "\(names)")
        }
        options.vocabulary = VocabularyChoice(without: ["purchase"])
        let report = try BackendCheck(scenario: scenario, options: options).run(against: ReferenceBackend().checked)
        #expect(!report.vocabulary.map(\.name).contains("purchase"))
        #expect(report.vocabulary.map(\.name).contains("refund"))
        options.vocabulary = VocabularyChoice(weights: ["purchase": 5, "refund": 0])
        let weighted = try BackendCheck(scenario: scenario, options: options).run(against: ReferenceBackend().checked)
        #expect(weighted.vocabulary.first == VocabularyEntry(name: "purchase", weight: 500))
        #expect(!weighted.vocabulary.map(\.name).contains("refund"))
        #expect(VocabularyChoice.unknown(["purchse"])?.contains("did you mean 'purchase'?") == true)
        options.vocabulary = VocabularyChoice(only: ["joinFamily"], without: ["joinFamily"])
        #expect(throws: CheckError.self) {
            try BackendCheck(scenario: scenario, options: options).run(against: ReferenceBackend().checked)
        }
    }

    /// The weights file: strict, with file:line:column errors.
    @Test func weightsFileIsStrict() throws {
        #expect(
            try VocabularyChoice.weights(from: "# weights\npurchase 10\n\nrefund   2 # fewer\n", file: "w.txt")
                == ["purchase": 10, "refund": 2])
        func message(_ text: String) -> String {
            do {
                _ = try VocabularyChoice.weights(from: text, file: "w.txt")
                return ""
            } catch { return "\(error)" }
        }
        #expect(
            message("purchase 1\nrefund two\n").hasPrefix("w.txt:2:8: error: expected a weight"),
            "\(message("purchase 1\nrefund two\n"))")
        #expect(message("refnd 2").hasPrefix("w.txt:1:1: error: unknown action 'refnd' (did you mean 'refund'?)"))
        #expect(message("refund 2 3").hasPrefix("w.txt:1:10: error: expected 'ACTION WEIGHT'"))
        #expect(message("refund").hasPrefix("w.txt:1:7: error: expected 'ACTION WEIGHT'"))
        #expect(message("refund 2\n  refund 3").hasPrefix("w.txt:2:3: error: action 'refund' is given twice"))
        #expect(message("refund 1001").contains("from 0 to 1000"))
    }

    /// `--map-product`: every reference renamed; an unknown product is an error naming it.
    @Test func productsAreMappedToTheBackendsOwn() throws {
        let scenario = try BackendCheckTests.scenario()
        let mapped = try scenario.mappingProducts(["com.example.monthly": "com.acme.pro.monthly"])
        #expect(mapped.catalog["com.acme.pro.monthly"] != nil && mapped.catalog["com.example.monthly"] == nil)
        #expect(mapped.timeline.first?.action == .purchase(customer: "alice", product: "com.acme.pro.monthly"))
        #expect(
            try ScenarioRunner.run(mapped).store.notifications.count
                == (try ScenarioRunner.run(scenario)).store.notifications.count)
        do {
            _ = try scenario.mappingProducts(["com.example.montly": "x"])
            Issue.record("an unknown product is refused")
        } catch {
            #expect(error.message.contains("no product 'com.example.montly'"), "\(error.message)")
            #expect(error.message.contains("did you mean 'com.example.monthly'?"))
        }
        #expect(throws: ScenarioError.self) {
            try scenario.mappingProducts(["com.example.monthly": "com.example.yearly"])
        }
    }
}
