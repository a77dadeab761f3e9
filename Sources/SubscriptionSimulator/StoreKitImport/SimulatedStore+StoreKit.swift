import Foundation

extension SimulatedStore {
    /// A store selling the products of an Xcode StoreKit configuration file (a `.storekit` file, or a `.storekit`
    /// package folder), in one call, as `SKTestSession(configurationFileNamed:)` drives one on a device
    /// (docs/storekit.md). The app is `bundleId` with the file's settings (``StoreKitConfiguration/app(bundleId:)``).
    public init(storeKitFile url: URL, bundleId: String, start: Instant, seed: UInt64 = 0)
        throws(StoreKitImportError)
    {
        let configuration = try StoreKitImporter.importFile(at: url.path)
        let catalog = try configuration.catalog(file: url.path)
        self.init(app: configuration.app(bundleId: bundleId), catalog: catalog, start: start, seed: seed)
    }
}
