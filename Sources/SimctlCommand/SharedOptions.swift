import SubscriptionSimulator

// The option sets several commands share, declared once each (OptionTable.swift): signing, delivery, identity and
// the picture's options. A command takes a set with ``OptionDeclaration/lifted(_:)``.

extension SigningOptions {
    /// `--environment`, `--ca-seed`, `--signing-chain` (docs/signing.md, "The signing options"); `topic`: the command
    /// whose usage follows a mistake.
    package static func declarations(topic: String) -> [OptionDeclaration<SigningOptions>] {
        [
            .value(
                "--environment", "NAME", .choices(SimulatedEnvironment.allCases.map(\.rawValue)),
                "sign as NAME instead of the scenario's app.environment"
            ) { (state: inout SigningOptions, text: String) throws(UsageError) in
                state.environment = try SigningOptions.environment(text, topic: topic)
            },
            .value("--ca-seed", "TEXT", "sign with the chain generated from TEXT") {
                (state: inout SigningOptions, text: String) throws(UsageError) in
                guard !text.isEmpty else { throw UsageError(message: "option '--ca-seed' needs a text", topic: topic) }
                state.caSeed = text
            },
            .value("--signing-chain", "DIR", .directory, "sign with your own chain (root, intermediate, leaf, key)") {
                (state: inout SigningOptions, text: String) throws(UsageError) in
                guard !text.isEmpty else {
                    throw UsageError(message: "option '--signing-chain' needs a folder path", topic: topic)
                }
                state.chainDirectory = text
            },
        ]
    }

    /// A seed generates a chain, the folder brings one.
    package static let exclusive = ExclusiveGroup(
        names: ["--ca-seed", "--signing-chain"],
        message:
            "'--ca-seed' and '--signing-chain' cannot be combined: a seed generates a chain, the folder brings one")
}

extension DeliveryOptions {
    /// `--deliver URL` and the options that need it; the values are checked together by ``Builder/build()``.
    static func declarations(_ names: [String] = DeliveryOptions.names) -> [OptionDeclaration<Builder>] {
        let table: [(String, String, OptionValue, String)] = [
            ("--deliver", "URL", .url, "POST each notification's body to URL"),
            ("--deliver-timeout", "D", .text, "wall time to wait for an answer (default 5s)"),
            ("--deliver-mode", "M", .choices(DeliveryMode.allCases.map(\.rawValue)), "production or sandbox retries"),
            ("--deliver-connections", "N", .text, "attempts in flight at once (default 1)"),
            ("--delivery-log", "FILE", .file, "one JSON line per attempt"),
            ("--chaos-duplicate", "P", .text, "send a share P of notifications again"),
            ("--chaos-reorder-window", "D", .text, "delay first attempts by a random time up to D"),
            ("--chaos-fail-first", "N", .text, "fail the first N attempts of each notification"),
            ("--chaos-fail-rate", "P", .text, "the share of notifications --chaos-fail-first applies to"),
        ]
        return table.filter { names.contains($0.0) }.map { entry in
            let name = entry.0
            return .value(name, entry.1, entry.2, entry.3) {
                (state: inout Builder, text: String) throws(UsageError) in try state.set(name, text)
            }
        }
    }
}

extension IdentityOptions {
    /// `--bundle-id`, `--app-apple-id`, `--map-product` (issue 47).
    static func declarations(topic: String) -> [OptionDeclaration<IdentityOptions>] {
        [
            .value("--bundle-id", "ID", "replace the scenario's app.bundleId") {
                (state: inout IdentityOptions, value: String) throws(UsageError) in
                guard !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "\n" }) else {
                    throw UsageError(
                        message: "option '--bundle-id' needs a bundle id such as com.example.app", topic: topic)
                }
                state.bundleId = value
            },
            .value("--app-apple-id", "N", "replace the scenario's app.appAppleId") {
                (state: inout IdentityOptions, value: String) throws(UsageError) in
                guard let id = Int64(value), id >= 1 else {
                    throw UsageError(
                        message: "option '--app-apple-id' needs a whole number from 1, found '\(value)'", topic: topic)
                }
                state.appAppleId = id
            },
            mapProduct(topic: topic),
        ]
    }

    /// `--map-product OLD=NEW` (repeatable, or a comma-separated list).
    static func mapProduct(topic: String) -> OptionDeclaration<IdentityOptions> {
        .value("--map-product", "OLD=NEW", repeatable: true, "rename a product everywhere in the scenario") {
            (state: inout IdentityOptions, value: String) throws(UsageError) in
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw UsageError(
                        message: "option '--map-product' needs OLD=NEW (such as com.example.monthly=com.acme.pro), "
                            + "found '\(item)'", topic: topic)
                }
                guard state.products[parts[0]] == nil else {
                    throw UsageError(message: "option '--map-product' maps '\(parts[0])' twice", topic: topic)
                }
                guard !state.products.values.contains(parts[1]) else {
                    throw UsageError(message: "option '--map-product' maps two products to '\(parts[1])'", topic: topic)
                }
                state.products[parts[0]] = parts[1]
            }
        }
    }
}

extension PictureOptions {
    /// `--customers`, `--from`, `--to`, `--axis` (`run` only).
    static let declarations: [OptionDeclaration<PictureOptions>] = [
        .value("--customers", "LIST", "the picture's lanes: customer names or patterns") { state, value in
            state.customers = value
        },
        .value("--from", "T", "the picture's window starts at T") { state, value in state.from = value },
        .value("--to", "T", "the picture's window ends at T") { state, value in state.to = value },
        .value("--axis", "dates|offsets", .choices(["dates", "offsets"]), "dated ticks or offsets from the start") {
            (state: inout PictureOptions, value: String) throws(UsageError) in
            guard PictureView.Axis(rawValue: value) != nil else {
                throw UsageError(
                    message:
                        "option '--axis' needs dates or offsets, found '\(SourceText.escapingControlCharacters(value))'",
                    topic: "run")
            }
            state.axis = value
        },
    ]
}
