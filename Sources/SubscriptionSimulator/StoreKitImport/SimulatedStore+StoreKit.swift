import Foundation

extension SimulatedStore {
    /// A store selling the products of an Xcode StoreKit configuration file (a `.storekit` file, or a `.storekit`
    /// package folder), in one call, as `SKTestSession(configurationFileNamed:)` drives one on a device
    /// (docs/storekit.md). The app is `bundleId` with the file's settings, as a scenario's `storekit:` reads them:
    /// `_billingGracePeriodEnabled` gives Xcode's 16-day grace period (``GracePeriodSetting/sixteenDays``) and
    /// `_storefront` the storefront; everything else is ``AppConfiguration``'s default.
    public init(storeKitFile url: URL, bundleId: String, start: Instant, seed: UInt64 = 0)
        throws(StoreKitImportError)
    {
        let configuration = try StoreKitImporter.importFile(at: url.path)
        var app = AppConfiguration(bundleId: bundleId)
        if configuration.billingGracePeriodEnabled == true { app.gracePeriod = .sixteenDays }
        if let storefront = configuration.storefront { app.storefront = storefront }
        let catalog: Catalog
        do { catalog = try Catalog(products: configuration.products) } catch {
            throw StoreKitImportError(file: url.path, jsonPath: "$", message: "\(error)")
        }
        self.init(app: app, catalog: catalog, start: start, seed: seed)
    }
}
