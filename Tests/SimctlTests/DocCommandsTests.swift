import Foundation
import Testing

/// Every `simctl` command shown in README.md and docs/ (```sh blocks) runs with exit code 0. `--out DIR` is redirected
/// to a temporary folder so the run leaves nothing in the checkout.
@Suite struct DocCommandsTests {
    static func commands() -> [String] {
        let root = SimctlProcess.packageRoot
        var files = [root.appendingPathComponent("README.md")]
        let docs = root.appendingPathComponent("docs")
        files += ((try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []).filter {
            $0.hasSuffix(".md")
        }.sorted().map { docs.appendingPathComponent($0) }
        var found: [String] = []
        for file in files {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            for block in text.components(separatedBy: "```sh\n").dropFirst() {
                for line in block.components(separatedBy: "```")[0].split(separator: "\n") {
                    let command = line.trimmingCharacters(in: .whitespaces)
                    if command.hasPrefix("simctl ") || command.hasPrefix("swift run simctl ") { found.append(command) }
                }
            }
        }
        return found
    }

    @Test func docsShowCommands() {
        #expect(Self.commands().count >= 4)
        #expect(
            Self.commands().first == "swift run simctl run Scenarios/family-stop-sharing.yaml",
            "README's example command")
    }

    @Test(arguments: commands())
    func documentedCommandSucceeds(command: String) throws {
        var words = command.replacingOccurrences(of: "swift run simctl ", with: "simctl ").split(separator: " ").map(
            String.init)
        words.removeFirst()
        if let out = words.firstIndex(of: "--out") {
            words[out + 1] =
                FileManager.default.temporaryDirectory.appendingPathComponent("simctl-doc-\(UUIDText.next())").path
        }
        // `certs export DIR` and `certs negative-fixtures FILE DIR` write DIR: a temporary folder too.
        if words.first == "certs",
            let folder = words.indices.dropFirst(2).first(where: {
                !words[$0].hasPrefix("-") && !words[$0].hasSuffix(".yaml") && !words[$0 - 1].hasPrefix("--")
            })
        {
            words[folder] =
                FileManager.default.temporaryDirectory.appendingPathComponent("simctl-doc-\(UUIDText.next())").path
        }
        // `--signing-chain DIR` reads a chain: the one `simctl certs export` writes, in a temporary folder.
        if let chain = words.firstIndex(of: "--signing-chain") {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-doc-\(UUIDText.next())")
            let export = try SimctlProcess.run(["certs", "export", folder.path])
            #expect(export.status == 0, "\(export.stderr)")
            words[chain + 1] = folder.path
        }
        let result = try SimctlProcess.run(words)
        #expect(result.status == 0, "\(command): \(result.stderr)")
        #expect(!result.stdout.isEmpty)
    }
}
