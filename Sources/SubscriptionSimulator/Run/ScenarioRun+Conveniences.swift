import Foundation

extension ScenarioRunner {
    /// Reads, decodes and runs the scenario file at `url` (``ScenarioDecoder/decode(contentsOf:overrides:)``: a
    /// relative `storekit:` path is resolved against the file's folder), like ``run(_:)``.
    public static func run(contentsOf url: URL, overrides: ScenarioOverrides = .init()) throws(ScenarioError)
        -> ScenarioRun
    {
        try run(try ScenarioDecoder.decode(contentsOf: url, overrides: overrides))
    }
}

/// What a run sent, read from the run itself (the same as `store.notifications`).
extension ScenarioRun {
    /// Every notification the run sent, in the order sent.
    public var notifications: [SentNotification] { store.notifications }

    /// The notifications sent to one customer, in order.
    public func notifications(for customer: String) -> [SentNotification] { store.notifications(for: customer) }

    /// The POST body of each notification the run sent, in order, exactly as the App Store sends it
    /// (`{"signedPayload":"<JWS>"}`); `SubscriptionSimulatorTesting`'s `received` gives them decoded and typed.
    public var postBodies: [String] {
        let encoder = NotificationEncoder(app: store.app)
        return store.notifications.map { encoder.encode($0).postBody }
    }
}
