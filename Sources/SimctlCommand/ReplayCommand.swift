import Foundation
import SubscriptionSimulator

/// `simctl replay DIR|FILE.jsonl --deliver URL [delivery options] [--no-retries]`: sends a fixture folder (as `run
/// --out` writes it) or a jsonl stream (as `run --format jsonl` writes it) again, in its order, byte for byte.
package enum ReplayCommand {
    package struct Options: Equatable, Sendable {
        var source: String
        var delivery: DeliveryOptions
    }

    /// What the command line gave, before the delivery options are checked together.
    struct ParseState: Sendable {
        var source: String?
        var delivery = DeliveryOptions.Builder(topic: "replay")
        var noRetries = false
    }

    static var options: [OptionDeclaration<ParseState>] {
        var all: [OptionDeclaration<ParseState>] = [
            .flag("--no-retries", "one attempt each (--deliver-mode sandbox)") { state in state.noRetries = true }
                .help("one attempt each (the same as --deliver-mode sandbox)")
        ]
        all += DeliveryOptions.declarations().map { $0.lifted(\ParseState.delivery) }
        return all
    }

    static let command = CommandDeclaration<ParseState>(
        name: "replay", topic: "replay", summary: "POST a fixture folder (run --out) or a jsonl stream again",
        positional: "SOURCE", positionalValue: .file,
        options: options,
        argument: { (state: inout ParseState, argument: String) throws(UsageError) in
            if let source = state.source {
                throw UsageError(
                    message: "'replay' takes one folder or jsonl file; found '\(source)' and '\(argument)'",
                    topic: "replay")
            }
            state.source = argument
        },
        page: HelpPage(
            required: ["--deliver"],
            about: [
                .paragraph(
                    "POSTs every notification of a fixture folder ('simctl run --out DIR': in manifest.json's order) "
                        + "or of a jsonl stream ('simctl run --format jsonl': one body a line) to URL, byte for byte, in "
                        + "its order, with the retries, log and chaos of 'simctl run --deliver'. Each notification's "
                        + "first attempt is at its signedDate on the virtual clock (never before the one before it).")
            ]))

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var state = ParseState()
        try OptionParser.parse(arguments, command, into: &state)
        let (source, delivery, noRetries) = (state.source, state.delivery, state.noRetries)
        guard let source else {
            throw UsageError(message: "'replay' needs a fixture folder or a jsonl file", topic: "replay")
        }
        guard var options = try delivery.build() else {
            throw UsageError(message: "'replay' needs '--deliver URL'", topic: "replay")
        }
        if noRetries {
            if delivery.values["--deliver-mode"] != nil {
                throw UsageError(
                    message: "'--no-retries' is '--deliver-mode sandbox' (one attempt each); give one of them",
                    topic: "replay")
            }
            options.mode = .sandbox
        }
        return Options(source: source, delivery: options)
    }

    static func main(_ options: Options) -> CommandOutput {
        let items: [DeliveryItem]
        switch read(options.source) {
        case .failure(let output): return output
        case .success(let read): items = read
        }
        return Simctl.deliver(items, options: options.delivery, seed: 0, topic: "replay")
    }

    /// The items of a fixture folder (its `manifest.json`'s order and recipients) or of a jsonl file (one body a
    /// line; empty lines skipped). A later item never goes before an earlier one: its first attempt is at the
    /// latest instant so far when its own `signedDate` is earlier (streams joined together).
    static func read(_ source: String) -> Result<[DeliveryItem], CommandOutput> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
            return .failure(
                CommandOutput(
                    stdout: "", stderr: "\(source): error: no such file or folder\n", exitCode: ExitCode.noInput))
        }
        var bodies: [(text: String, recipient: String?, place: String)] = []
        if isDirectory.boolValue {
            let manifestPath = (source as NSString).appendingPathComponent("manifest.json")
            let manifest: JSONValue
            switch Simctl.read(manifestPath) {
            case .failure(let output): return .failure(output)
            case .success(let text):
                do throws(JSONParseError) { manifest = try CanonicalJSON.parse(text) } catch {
                    return .failure(dataError("\(manifestPath): error: not JSON: \(error)"))
                }
            }
            guard case .array(let entries)? = manifest.value(at: "notifications") else {
                return .failure(
                    dataError("\(manifestPath): error: expected an object with a \"notifications\" list (run --out)"))
            }
            for (number, entry) in entries.enumerated() {
                guard let file = entry.value(at: "file")?.stringValue, !file.contains("/") else {
                    return .failure(
                        dataError("\(manifestPath): error: notification \(number + 1) has no \"file\" name"))
                }
                let path = (source as NSString).appendingPathComponent(file)
                switch Simctl.read(path) {
                case .failure(let output): return .failure(output)
                case .success(let text):
                    let body = text.hasSuffix("\n") ? String(text.dropLast()) : text
                    bodies.append((body, entry.value(at: "recipient")?.stringValue, "\(path):1:1"))
                }
            }
        } else {
            switch Simctl.read(source) {
            case .failure(let output): return .failure(output)
            case .success(let text):
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where !line.isEmpty {
                    bodies.append((String(line), nil, "\(source):\(number + 1):1"))
                }
            }
        }
        var items: [DeliveryItem] = []
        for body in bodies {
            do throws(ReplayError) {
                var item = try DeliveryItem(replaying: body.text, recipient: body.recipient)
                if let last = items.last, item.instant < last.instant { item.instant = last.instant }
                items.append(item)
            } catch {
                return .failure(dataError("\(body.place): error: \(error)"))
            }
        }
        if items.isEmpty { return .failure(dataError("\(source): error: no notification to replay")) }
        return .success(items)
    }

    static func dataError(_ message: String) -> CommandOutput {
        CommandOutput(stdout: "", stderr: message + "\n", exitCode: ExitCode.dataError)
    }
}
