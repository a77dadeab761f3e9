import Foundation
import Testing
@testable import SubscriptionSimulator

/// Every example in docs/ runs: YAML blocks are complete scenarios whose expectations must hold; Swift blocks must
/// appear verbatim in a Docs/*Examples.swift file, where they are compiled and run, unless a `<!-- file: PATH -->`
/// line names the file of a package outside this one that `Tests/Layers/check_embedding_docs.sh` builds and runs
/// (every block of docs/embedding.md). (Shell commands are run against the built binary by
/// SimctlTests/DocCommandsTests.)
@Suite struct DocExamplesTests {
    static func blocks(_ language: String) -> [(file: String, index: Int, text: String)] {
        blocksWithFiles(language).map { ($0.file, $0.index, $0.text) }
    }

    /// Each block with the `<!-- file: PATH -->` line above it, if any.
    static func blocksWithFiles(_ language: String) -> [(file: String, index: Int, text: String, path: String?)] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.docs.path)) ?? []).filter {
            $0.hasSuffix(".md")
        }.sorted()
        var found: [(String, Int, String, String?)] = []
        for file in files {
            let text = (try? PackagePaths.read(PackagePaths.docs.appendingPathComponent(file))) ?? ""
            let parts = text.components(separatedBy: "```" + language + "\n")
            for (index, part) in parts.dropFirst().enumerated() {
                let before = parts[index].split(separator: "\n", omittingEmptySubsequences: false).dropLast().last ?? ""
                let path =
                    before.hasPrefix("<!-- file: ") && before.hasSuffix(" -->")
                    ? String(before.dropFirst("<!-- file: ".count).dropLast(" -->".count)) : nil
                found.append((file, index + 1, part.components(separatedBy: "```")[0], path))
            }
        }
        return found
    }

    /// docs/embedding.md is followed from outside the package: every Swift block is a file of that package.
    @Test func everySwiftBlockOfTheEmbeddingGuideIsAFileOfTheOutsidePackage() {
        let blocks = Self.blocksWithFiles("swift").filter { $0.file == "embedding.md" }
        #expect(blocks.count >= 10)
        #expect(blocks.filter { $0.path == nil }.map(\.index) == [])
        #expect(blocks.first?.path == "Package.swift")
        #expect(Set(blocks.compactMap(\.path)).count == blocks.count, "one block per file")
    }

    @Test func docsHaveExamples() {
        #expect(Self.blocks("yaml").count >= 3 && Self.blocks("swift").count >= 4)
    }

    @Test(arguments: blocks("yaml").map { "\($0.file)#\($0.index)" })
    func yamlExampleRunsAndItsExpectationsHold(id: String) throws {
        let block = Self.blocks("yaml").first { "\($0.file)#\($0.index)" == id }!
        let scenario = try ScenarioDecoder(file: "docs/\(id)", baseDirectory: PackagePaths.scenarios.path).decode(
            block.text)
        let run = try ScenarioRunner.run(scenario)
        #expect(run.failures.isEmpty, "\(run.failures.map(\.description))")
    }

    @Test(arguments: blocksWithFiles("swift").filter { $0.path == nil }.map { "\($0.file)#\($0.index)" })
    func swiftExampleIsCompiledInTheTestSuite(id: String) throws {
        let block = Self.blocks("swift").first { "\($0.file)#\($0.index)" == id }!
        // Every .swift file of this folder (DeliveryExamples.swift, StreamingExamples.swift, ...).
        let folder = PackagePaths.root.appendingPathComponent("Tests/SubscriptionSimulatorTests/Docs")
        let source = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            .sorted().map { try PackagePaths.read(folder.appendingPathComponent($0)) }.joined(separator: "\n")
        let snippets = source.components(separatedBy: "// docs:begin ").dropFirst().map {
            $0.components(separatedBy: "// docs:end")[0].split(separator: "\n", maxSplits: 1).last.map(String.init)
                ?? ""
        }
        #expect(snippets.contains(block.text), "\(id) is not (verbatim) in a Docs/*.swift file")
    }

    @Test func familySharingTimelineIsTheScenarioFile() throws {
        let doc = Self.blocks("yaml").first { $0.file == "family-sharing.md" }!.text
        let file = try PackagePaths.read(PackagePaths.scenarios.appendingPathComponent("family-stop-sharing.yaml"))
        let withoutComments = file.split(separator: "\n", omittingEmptySubsequences: false).filter {
            !$0.hasPrefix("#")
        }.joined(separator: "\n")
        #expect(doc.trimmingCharacters(in: .newlines) == withoutComments.trimmingCharacters(in: .newlines))
    }

    @Test func familySharingTimelineIsTheRealOutput() throws {
        let doc = try PackagePaths.read(PackagePaths.docs.appendingPathComponent("family-sharing.md"))
        let golden = try PackagePaths.read(
            PackagePaths.golden.appendingPathComponent("Scenarios/family-stop-sharing.timeline.txt"))
        #expect(doc.contains("```text\n" + golden + "```"))
    }

    /// The issue's contract example must run exactly as written, in every later version.
    @Test func theContractExampleRunsAsWritten() throws {
        let block = Self.blocks("yaml").first { $0.file == "scenario-format.md" }!.text
        #expect(
            block.hasPrefix(
                "name: Organizer buys a family plan, then stops sharing\nstart: 2026-03-01T09:00:00Z\nseed: 7\n"))
        let run = try ScenarioRunner.run(try ScenarioDecoder(file: "contract.yaml").decode(block))
        #expect(run.failures.isEmpty)
        #expect(run.store.notifications(for: "bob").map(\.type) == [.subscribed, .didRenew, .revoke])
    }
}
