/// Receives a streamed run's output (``ScenarioRunner/stream(_:retention:into:)``): called with what the store sent
/// since the previous call, in the order sent; every notification's instant is at or after the previous ones.
public protocol RunSink {
    mutating func receive(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>)

    /// The same, from a store that drops what it hands on (``StoreRetention/liveState``): the sink may take the
    /// arrays' contents, leaving them in any state (the caller empties them afterwards). By default it receives
    /// them as slices.
    mutating func receive(taking notifications: inout [SentNotification], _ changes: inout [EntitlementChange])
}

extension RunSink {
    public mutating func receive(taking notifications: inout [SentNotification], _ changes: inout [EntitlementChange]) {
        guard !notifications.isEmpty || !changes.isEmpty else { return }
        receive(notifications[...], changes[...])
    }
}

/// A sink that hands everything to two sinks (standard output and a fixture folder, say).
public struct PairedSinks<First: RunSink, Second: RunSink>: RunSink {
    public var first: First
    public var second: Second

    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        first.receive(notifications, changes)
        second.receive(notifications, changes)
    }
}
