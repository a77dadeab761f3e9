extension NotificationDelivery {
    /// Delivers every notification of a scenario run (in `mode`, seeded by the scenario's seed, with the faults of
    /// its `delivery:` block) through `handler`, with the one pump
    /// (``NotificationDelivery/pump(notAfter:limit:attempt:recorded:)``).
    public static func deliver<Failure: Error>(
        _ run: ScenarioRun, mode: DeliveryMode = .production, chaos: DeliveryChaos = .none,
        handler: (DeliveryRequest) throws(Failure) -> DeliveryOutcome
    ) throws(Failure) -> DeliveryReport {
        var delivery = NotificationDelivery(
            items: DeliveryItem.items(of: run.store), schedule: mode.schedule, chaos: chaos,
            faults: run.scenario.deliveryFaults, seed: run.scenario.seed)
        try delivery.pump(
            attempt: { (requests) throws(Failure) in
                var outcomes: [DeliveryOutcome] = []
                for request in requests { outcomes.append(try handler(request)) }
                return outcomes
            }, recorded: { (_) throws(Failure) in })
        return delivery.report
    }
}
