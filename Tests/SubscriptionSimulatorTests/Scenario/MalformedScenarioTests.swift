import Foundation
import Testing
@testable import SubscriptionSimulator

/// Each file in Golden/Malformed is a scenario with one mistake; its first line says the exact error expected:
/// `# expect-error: LINE:COLUMN: MESSAGE`. Decoding (and, where decoding passes, running) must fail with exactly that.
@Suite struct MalformedScenarioTests {
    static let folder = PackagePaths.golden.appendingPathComponent("Malformed")
    static let files = PackagePaths.yamlFiles(in: folder).map(\.lastPathComponent)

    @Test func thereAreAtLeastThirtyMalformedScenarios() {
        #expect(Self.files.count >= 30)
    }

    @Test(arguments: files)
    func failsWithTheExactMessageAndLocation(name: String) throws {
        let text = try PackagePaths.read(Self.folder.appendingPathComponent(name))
        let expected = String(text.split(separator: "\n")[0].dropFirst("# expect-error: ".count))
        do {
            let scenario = try ScenarioDecoder(file: name, baseDirectory: Self.folder.path).decode(text)
            _ = try ScenarioRunner.run(scenario)
            Issue.record("\(name): expected the error \(expected), but the scenario ran")
        } catch {
            let message = error.description
            #expect(message.hasPrefix(name + ":"), "\(message)")
            let found = String(message.dropFirst(name.count + 1)).replacingOccurrences(
                of: ": error: ", with: ": ", options: [], range: nil)
            let normalized = found.replacingOccurrences(of: Self.folder.path + "/", with: "")
            #expect(normalized == expected.replacingOccurrences(of: "/tmp/bad/", with: ""), "\(name)")
        }
    }
}
