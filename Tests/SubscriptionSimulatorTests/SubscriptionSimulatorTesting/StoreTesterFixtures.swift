import SubscriptionSimulator

/// A monthly subscription with a 16-day grace period, starting 2026-03-01T09:00:00Z.
enum StoreTesterFixtures {
    static let monthly = Product(
        id: "com.example.monthly", type: .autoRenewable, group: "pro", period: .oneMonth,
        price: Price(decimal: "4.99")!)
    static let start = CalendarDurationSyntax.parseInstant("2026-03-01T09:00:00Z")!

    static func store() -> SimulatedStore {
        SimulatedStore(
            app: AppConfiguration(bundleId: "com.example.app", gracePeriod: .sixteenDays),
            catalog: try! Catalog(products: [monthly]), start: start, seed: 3)
    }

    static func at(_ text: String) -> Instant { CalendarDurationSyntax.parseInstant(text)! }
}
