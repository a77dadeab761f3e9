import SubscriptionSimulator

extension SimulatorServer {
    /// `simctl check --port`: from now on the server answers from `store`, the running case's store at the instant
    /// the check reached (``CheckedBackend/observe``). The first store of a case, or one of another epoch (the next case, or a shrinking
    /// candidate) replaces everything the server holds (its notifications, test tokens and cached answers), so a
    /// request about an earlier case's ids finds nothing (each case has identities of its own). Takes the lock only
    /// to swap the state; never called around network I/O, so a backend that calls the API back while its
    /// notification is being delivered is answered at once.
    /// `newCase`: the first store of a case (or of a shrinking candidate, or a replay), even at the epoch the
    /// server started with (the scenario's own start would otherwise stay in its notification history).
    package func show(_ store: SimulatedStore, epoch: UInt32, newCase: Bool) {
        locked {
            if newCase || epoch != state.epoch || store.notifications.count < state.encoded {
                let version = state.version  // versions only grow (``customersFingerprint(_:)``)
                state = ServerState(
                    store: store, driver: TimelineDriver(configuration.scenario), epoch: epoch,
                    retention: RetentionMessaging(
                        environment: configuration.scenario.app.environment, realtimeURL: configuration.realtimeURL))
                state.version = version
            } else {
                state.store = store
            }
            var summary = AdvanceSummary()
            encodeNew(&state, summary: &summary)
            changed()
        }
    }
}
