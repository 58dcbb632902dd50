import Foundation
import Testing

@testable import ShopkeeperKit

/// The demo shop's offerings against the real local stack: `scripts/run` seeds a default `standard` offering and a
/// `germany` one that the rule `german_storefronts` serves to DE and AT storefronts; `shopOfferings(country:)` joins
/// their packages with the sandbox store's prices as `products()` joins the catalog.
@Suite(.enabled(if: Stack.available)) struct OfferingsStackTests {
    /// Offering id to its packages as `package_id product_id`.
    static func packages(_ view: OfferingsView) -> [String: [String]] {
        Dictionary(
            uniqueKeysWithValues: view.offerings.map { offering in
                (offering.offeringID, offering.packages.map { "\($0.packageID) \($0.product.productID)" })
            })
    }

    @Test func theDefaultOfferingIsStandardAndGermanStorefrontsGetGermany() async throws {
        let stack = try Stack.require()
        let shopkeeper = try stack.device().shopkeeper

        let standard = try await shopkeeper.offerings()
        #expect(standard.currentOfferingID == "standard")
        #expect(standard.ruleID == nil, "no rule chose it: the default")
        #expect(
            Self.packages(standard) == [
                "standard": ["$monthly garden_club", "$lifetime extra_garden"],
                "germany": ["$annual service_year", "$monthly garden_club"],
            ])
        let monthly = try #require(standard.current?.package("$monthly"))
        #expect(monthly.product.storeProductID == "\(stack.bundleID).garden_club", "the App Store's product id")
        #expect(standard.current?.paywall?.layout == "hero")
        #expect(try await shopkeeper.offerings() == standard)
        #expect(await shopkeeper.api.cache.notModifiedCount == 1, "the second read was a 304 answered from the cache")

        let german = try await shopkeeper.offerings(country: "DE")
        #expect(german.currentOfferingID == "germany")
        #expect(german.ruleID == "german_storefronts")
        let paywall = try #require(german.current?.paywall)
        #expect(paywall.locale == "de", "the germany paywall is only in German")
        #expect(paywall.title == "Ein Jahr im Garten")
        #expect(paywall.layout == "two_column")
        #expect(try await shopkeeper.offerings(country: "US").currentOfferingID == "standard")
    }

    @Test func shopOfferingsCarryTheStoresPricesOfTheStorefront() async throws {
        let stack = try Stack.require()
        let german = try await stack.device(storefront: "DEU").shopkeeper.shopOfferings(country: "DE")
        let current = try #require(german.current)
        #expect(current.offeringID == "germany")
        #expect(current.packages.map(\.packageID) == ["$annual", "$monthly"])
        let year = try #require(current.package("$annual")?.product)
        #expect(year.id == "service_year")
        let price = try #require(year.displayPrice)
        #expect(price.contains("22,99") && price.hasSuffix("€"), "\(price)")
        #expect(year.storeProduct?.currencyCode == "EUR")
        let club = try #require(current.package("$monthly")?.product)
        #expect(club.isEligibleForIntroOffer == true, "a new customer may have the free week")
        #expect(club.introductoryOffer?.paymentMode == .freeTrial)

        let american = try await stack.device(storefront: "USA").shopkeeper.shopOfferings()
        #expect(american.current?.offeringID == "standard")
        #expect(american.current?.package("$lifetime")?.product.displayPrice == "$2.99")
    }
}
