/// `simctl serve`'s settings from environment variables, for containers and CI service containers, where setting a
/// variable is easier than changing the command (docs/install.md, "Environment variables"). A variable stands for
/// its option only when the command line does not give that option (the command line wins); an empty variable is
/// the same as an unset one.
enum ServeEnvironment {
    /// Each variable and the option it stands for, in the order they are added to the command line: declared with
    /// the options (ServeCommand.command).
    static var variables: [(name: String, option: String)] {
        ServeCommand.command.options.compactMap { option in option.environment.map { ($0, option.name) } }
    }
    /// The scenario file, when the command line names none.
    static let scenario = "SIMCTL_SCENARIO"
    /// The bearer tokens' key as PEM text (a public key, or the `.p8` private key) rather than a file: a CI service
    /// container can be given a variable but rarely a file. `--api-key-pem` or `SIMCTL_API_KEY_PEM_FILE` win over it.
    static let apiKeyPEM = "SIMCTL_API_KEY_PEM"

    /// The command line with the options the environment sets and the command line does not; and the key's PEM text
    /// when it comes from ``apiKeyPEM``.
    static func arguments(_ arguments: [String], environment: [String: String]) -> (
        arguments: [String], apiKeyPEM: String?
    ) {
        let given = OptionParser.given(arguments, ServeCommand.command).names
        let result = OptionParser.withEnvironment(
            arguments, ServeCommand.command, positional: scenario, environment: environment)
        var pem: String?
        if !given.contains("--api-key-pem"), environment["SIMCTL_API_KEY_PEM_FILE"]?.isEmpty ?? true,
            let text = environment[apiKeyPEM], !text.isEmpty
        {
            pem = text
        }
        return (result, pem)
    }

    /// Whether `host` is a loopback address (or `localhost`): listening anywhere else exposes the control API, which
    /// has no authentication, to whoever reaches the port.
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "[::1]" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The one-line warning `serve` writes to standard error when it listens beyond loopback.
    static func exposureWarning(url: String) -> String {
        "warning: serving at \(url), beyond loopback: the control API (/simctl/v1/) has no authentication, so "
            + "anyone who can reach this port can move the clock, perform actions and reset the store\n"
    }
}
