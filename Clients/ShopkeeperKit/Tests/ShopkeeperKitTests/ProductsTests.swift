import Foundation
import Testing

@testable import ShopkeeperKit

/// The catalog joined with the store's products, the sandbox store's answer as store products, and the app
/// transaction in the requests: plain functions, checked without a store.
@Suite struct ProductsTests {
    static func item(
        _ id: String, storeProductID: String?, availability: String = "purchasable", priceHint: String? = nil
    ) throws -> CatalogItem {
        var object: [String: Any] = [
            "product_id": id, "type": "non_consumable", "availability": availability, "entitlements": [id],
            "sort_order": 0, "locale": "en", "name": id.capitalized, "screenshot_urls": [],
        ]
        if let storeProductID { object["store_product_id"] = storeProductID }
        if let priceHint { object["price_hint"] = priceHint }
        return try JSONCoding.decoder().decode(CatalogItem.self, from: JSONSerialization.data(withJSONObject: object))
    }

    static let trial = IntroductoryOffer(paymentMode: .freeTrial, period: "P1W", price: 0)

    @Test func eachCatalogProductGetsItsStoreProductInTheCatalogsOrder() throws {
        let catalog = [
            try Self.item("garden", storeProductID: "com.example.garden"),
            try Self.item("sunflower", storeProductID: nil, availability: "free"),
            try Self.item("club", storeProductID: "com.example.club"),
            try Self.item("orchid", storeProductID: "com.example.orchid"),
        ]
        let store = [
            StoreProduct(
                id: "com.example.club", displayName: "Club", displayPrice: "2,99 €", price: Decimal(string: "2.99")!,
                currencyCode: "EUR", storefront: "DEU", subscriptionPeriod: "P1M", introductoryOffer: Self.trial),
            StoreProduct(id: "com.example.garden", displayName: "Garden", displayPrice: "2,99 €", price: 2.99),
            StoreProduct(id: "com.example.unknown", displayName: "Not ours", displayPrice: "1,00 €", price: 1),
        ]
        let joined = ShopProduct.join(catalog: catalog, storeProducts: store, eligibility: ["club": true])
        #expect(joined.map(\.id) == ["garden", "sunflower", "club", "orchid"])
        #expect(joined[0].displayPrice == "2,99 €")
        #expect(joined[0].isEligibleForIntroOffer == nil, "no offer, nothing to be eligible for")
        #expect(joined[1].storeProduct == nil, "a free product has no store product")
        #expect(joined[2].storeProduct?.subscriptionPeriod == "P1M")
        #expect(joined[2].introductoryOffer == Self.trial)
        #expect(joined[2].name == "Club", "reads like the catalog item")
        #expect(joined[3].storeProduct == nil, "not sold in this storefront: no price")
        #expect(joined[3].displayPrice == nil)
    }

    @Test func whenTheStoresProductsCannotBeLoadedTheCatalogsPriceHintStandsIn() throws {
        let catalog = [
            try Self.item("garden", storeProductID: "com.example.garden", priceHint: "2.99 USD"),
            try Self.item("sunflower", storeProductID: nil, availability: "free", priceHint: "free"),
            try Self.item("club", storeProductID: "com.example.club"),
        ]
        let unloaded = ShopProduct.join(catalog: catalog, storeProducts: [], storeLoaded: false)
        #expect(unloaded[0].displayPrice == "2.99 USD", "the synced price the catalog serves as the hint")
        #expect(unloaded[0].isPriceFromStore == false)
        #expect(unloaded[1].displayPrice == nil, "a free product has no price to show")
        #expect(unloaded[2].displayPrice == nil, "no hint, no price")
        // When the store answers, its price is shown, and a product it does not sell here shows none.
        let store = [StoreProduct(id: "com.example.garden", displayName: "Garden", displayPrice: "$2.99", price: 2.99)]
        let loaded = ShopProduct.join(catalog: catalog, storeProducts: store)
        #expect(loaded[0].displayPrice == "$2.99")
        #expect(loaded[0].isPriceFromStore)
        #expect(loaded[2].displayPrice == nil)
    }

    @Test func theIntroOfferIsShownOnlyToEligibleCustomers() throws {
        let catalog = [try Self.item("club", storeProductID: "com.example.club")]
        let store = [
            StoreProduct(
                id: "com.example.club", displayName: "Club", displayPrice: "$2.99", price: 2.99,
                introductoryOffer: Self.trial)
        ]
        #expect(ShopProduct.needingEligibility(catalog: catalog, storeProducts: store) == ["club"])
        #expect(ShopProduct.needingEligibility(catalog: catalog, storeProducts: []) == [])
        let used = ShopProduct.join(catalog: catalog, storeProducts: store, eligibility: ["club": false])
        #expect(used[0].isEligibleForIntroOffer == false)
        #expect(used[0].introductoryOffer == nil)
        #expect(used[0].storeProduct?.introductoryOffer == Self.trial, "the store's offer is still there to read")
        let unknown = ShopProduct.join(catalog: catalog, storeProducts: store)
        #expect(unknown[0].isEligibleForIntroOffer == nil)
        #expect(unknown[0].introductoryOffer == nil, "not shown unless the server said yes")
    }

    @Test(arguments: [
        (1, StoreKitMapping.PeriodUnit.month, "P1M"), (1, .week, "P1W"), (3, .day, "P3D"), (1, .year, "P1Y"),
    ])
    func storeKitPeriodsAreISO8601(value: Int, unit: StoreKitMapping.PeriodUnit, iso: String) {
        #expect(StoreKitMapping.isoPeriod(value: value, unit: unit) == iso)
    }

    @Test func theSandboxStoresProductsBecomeStoreProducts() throws {
        let answer = Data(
            """
            {"products": [{"product_id": "com.example.club", "type": "Auto-Renewable Subscription",
              "display_name": "Garden Club", "description": "A rare seed", "storefront": "DEU", "currency": "EUR",
              "price": 2990, "display_price": "2,99 €", "subscription_period": "P1M",
              "introductory_offer": {"type": "FREE_TRIAL", "period": "P1W"}},
             {"product_id": "com.example.garden", "type": "Non-Consumable", "display_name": "Garden",
              "storefront": "DEU", "currency": "EUR", "price": 1990, "display_price": "1,99 €"}]}
            """.utf8)
        let products = try JSONDecoder().decode(SandboxProductList.self, from: answer).products.map(\.storeProduct)
        #expect(products.count == 2)
        #expect(products[0].id == "com.example.club")
        #expect(products[0].price == Decimal(string: "2.99"))
        #expect(products[0].currencyCode == "EUR")
        #expect(products[0].storefront == "DEU")
        #expect(products[0].displayPrice == "2,99 €")
        #expect(products[0].introductoryOffer == IntroductoryOffer(paymentMode: .freeTrial, period: "P1W", price: 0))
        #expect(products[1].description == "")
        #expect(products[1].introductoryOffer == nil)
        #expect(IntroductoryOffer.PaymentMode(appStoreServerName: "PAY_UP_FRONT") == .payUpFront)
        #expect(IntroductoryOffer.PaymentMode(appStoreServerName: "SOMETHING_NEW") == nil)
    }

    @Test func theAppTransactionGoesInThePurchaseAndTheRestore() throws {
        let purchase =
            try JSONSerialization.jsonObject(
                with: ShopkeeperAPI.encode(
                    AppTransactionBody(
                        signedAppTransaction: "h.p.s", appUserID: "anon_1", deviceID: "d", appVersion: "2.0")
                )) as? [String: String]
        #expect(
            purchase == [
                "signed_app_transaction": "h.p.s", "app_user_id": "anon_1", "device_id": "d", "app_version": "2.0",
            ])
        let restore = try #require(
            try JSONSerialization.jsonObject(
                with: ShopkeeperAPI.encode(
                    RestoreBody(
                        proofs: [.signedTransaction("t.j.s")], signedAppTransaction: "h.p.s", deviceID: nil,
                        appVersion: nil))) as? [String: Any])
        #expect(restore["signed_app_transaction"] as? String == "h.p.s")
        #expect(restore["signed_transactions"] as? [String] == ["t.j.s"])
        let without = try #require(
            try JSONSerialization.jsonObject(
                with: ShopkeeperAPI.encode(RestoreBody(proofs: [.signedTransaction("t.j.s")], deviceID: "d")))
                as? [String: Any])
        #expect(without["signed_app_transaction"] == nil)
    }

    @Test func aStateFileOfAnOlderKitOpensWithNoAppTransactionSent() throws {
        let old = Data(
            """
            {"anonymousID": "anon_1", "appUserID": "anon_1", "deviceID": "dev", "knownUserIDs": ["anon_1"],
             "pendingPurchases": [], "pendingConsumes": [], "deliveredProofs": {}}
            """.utf8)
        let state = try JSONDecoder().decode(LocalState.self, from: old)
        #expect(state.appTransaction == nil)
    }
}
