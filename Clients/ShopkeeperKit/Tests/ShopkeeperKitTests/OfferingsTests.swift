import Foundation
import Testing

@testable import ShopkeeperKit

/// The offerings joined with the store's products: a plain function, checked without a store.
@Suite struct OfferingsTests {
    static func view() throws -> OfferingsView {
        func package(_ id: String, _ productID: String, _ storeID: String?) -> [String: Any] {
            var product: [String: Any] = [
                "product_id": productID, "type": "auto_renewable", "availability": "purchasable",
                "entitlements": [productID], "sort_order": 0, "locale": "en", "name": productID.capitalized,
                "screenshot_urls": [],
            ]
            if let storeID { product["store_product_id"] = storeID }
            return ["package_id": id, "product": product]
        }
        let paywall: [String: Any] = [
            "layout": "hero", "colors": ["accent": "#2E7D32"], "image_urls": [:], "locale": "de", "title": "Garten",
            "features": ["Samen"],
        ]
        let object: [String: Any] = [
            "current_offering_id": "germany", "rule_id": "german_storefronts",
            "offerings": [
                [
                    "offering_id": "germany", "paywall": paywall,
                    "packages": [
                        package("$annual", "service_year", "com.example.year"),
                        package("$monthly", "club", "com.example.club"),
                    ],
                ],
                ["offering_id": "standard", "packages": [package("$monthly", "club", "com.example.club")]],
            ],
        ]
        return try JSONCoding.decoder().decode(OfferingsView.self, from: JSONSerialization.data(withJSONObject: object))
    }

    @Test func theCurrentOfferingAndItsPackagesAreFoundByID() throws {
        let view = try Self.view()
        #expect(view.current?.offeringID == "germany")
        #expect(view.current?.package("$monthly")?.product.productID == "club")
        #expect(view.offering("standard")?.paywall == nil)
        #expect(view.offering("missing") == nil)
        #expect(ShopOfferings.products(of: view).map(\.productID) == ["service_year", "club"], "each product once")
    }

    @Test func eachPackageGetsItsStoreProductAndEligibility() throws {
        let trial = IntroductoryOffer(paymentMode: .freeTrial, period: "P1W", price: 0)
        let store = [
            StoreProduct(
                id: "com.example.club", displayName: "Club", displayPrice: "3,49 €", price: 3.49, currencyCode: "EUR",
                introductoryOffer: trial),
            StoreProduct(id: "com.example.year", displayName: "Year", displayPrice: "22,99 €", price: 22.99),
        ]
        let joined = ShopOfferings.join(try Self.view(), storeProducts: store, eligibility: ["club": true])
        #expect(joined.currentOfferingID == "germany")
        #expect(joined.ruleID == "german_storefronts")
        let current = try #require(joined.current)
        #expect(current.packages.map(\.packageID) == ["$annual", "$monthly"])
        #expect(current.package("$annual")?.product.displayPrice == "22,99 €")
        #expect(current.package("$monthly")?.product.introductoryOffer == trial)
        #expect(current.paywall?.title == "Garten")
        #expect(joined.offering("standard")?.package("$monthly")?.product.displayPrice == "3,49 €")

        let unpriced = ShopOfferings.join(try Self.view(), storeProducts: [])
        #expect(
            unpriced.current?.packages.allSatisfy { $0.product.storeProduct == nil } == true, "no price: none shown")
    }
}
