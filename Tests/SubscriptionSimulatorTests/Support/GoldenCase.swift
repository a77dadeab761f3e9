import Testing

@testable import SubscriptionSimulator

/// One case of the store goldens, and the scaffolding every golden suite shares, written once: the store it starts
/// from, what it does, which files beside the notification streams it checks, and the folder of its golden files.
/// Each suite keeps its own table of scripts and passes `GoldenCase`s to `@Test(arguments:)`.
struct GoldenCase: Sendable, CustomTestStringConvertible {
    typealias Script = @Sendable (inout SimulatedStore) throws -> Void

    /// A file checked beside `NAME.decoded.json` and `NAME.jsonl` (``GoldenLifecycleTests/goldenCheck``).
    enum Extra: Sendable {
        /// `NAME.entitlements.txt`: every entitlement change.
        case entitlements
        /// `NAME.device.txt`: every customer's device view, in the store's order of customers.
        case deviceView
        /// `NAME.device.txt`, this customer's first, then the others in the store's order.
        case deviceViewFirst(String)
    }

    let name: String
    let folder: String
    let extras: [Extra]
    let store: @Sendable () throws -> SimulatedStore
    let script: Script

    init(
        _ name: String, folder: String, extras: [Extra] = [], store: @escaping @Sendable () throws -> SimulatedStore,
        _ script: @escaping Script
    ) {
        self.name = name
        self.folder = folder
        self.extras = extras
        self.store = store
        self.script = script
    }

    var testDescription: String { name }

    /// Runs the script on a fresh store and compares its files with the goldens (RECORD=1 rewrites them).
    func check() throws {
        var store = try store()
        try script(&store)
        GoldenLifecycleTests.goldenCheck(name, store, extras.map { Self.file($0, store) }, folder: folder)
    }

    static func file(_ extra: Extra, _ store: SimulatedStore) -> (String, String) {
        switch extra {
        case .entitlements:
            return (
                "entitlements.txt",
                store.entitlementChanges.map {
                    "\($0.instant) \($0.customer) [\($0.products.joined(separator: ", "))]\n"
                }.joined()
            )
        case .deviceView:
            return ("device.txt", deviceText(store.customers, store))
        case .deviceViewFirst(let first):
            return ("device.txt", deviceText([first] + store.customers.filter { $0 != first }, store))
        }
    }

    static func deviceText(_ customers: [String], _ store: SimulatedStore) -> String {
        customers.flatMap { store.deviceEvents(for: $0) }.map { "\($0)\n" }.joined()
    }
}
