import Foundation
import Testing
@testable import SubscriptionSimulator

/// Invariants every payload ever emitted must satisfy (issue 9, rules 2 and 3), checked over every Scenarios file,
/// every golden script, and every decoded golden file on disk:
/// - a transaction's `purchaseDate` is not after its `expiresDate`, and its `originalPurchaseDate` is not after its
///   `purchaseDate`;
/// - with status 2 (expired) or 5 (revoked), renewal info never says `isInBillingRetryPeriod: true` nor carries a
///   `gracePeriodExpiresDate` later than the notification's `signedDate`.
@Suite struct PayloadInvariantsTests {
    static func problems(in store: SimulatedStore) -> [String] {
        var problems: [String] = []
        for t in store.transactions where !t.hasConsistentDates {
            problems.append("transaction \(t.transactionId) of \(t.customer): \(datesText(t))")
        }
        for n in store.notifications {
            // Notifications about the app carry no transaction (rule notification-about-the-app).
            guard let transaction = n.transaction else { continue }
            guard !transaction.hasConsistentDates else { continue }
            problems.append("\(n.instant) \(n.recipient ?? "") \(n.type.rawValue): \(datesText(transaction))")
        }
        return problems + renewalInfoContradictions(in: store)
    }

    static func datesText(_ t: TransactionRecord) -> String {
        "originalPurchaseDate \(t.originalPurchaseDate), purchaseDate \(t.purchaseDate), "
            + "expiresDate \(t.expiresDate.map(\.description) ?? "none")"
    }

    @Test(arguments: ScenarioFilesTests.files.map(\.lastPathComponent))
    func everyScenarioFileKeepsThePayloadInvariants(name: String) throws {
        let url = PackagePaths.scenarios.appendingPathComponent(name)
        let scenario = try ScenarioFilesTests.decoder(name).decode(try PackagePaths.read(url))
        let run = try ScenarioRunner.run(scenario)
        #expect(Self.problems(in: run.store) == [], "seed \(scenario.seed)")
    }

    @Test(arguments: FamilyGoldenTests.cases.map(\.0))
    func everyFamilyGoldenKeepsThePayloadInvariants(name: String) throws {
        var store = makeFamilyStore(grace: .sixteenDays)
        try FamilyGoldenTests.cases.first { $0.0 == name }!.2(&store)
        #expect(Self.problems(in: store) == [])
    }

    @Test(arguments: GoldenLifecycleTests.lifecycles.map(\.0))
    func everyLifecycleGoldenKeepsThePayloadInvariants(name: String) throws {
        let (_, grace, eligibility, script) = GoldenLifecycleTests.lifecycles.first { $0.0 == name }!
        var store = makeStore(grace: grace, eligibility: eligibility)
        try script(&store)
        #expect(Self.problems(in: store) == [])
    }

    // MARK: - The golden files themselves

    static let decodedGoldens: [URL] = {
        guard
            let walker = FileManager.default.enumerator(
                at: PackagePaths.golden, includingPropertiesForKeys: nil)
        else { return [] }
        return walker.compactMap { $0 as? URL }
            .filter {
                $0.lastPathComponent.hasSuffix(".decoded.json") || $0.lastPathComponent.hasSuffix(".decoded.jsonl")
                    || $0.lastPathComponent.hasSuffix(".statuses.json")
                    || $0.lastPathComponent.hasSuffix(".history.json")
            }
            .sorted { $0.path < $1.path }
    }()

    @Test func thereAreDecodedGoldensToCheck() {
        #expect(Self.decodedGoldens.count >= 40)
    }

    @Test func everyDecodedGoldenFileKeepsThePayloadInvariants() throws {
        var problems: [String] = []
        var transactionsSeen = 0
        for url in Self.decodedGoldens {
            let name = url.path.replacingOccurrences(of: PackagePaths.golden.path + "/", with: "")
            for document in try Self.jsonDocuments(in: PackagePaths.read(url)) {
                Self.walk(document) { object in
                    if let purchase = object["purchaseDate"] as? Int64,
                        let original = object["originalPurchaseDate"] as? Int64
                    {
                        transactionsSeen += 1
                        let expires = object["expiresDate"] as? Int64
                        if original > purchase || expires.map({ purchase > $0 }) == true {
                            problems.append(
                                "\(name): transaction \(object["transactionId"] ?? "?"): originalPurchaseDate "
                                    + "\(original), purchaseDate \(purchase), expiresDate \(expires.map(String.init) ?? "none")"
                            )
                        }
                    }
                    if let status = object["status"] as? Int, status == 2 || status == 5,
                        let renewal = object["signedRenewalInfo"] as? [String: Any]
                    {
                        let signed = renewal["signedDate"] as? Int64 ?? .max
                        if renewal["isInBillingRetryPeriod"] as? Bool == true {
                            problems.append("\(name): status \(status) with isInBillingRetryPeriod true")
                        }
                        if let grace = renewal["gracePeriodExpiresDate"] as? Int64, grace > signed {
                            problems.append(
                                "\(name): status \(status) with gracePeriodExpiresDate \(grace) > \(signed)")
                        }
                    }
                }
            }
        }
        #expect(transactionsSeen > 200, "the walk found the decoded transactions")
        #expect(problems == [])
    }

    /// The JSON values in a golden: one per line (`.jsonl`), or pretty-printed ones each closed by `}` alone on a
    /// line (`.json`).
    static func jsonDocuments(in text: String) throws -> [Any] {
        let chunks: [String]
        if text.hasPrefix("{\n") {
            chunks = text.components(separatedBy: "\n}\n").filter { !$0.isEmpty }.map { $0 + "\n}" }
        } else {
            chunks = text.split(separator: "\n").map(String.init)
        }
        return try chunks.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
    }

    static func walk(_ value: Any, _ visit: ([String: Any]) -> Void) {
        if let object = value as? [String: Any] {
            visit(object)
            for member in object.values { walk(member, visit) }
        } else if let array = value as? [Any] {
            for item in array { walk(item, visit) }
        }
    }
}
