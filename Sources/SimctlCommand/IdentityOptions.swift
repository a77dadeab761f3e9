import SubscriptionSimulator

/// The backend's own ids for a scenario (issue 47; docs/check.md, "Checking an existing backend"), the same on `run`,
/// `check`, `serve` and `trigger`: `--bundle-id ID` and `--app-apple-id N` replace the scenario's `app.bundleId` and
/// `app.appAppleId`; `--map-product OLD=NEW` (repeatable, or a comma-separated list) renames a product everywhere in
/// the scenario. The decoded scenario goes
/// through ``applied(to:)``. The options are declared in SharedOptions.swift.
package struct IdentityOptions: Equatable, Sendable {
    package var bundleId: String?
    package var appAppleId: Int64?
    /// OLD → NEW.
    package var products: [String: String] = [:]

    package init() {}

    package var isEmpty: Bool { self == IdentityOptions() }

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
