import Testing
@testable import SubscriptionSimulator

@Suite struct StoreKitScenarioTests {
    func decode(_ products: String) throws -> Scenario {
        let text = """
            name: override
            start: 2026-03-01T09:00:00Z
            app: { bundleId: com.example.nightsky, gracePeriod: 3d }
            storekit: StoreKit/NightSky.storekit
            \(products)
            timeline:
              - at: 0
                purchase: { customer: alice, product: com.example.nightsky.family.monthly }
            """
        return try ScenarioDecoder(file: "override.yaml", baseDirectory: PackagePaths.scenarios.path).decode(text)
    }

    @Test func scenarioProductsOverrideAndExtendImportedOnesById() throws {
        let scenario = try decode(
            """
            products:
              - { id: com.example.nightsky.family.monthly, price: 5.49 }
              - { id: com.example.nightsky.lifetime, type: nonConsumable, price: 49.99 }
            """)
        #expect(scenario.catalog["com.example.nightsky.family.monthly"]?.price == Price(decimal: "5.49"))
        #expect(
            scenario.catalog["com.example.nightsky.family.monthly"]?.introOffer?.mode == .freeTrial,
            "other imported fields stay")
        #expect(scenario.catalog.products.count == 3)
        #expect(
            scenario.app.gracePeriod == .threeDays, "the scenario's gracePeriod wins over _billingGracePeriodEnabled")
        #expect(scenario.app.storefront == Storefront(countryCode: "GBR", id: "143444"))
    }

    @Test func aClashThatChangesAProductsTypeIsAnError() {
        #expect(
            throws: ScenarioError(
                file: "override.yaml", location: SourceLocation(line: 6, column: 54),
                message:
                    "product 'com.example.nightsky.family.monthly' has type autoRenewable in the .storekit file; a scenario may override its fields but not change its type"
            )
        ) {
            try decode("products:\n  - { id: com.example.nightsky.family.monthly, type: nonConsumable, price: 1 }")
        }
    }

    @Test func familySharingFromTheFileCannotBeTurnedOff() {
        #expect(throws: ScenarioError.self) {
            try decode("products:\n  - { id: com.example.nightsky.family.monthly, familyShareable: false }")
        }
    }
}
