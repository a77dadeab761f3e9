// libFuzzer target: the Xcode .storekit importer (bytes -> configuration), then the catalogue it builds.

@testable import SubscriptionSimulator

/// One of the entries ``fuzzTestOneInput`` dispatches to (Entry.swift).
func fuzzStoreKitImporter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do throws(StoreKitImportError) {
        let configuration = try StoreKitImporter.importData(bytes, fileName: "fuzz.storekit")
        var catalog = Catalog()
        for product in configuration.products {
            do throws(CatalogError) { try catalog.add(product) } catch { _ = error.description }
        }
        _ = configuration.notes
    } catch {
        _ = error.description
    }
    return 0
}
