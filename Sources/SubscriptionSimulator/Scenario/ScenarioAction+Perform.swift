extension SimulatedStore {
    /// Performs one timeline action now, exactly as a scenario run does at a timeline entry (`simctl serve`'s
    /// control API). Throws the rule that forbids it; the store checks its rules before it changes anything.
    public mutating func perform(_ action: ScenarioAction) throws(StoreError) {
        try ScenarioRunner.perform(action, on: &self)
    }
}
