import Foundation
import Testing
@testable import SubscriptionSimulator

/// The client's real `.storekit` files are read in place from `shared/data/storekit/` beside the checkout (CI always
/// has it; never copied into the project: their licences are their projects'). `SIMCTL_SHARED_DIR` names another
/// folder; set but empty, it means "no outside data" (no fall back to the folder beside the checkout). Where the
/// folder is absent, as in a user's clone, the tests that read it are skipped with a message naming it.
enum SharedData {
    /// Where the files are looked for, and whether they are there.
    static let candidate: URL? = {
        if let named = ProcessInfo.processInfo.environment["SIMCTL_SHARED_DIR"] {
            return named.isEmpty ? nil : URL(fileURLWithPath: named).appendingPathComponent("data/storekit")
        }
        return PackagePaths.root.deletingLastPathComponent().appendingPathComponent("shared/data/storekit")
    }()
    static let folder: URL? = candidate.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }
    static var available: Bool { folder != nil }

    /// The skip message: what is missing and how to provide it.
    static var missingReason: Comment {
        guard let candidate else {
            return "SIMCTL_SHARED_DIR is set but empty: no outside data, so the real .storekit files are not read"
        }
        let why =
            ProcessInfo.processInfo.environment["SIMCTL_SHARED_DIR"] == nil
            ? "a clone without shared/ beside it" : "SIMCTL_SHARED_DIR names a folder without data/storekit"
        return Comment(
            rawValue: "\(candidate.path) is not there (\(why)): the real .storekit files are not read; set "
                + "SIMCTL_SHARED_DIR to the folder that holds data/storekit")
    }

    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "\(name): shared/data/storekit is not available" }
    }

    /// The path of one file, or an error (never a crash) where the folder is missing.
    static func file(_ name: String) throws -> String {
        guard let folder else { throw Missing(name: name) }
        return folder.appendingPathComponent(name).path
    }
}

@Suite(.enabled(if: SharedData.available, SharedData.missingReason))
struct StoreKitRealFilesTests {
    /// Products per type in each file, read from the files: consumable, non-consumable, non-renewing,
    /// auto-renewable.
    static let counts: [(String, Int, Int, Int, Int)] = [
        ("CofficLab__Cisum_SwiftUI__Products.storekit", 3, 3, 3, 4),
        ("RevenueCat__purchases-ios__Configuration.storekit", 0, 1, 0, 2),
        ("RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit", 1, 1, 1, 13),
        ("RevenueCat__purchases-ios__RevenueCat_SwiftUIConfiguration.storekit", 1, 2, 0, 5),
        ("RevenueCat__purchases-ios__UnitTestsConfiguration.storekit", 1, 1, 1, 4),
        ("adaptyteam__AdaptySDK-iOS__StoreKitConfiguration.storekit", 1, 1, 0, 3),
        ("apphud__ApphudSDK__StoreKit.storekit", 2, 1, 0, 7),
        ("apple__sample-backyard-birds__Store.storekit", 6, 0, 0, 3),
        ("apple__sample-food-truck__Products.storekit", 0, 1, 0, 2),
        ("chemsims__chemistry__ColombiaConfig.storekit", 4, 4, 0, 0),
        ("circles-project__circles-ios__CirclesSubscriptions.storekit", 0, 2, 0, 9),
        ("circles-project__circles-ios__Products.storekit", 0, 2, 1, 4),
        ("denniscmcom__simoleon__Configuration.storekit", 0, 0, 0, 1),
        ("flutter__plugins__Configuration.storekit", 1, 1, 0, 2),
        ("joshdholtz__storekit-config-file-demo__AppStoreKitConfigFile.storekit", 0, 1, 0, 2),
        ("qonversion__qonversion-ios-sdk__Configuration.storekit", 0, 1, 0, 2),
        ("superwall__Superwall-iOS__Products.storekit", 0, 0, 0, 1),
        ("superwall__Superwall-iOS__Superwall_Advanced-Products.storekit", 0, 0, 0, 2),
        ("tiktok__tiktok-business-ios-sdk__StoreKitConfig.storekit", 1, 1, 1, 1),
    ]

    @Test func everySharedFileIsCovered() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: SharedData.folder!.path).filter {
            $0.hasSuffix(".storekit")
        }
        #expect(Set(names) == Set(Self.counts.map(\.0)))
    }

    @Test(arguments: counts)
    func importsEveryProductByType(
        file: String, consumables: Int, nonConsumables: Int, nonRenewing: Int, autoRenewable: Int
    ) throws {
        let configuration = try StoreKitImporter.importFile(at: try SharedData.file(file))
        func count(_ type: ProductType) -> Int { configuration.products.filter { $0.type == type }.count }
        let actual: [Int] = [count(.consumable), count(.nonConsumable), count(.nonRenewing), count(.autoRenewable)]
        let expected: [Int] = [consumables, nonConsumables, nonRenewing, autoRenewable]
        #expect(actual == expected, "\(file)")
        // The whole catalogue is usable by the simulator.
        #expect(throws: Never.self) { _ = try Catalog(products: configuration.products) }
    }

    @Test func backyardBirdsLevelsFamilySharingAndFreeTrials() throws {
        let c = try StoreKitImporter.importFile(at: try SharedData.file("apple__sample-backyard-birds__Store.storekit"))
        let premium = c.products.first { $0.id == "pass.premium" }!
        #expect(premium.group == "6F3A93AB" && premium.level == 1 && premium.period == .oneMonth)
        #expect(premium.price == Price(decimal: "11.99") && premium.familyShareable && premium.currency == "USD")
        #expect(premium.introOffer == IntroductoryOffer(mode: .freeTrial, period: .months(1)))
        let individual = c.products.first { $0.id == "pass.individual" }!
        #expect(individual.level == 3 && !individual.familyShareable && individual.price.milliunits == 4990)
        #expect(c.groups.map(\.name) == ["Backyard Birds Pass"])
        let pellet = c.products.first { $0.id == "pellet.box" }!
        #expect(pellet.type == .consumable && pellet.price.milliunits == 3990)
    }

    @Test func foodTruckPaidIntroductoryOffers() throws {
        let c = try StoreKitImporter.importFile(at: try SharedData.file("apple__sample-food-truck__Products.storekit"))
        let monthly = c.products.first { $0.id == "socialfeedplus.monthly" }!
        #expect(
            monthly.introOffer
                == IntroductoryOffer(mode: .payAsYouGo, period: .months(1), periods: 3, price: Price(decimal: "2.49")!))
        let yearly = c.products.first { $0.id == "socialfeedplus.yearly" }!
        #expect(
            yearly.introOffer
                == IntroductoryOffer(mode: .payUpFront, period: .months(3), price: Price(decimal: "8.99")!))
        #expect(yearly.group == "20947887", "a synchronised file keeps Apple's numeric group id")
        #expect(c.billingGracePeriodEnabled == false)
        #expect(!c.notes.contains { $0.contains("offer code") }, "offer codes are imported")
        #expect(
            monthly.offers == [
                SubscriptionOffer(id: "Free month", type: .offerCode, mode: .freeTrial, period: .months(1))
            ])
        #expect(
            yearly.offers == [
                SubscriptionOffer(
                    id: "Half off first year", type: .offerCode, mode: .payUpFront, period: .years(1),
                    price: Price(decimal: "29.99")!)
            ])
    }

    @Test func promotionalOffersAndOfferCodesAreImportedWithTheirIds() throws {
        let c = try StoreKitImporter.importFile(
            at: try SharedData.file("RevenueCat__purchases-ios__RevenueCat_SwiftUIConfiguration.storekit"))
        let annual = c.products.first { $0.id == "com.revenuecat.annual_39.99.2_week_intro" }!
        #expect(
            annual.offers == [
                SubscriptionOffer(
                    id: "$4 for month", type: .promotional, mode: .payUpFront, period: .months(1),
                    price: Price(decimal: "4.00")!),
                SubscriptionOffer(id: "Free two weeks", type: .promotional, mode: .freeTrial, period: .weeks(2)),
                SubscriptionOffer(id: "TestOffer", type: .offerCode, mode: .freeTrial, period: .weeks(1)),
            ])
        #expect(!c.notes.contains { $0.contains("promotional") })
    }

    @Test func colombianStorefrontSetsCurrencyAndWholeNumberPrices() throws {
        let c = try StoreKitImporter.importFile(at: try SharedData.file("chemsims__chemistry__ColombiaConfig.storekit"))
        #expect(c.storefront == Storefront(countryCode: "COL", id: "143501") && c.currency == "COP")
        let tip = c.products.first { $0.id == "tip_with_badge_1" }!
        #expect(tip.type == .nonConsumable && tip.price.milliunits == 4_900_000 && tip.currency == "COP")
    }

    @Test func cisumChineseStorefrontNonRenewingWithoutDurationAndLeftoverTrialPrice() throws {
        let c = try StoreKitImporter.importFile(at: try SharedData.file("CofficLab__Cisum_SwiftUI__Products.storekit"))
        #expect(c.currency == "CNY")
        #expect(c.products.filter { $0.type == .nonRenewing }.allSatisfy { $0.duration == nil })
        let ultimate = c.products.first { $0.id == "com.yueyi.netto.ultimate.monthly" }!
        #expect(
            ultimate.introOffer?.mode == .freeTrial && ultimate.introOffer?.price == .free,
            "a free offer's displayPrice is ignored")
        #expect(c.otherSettings.contains { $0.key == "_timeRate" })
    }

    @Test func familyShareableSubscriptionWithoutOffer() throws {
        let c = try StoreKitImporter.importFile(
            at: try SharedData.file("denniscmcom__simoleon__Configuration.storekit"))
        #expect(c.products.map(\.id) == ["simoleon_all_monthly"])
        #expect(
            c.products[0].familyShareable && c.products[0].introOffer == nil && c.products[0].price.milliunits == 990)
    }

    @Test func unitTestsConfigurationSettings() throws {
        let c = try StoreKitImporter.importFile(
            at: try SharedData.file("RevenueCat__purchases-ios__UnitTestsConfiguration.storekit"))
        #expect(c.storefront?.countryCode == "USA" && c.billingGracePeriodEnabled == false)
        #expect(c.products.filter(\.familyShareable).map(\.type).allSatisfy(FamilyRules.canBeShared))
        #expect(c.products.filter(\.familyShareable).count == 4)
    }
}

@Suite struct StoreKitMalformedFileTests {
    func importing(_ json: String) -> String? {
        do {
            _ = try StoreKitImporter.importData(Array(json.utf8), fileName: "Bad.storekit")
            return nil
        } catch {
            return error.description
        }
    }

    static let subscription =
        #"{"productID":"m","type":"RecurringSubscription","recurringSubscriptionPeriod":"P1M","displayPrice":"1.99","groupNumber":1,"familyShareable":false}"#

    @Test(arguments: [
        (
            "broken JSON", #"{"products": [}"#,
            "Bad.storekit:1:15: error: malformed JSON: expected a JSON value"
        ),
        ("wrong top-level type", "[]", "Bad.storekit: $: expected an object, found an array"),
        ("products not an array", #"{"products": {}}"#, "Bad.storekit: $.products: expected an array, found an object"),
        (
            "missing product id", #"{"products": [{"type":"Consumable","displayPrice":"1"}]}"#,
            "Bad.storekit: $.products[0]: missing required key 'productID'"
        ),
        (
            "product id not a string", #"{"products": [{"productID":7,"type":"Consumable","displayPrice":"1"}]}"#,
            "Bad.storekit: $.products[0].productID: expected a string, found a number"
        ),
        (
            "negative price", #"{"products": [{"productID":"a","type":"Consumable","displayPrice":"-1.00"}]}"#,
            "Bad.storekit: $.products[0].displayPrice: expected a price of 0 or more, found '-1.00'"
        ),
        (
            "price not decimal", #"{"products": [{"productID":"a","type":"Consumable","displayPrice":"1,99"}]}"#,
            #"Bad.storekit: $.products[0].displayPrice: expected a decimal price such as "9.99", found '1,99'"#
        ),
        (
            "unknown product type", #"{"products": [{"productID":"a","type":"Gift","displayPrice":"1"}]}"#,
            #"Bad.storekit: $.products[0].type: expected "Consumable" or "NonConsumable", found 'Gift'"#
        ),
        (
            "unknown period",
            #"{"subscriptionGroups":[{"id":"G","name":"g","subscriptions":[{"productID":"m","type":"RecurringSubscription","recurringSubscriptionPeriod":"P5D","displayPrice":"1"}]}]}"#,
            "Bad.storekit: $.subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod: expected one of P1W, P1M, P2M, P3M, P6M, P1Y, found 'P5D'"
        ),
        (
            "bad flag type",
            #"{"subscriptionGroups":[{"id":"G","name":"g","subscriptions":[{"productID":"m","type":"RecurringSubscription","recurringSubscriptionPeriod":"P1M","displayPrice":"1","familyShareable":"yes"}]}]}"#,
            "Bad.storekit: $.subscriptionGroups[0].subscriptions[0].familyShareable: expected true or false, found a string"
        ),
        (
            "duplicate product",
            #"{"products": [{"productID":"a","type":"Consumable","displayPrice":"1"},{"productID":"a","type":"Consumable","displayPrice":"1"}]}"#,
            "Bad.storekit: $.products[1].productID: product id 'a' is defined twice; first at $.products[0]"
        ),
        ("unknown storefront", #"{"settings": {"_storefront": "XXX"}}"#, nil),
    ])
    func reportsFileJSONPathAndExpectation(name: String, json: String, message: String?) {
        let found = importing(json)
        if let message {
            #expect(found == message, "\(name)")
        } else {
            #expect(
                found?.hasPrefix("Bad.storekit: $.settings._storefront: unknown storefront 'XXX'") == true,
                "\(name): \(found ?? "no error")")
        }
    }

    @Test func unknownKeysAndFutureVersionsAreAccepted() throws {
        let json =
            #"{"version":{"major":99,"minor":0},"futureKey":{"x":[1.5e3]},"settings":{},"subscriptionGroups":[{"id":"G","name":"g","subscriptions":[\#(Self.subscription)]}]}"#
        let c = try StoreKitImporter.importData(Array(json.utf8), fileName: "Future.storekit")
        #expect(c.formatVersion == "99.0" && c.products.count == 1)
    }

    @Test func aShareableConsumableIsImportedAsNotShareableWithANote() throws {
        let json =
            #"{"products": [{"productID":"coins","type":"Consumable","displayPrice":"0.99","familyShareable":true}]}"#
        let c = try StoreKitImporter.importData(Array(json.utf8), fileName: "X.storekit")
        #expect(c.products[0].familyShareable == false)
        #expect(
            c.notes == [
                "coins: familyShareable is true in the file, but a consumable product cannot be shared (imported as not shareable)"
            ])
    }

    @Test func offerWithUnknownModeIsDroppedWithANoteAndTheProductKept() throws {
        let json =
            #"{"subscriptionGroups":[{"id":"G","name":"g","subscriptions":[{"productID":"m","type":"RecurringSubscription","recurringSubscriptionPeriod":"P1M","displayPrice":"1","introductoryOffer":{"paymentMode":"barter","subscriptionPeriod":"P1W"}}]}]}"#
        let c = try StoreKitImporter.importData(Array(json.utf8), fileName: "X.storekit")
        #expect(c.products[0].introOffer == nil)
        #expect(c.notes == ["m: introductory offer with unknown paymentMode 'barter' not imported"])
    }
}
