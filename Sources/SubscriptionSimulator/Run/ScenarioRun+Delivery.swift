extension NotificationDelivery {
    /// Delivers every notification of a scenario run (in `mode`, seeded by the scenario's seed) through `handler`,
    /// with the one pump (``NotificationDelivery/pump(notAfter:limit:attempt:recorded:)``).
    public static func deliver<Failure: Error>(
        _ run: ScenarioRun, mode: DeliveryMode = .production, chaos: DeliveryChaos = .none,
        handler: (DeliveryRequest) throws(Failure) -> DeliveryOutcome
    ) throws(Failure) -> DeliveryReport {
        try deliver(
            DeliveryItem.items(of: run.store), schedule: mode.schedule, chaos: chaos, seed: run.scenario.seed,
            handler: handler)
    }
}
