import SubscriptionSimulator

// The option sets several commands share, declared once each (OptionTable.swift): signing, delivery, identity and
// the picture's options. A command takes a set with ``OptionDeclaration/lifted(_:)``.

extension SigningOptions {
    /// The signing options' section of every help that lists them.
    package static let section = HelpSection(
        "SIGNING (docs/signing.md, \"The signing options\")",
        note: "These are the same on run, serve, check, trigger and certs; give the same ones to 'simctl certs "
            + "export DIR' for the root your verifier trusts.")

    /// `--environment`, `--ca-seed`, `--signing-chain` (docs/signing.md, "The signing options"); `topic`: the command
    /// whose usage follows a mistake.
    package static func declarations(topic: String) -> [OptionDeclaration<SigningOptions>] {
        let options: [OptionDeclaration<SigningOptions>] = [
            .value(
                "--environment", "NAME", .choices(SimulatedEnvironment.allCases.map(\.rawValue)),
                "sign as NAME instead of the scenario's app.environment"
            ) { (state: inout SigningOptions, text: String) throws(UsageError) in
                state.environment = try SigningOptions.environment(text, topic: topic)
            }
            .help(
                "sign as NAME instead of the scenario's app.environment (the command line wins): LocalTesting, "
                    + "Xcode (placeholder signatures), Sandbox or Production (ES256)"),
            .value("--ca-seed", "TEXT", "sign with the chain generated from TEXT") {
                (state: inout SigningOptions, text: String) throws(UsageError) in
                guard !text.isEmpty else { throw UsageError(message: "option '--ca-seed' needs a text", topic: topic) }
                state.caSeed = text
            }
            .help(
                "sign with the chain generated from TEXT instead of the default seed (simctl-test-ca-1); payloads "
                    + "are then ES256-signed in every environment"),
            .value("--signing-chain", "DIR", .directory, "sign with your own chain (root, intermediate, leaf, key)") {
                (state: inout SigningOptions, text: String) throws(UsageError) in
                guard !text.isEmpty else {
                    throw UsageError(message: "option '--signing-chain' needs a folder path", topic: topic)
                }
                state.chainDirectory = text
            }
            .help(
                "sign with your own chain: DIR holds root.pem, intermediate.pem, leaf.pem and leaf-key.pem (the "
                    + "layout 'simctl certs export' writes)"),
        ]
        return options.map { $0.listed(in: section) }
    }

    /// A seed generates a chain, the folder brings one.
    package static let exclusive = ExclusiveGroup(
        names: ["--ca-seed", "--signing-chain"],
        message:
            "'--ca-seed' and '--signing-chain' cannot be combined: a seed generates a chain, the folder brings one")
}

extension DeliveryOptions {
    /// The delivery options' section of every help that lists them.
    static let section = HelpSection(
        "DELIVERY (docs/delivery.md)",
        note: "Chaos draws come from the seed: the same file, seed and options give the same deliveries. Exit code 2 "
            + "when a notification is still undelivered after its last attempt.")

    /// `--deliver URL` and the options that need it; the values are checked together by ``Builder/build()``.
    static func declarations(_ names: [String] = DeliveryOptions.names) -> [OptionDeclaration<Builder>] {
        // Name, placeholder, value, summary (completion), help.
        let table: [(String, String, OptionValue, String, String)] = [
            (
                "--deliver", "URL", .url, "POST each notification's body to URL",
                "POST each notification's body (Content-Type: application/json) to URL, an http:// or https:// "
                    + "address (https trusts the system's certificate store), in virtual-time order; HTTP 200-206 is "
                    + "a delivery, anything else a failed attempt retried on Apple's schedule"
            ),
            (
                "--deliver-timeout", "D", .text, "wall time to wait for an answer (default 5s)",
                "wall time to wait for an answer (default 5s, at most 10m), then TIMED_OUT"
            ),
            (
                "--deliver-mode", "M", .choices(DeliveryMode.allCases.map(\.rawValue)), "production or sandbox retries",
                "production (default): retries 1, 12, 24, 48, 72 h after the previous attempt (6 attempts at most, "
                    + "on virtual time); sandbox: one attempt"
            ),
            (
                "--deliver-connections", "N", .text, "attempts in flight at once (default 1)",
                "attempts in flight at once, one connection each (default 1; above 1, close attempts may arrive in "
                    + "any order among themselves)"
            ),
            (
                "--delivery-log", "FILE", .file, "one JSON line per attempt",
                "one JSON line per attempt: notificationUUID, attempt, instant, at, httpStatus, sendAttemptResult, "
                    + "wallLatencyMs, recipient, notificationType, subtype, chaos, responseStart (the first 200 bytes "
                    + "of a refusing answer's body)"
            ),
            (
                "--chaos-duplicate", "P", .text, "send a share P of notifications again",
                "send a share P (0-1) of notifications again 1 h after their delivery"
            ),
            (
                "--chaos-reorder-window", "D", .text, "delay first attempts by a random time up to D",
                "delay each notification's first attempt by a random time up to D, keeping each recipient's own order"
            ),
            (
                "--chaos-fail-first", "N", .text, "fail the first N attempts of each notification",
                "fail the first N attempts of each notification (of a share, with --chaos-fail-rate) without sending "
                    + "them (recorded as OTHER)"
            ),
            (
                "--chaos-fail-rate", "P", .text, "the share of notifications --chaos-fail-first applies to",
                "the share P (0-1) of notifications --chaos-fail-first applies to"
            ),
        ]
        return table.filter { names.contains($0.0) }.map { entry in
            let name = entry.0
            return OptionDeclaration<Builder>.value(name, entry.1, entry.2, entry.3) {
                (state: inout Builder, text: String) throws(UsageError) in try state.set(name, text)
            }.help(entry.4).listed(in: section)
        }
    }
}

extension IdentityOptions {
    /// The identity options' section of every help that lists them.
    static let section = HelpSection("THE BACKEND'S IDS (docs/check.md, \"Checking an existing backend\")")

    /// `--bundle-id`, `--app-apple-id`, `--map-product` (issue 47).
    static func declarations(topic: String) -> [OptionDeclaration<IdentityOptions>] {
        let options: [OptionDeclaration<IdentityOptions>] = [
            .value("--bundle-id", "ID", "replace the scenario's app.bundleId") {
                (state: inout IdentityOptions, value: String) throws(UsageError) in
                guard !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "\n" }) else {
                    throw UsageError(
                        message: "option '--bundle-id' needs a bundle id such as com.example.app", topic: topic)
                }
                state.bundleId = value
            }
            .help("replace the scenario's app.bundleId (the backend's own)"),
            .value("--app-apple-id", "N", "replace the scenario's app.appAppleId") {
                (state: inout IdentityOptions, value: String) throws(UsageError) in
                guard let id = Int64(value), id >= 1 else {
                    throw UsageError(
                        message: "option '--app-apple-id' needs a whole number from 1, found '\(value)'", topic: topic)
                }
                state.appAppleId = id
            }
            .help("replace the scenario's app.appAppleId (a whole number from 1)"),
            mapProduct(topic: topic),
        ]
        return options.map { $0.listed(in: section) }
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
        .help(
            "rename product OLD to NEW everywhere in the scenario (repeatable, or a comma-separated list); OLD must "
                + "be one of the scenario's products")
    }
}

extension PictureOptions {
    /// The picture options' section of `simctl help run`.
    static let section = HelpSection("THE PICTURE (with --format svg or --out DIR)")

    /// `--customers`, `--from`, `--to`, `--axis` (`run` only).
    static let declarations: [OptionDeclaration<PictureOptions>] = [
        OptionDeclaration<PictureOptions>.value(
            "--customers", "LIST", "the picture's lanes: customer names or patterns"
        ) {
            state, value in state.customers = value
        }
        .help(
            "the picture's lanes: customer names or patterns (* any text, ? one character) separated by commas; "
                + "default: everyone, the most eventful first, identical lanes collapsed, with a phase-count strip"),
        OptionDeclaration<PictureOptions>.value("--from", "T", "the picture's window starts at T") { state, value in
            state.from = value
        }
        .help(
            "the picture's window starts at T: an offset from `start` (0, 1h, 10d, P1M) or an ISO instant; "
                + "default: the start"),
        OptionDeclaration<PictureOptions>.value("--to", "T", "the picture's window ends at T") { state, value in
            state.to = value
        }
        .help("the picture's window ends at T (as --from); default: the end of the run"),
        .value("--axis", "dates|offsets", .choices(["dates", "offsets"]), "dated ticks or offsets from the start") {
            (state: inout PictureOptions, value: String) throws(UsageError) in
            guard PictureView.Axis(rawValue: value) != nil else {
                throw UsageError(
                    message:
                        "option '--axis' needs dates or offsets, found '\(SourceText.escapingControlCharacters(value))'",
                    topic: "run")
            }
            state.axis = value
        }
        .help(
            "dated ticks on calendar boundaries (default) or offsets from the start written as `at:` writes them"),
    ].map { $0.listed(in: section) }
}
