import SubscriptionSimulator

/// The backend's own ids for a scenario (issue 47; docs/check.md, "Checking an existing backend"), the same on `run`,
/// `check`, `serve` and `trigger`: `--bundle-id ID` and `--app-apple-id N` replace the scenario's `app.bundleId` and
/// `app.appAppleId`; `--map-product OLD=NEW` (repeatable, or a comma-separated list) renames a product everywhere in
/// the scenario. A command's parser hands each option it meets to ``apply(_:_:topic:)``; the decoded scenario goes
/// through ``applied(to:)``.
package struct IdentityOptions: Equatable, Sendable {
    package var bundleId: String?
    package var appAppleId: Int64?
    /// OLD → NEW.
    package var products: [String: String] = [:]

    package init() {}

    package static let names = ["--bundle-id", "--app-apple-id", "--map-product"]

    package static let usage = "[--bundle-id ID] [--app-apple-id N] [--map-product OLD=NEW ...]"

    package static let help = """
          --bundle-id ID      replace the scenario's app.bundleId (the backend's own)
          --app-apple-id N    replace the scenario's app.appAppleId (a whole number from 1)
          --map-product OLD=NEW  rename product OLD to NEW everywhere in the scenario (repeatable, or a
                              comma-separated list); OLD must be one of the scenario's products
        """

    package var isEmpty: Bool { self == IdentityOptions() }

    /// Takes option `name` with `value` when it is one of ``names`` and returns true; false for any other name.
    package mutating func apply(_ name: String, _ value: String, topic: String) throws(UsageError) -> Bool {
        switch name {
        case "--bundle-id":
            guard bundleId == nil else {
                throw UsageError(message: "option '--bundle-id' is given twice", topic: topic)
            }
            guard !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "\n" }) else {
                throw UsageError(
                    message: "option '--bundle-id' needs a bundle id such as com.example.app", topic: topic)
            }
            bundleId = value
        case "--app-apple-id":
            guard appAppleId == nil else {
                throw UsageError(message: "option '--app-apple-id' is given twice", topic: topic)
            }
            guard let id = Int64(value), id >= 1 else {
                throw UsageError(
                    message: "option '--app-apple-id' needs a whole number from 1, found '\(value)'", topic: topic)
            }
            appAppleId = id
        case "--map-product":
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw UsageError(
                        message: "option '--map-product' needs OLD=NEW (such as com.example.monthly=com.acme.pro), "
                            + "found '\(item)'", topic: topic)
                }
                guard products[parts[0]] == nil else {
                    throw UsageError(message: "option '--map-product' maps '\(parts[0])' twice", topic: topic)
                }
                guard !products.values.contains(parts[1]) else {
                    throw UsageError(
                        message: "option '--map-product' maps two products to '\(parts[1])'", topic: topic)
                }
                products[parts[0]] = parts[1]
            }
        default:
            return false
        }
        return true
    }

    /// The scenario with these ids; a mapping that names no product of the scenario is a usage error naming it.
    package func applied(to scenario: Scenario, topic: String = "check") -> Result<Scenario, CommandOutput> {
        guard !isEmpty else { return .success(scenario) }
        var result = scenario
        if !products.isEmpty {
            do throws(ScenarioError) { result = try scenario.mappingProducts(products) } catch {
                return .failure(
                    CommandOutput(
                        stdout: "", stderr: "error: \(error.message)\nsee 'simctl help \(topic)'\n",
                        exitCode: ExitCode.usage))
            }
        }
        if let bundleId { result.app.bundleId = bundleId }
        if let appAppleId { result.app.appAppleId = appAppleId }
        return .success(result)
    }
}
