/// What a store made from a StoreKit configuration file sells and how its app is set
/// (``SimulatedStore/init(storeKitFile:bundleId:start:seed:)``).
extension StoreKitConfiguration {
    /// The app `bundleId` with the file's settings, as a scenario's `storekit:` reads them:
    /// `_billingGracePeriodEnabled` gives Xcode's 16-day grace period (``GracePeriodSetting/sixteenDays``) and
    /// `_storefront` the storefront; everything else is ``AppConfiguration``'s default.
    func app(bundleId: String) -> AppConfiguration {
        var app = AppConfiguration(bundleId: bundleId)
        if billingGracePeriodEnabled == true { app.gracePeriod = .sixteenDays }
        if let storefront { app.storefront = storefront }
        return app
    }

    /// The catalogue of the file's products; a product the catalogue refuses is an error of the file `path` at `$`.
    func catalog(file path: String) throws(StoreKitImportError) -> Catalog {
        do { return try Catalog(products: products) } catch {
            throw StoreKitImportError(file: path, jsonPath: "$", message: "\(error)")
        }
    }
}
