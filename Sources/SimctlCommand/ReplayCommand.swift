import Foundation
import SubscriptionSimulator

/// `simctl replay DIR|FILE.jsonl --deliver URL [delivery options] [--no-retries]`: sends a fixture folder (as `run
/// --out` writes it) or a jsonl stream (as `run --format jsonl` writes it) again, in its order, byte for byte.
enum ReplayCommand {
    struct Options {
        var source: String
        var delivery: DeliveryOptions
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var source: String?
        var delivery = DeliveryOptions.Builder()
        delivery.topic = "replay"
        var noRetries = false
        let known = ["--no-retries"] + DeliveryOptions.names
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                guard source == nil else {
                    throw UsageError(
                        message: "'replay' takes one folder or jsonl file; found '\(source!)' and '\(argument)'",
                        topic: "replay")
                }
                source = argument
                continue
            }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard known.contains(name) else {
                throw UsageError(
                    message: "unknown option '\(name)'\(ArgumentParser.hint(name, known))", topic: "replay")
            }
            if name == "--no-retries" {
                if value != nil { throw UsageError(message: "option '--no-retries' takes no value", topic: "replay") }
                if noRetries { throw UsageError(message: "option '--no-retries' is given twice", topic: "replay") }
                noRetries = true
                continue
            }
            if value == nil {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError(message: "option '\(name)' needs a value", topic: "replay")
                }
                value = arguments[index]
                index += 1
            }
            try delivery.set(name, value!)
        }
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

    static func main(_ arguments: [String]) -> CommandOutput {
        if arguments.contains("--help") || arguments.contains("-h") {
            return CommandOutput(stdout: HelpText.text(for: "replay") + "\n", stderr: "", exitCode: 0)
        }
        let options: Options
        do throws(UsageError) { options = try parse(arguments) } catch { return Simctl.usageFailure(error) }
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
