import Foundation
import Testing

@testable import ShopkeeperKit

/// The store's prices against the real local stack: `scripts/run` registers the demo's App Store products with
/// prices for the USA and DEU storefronts at the sandbox store, and `products()` joins them with the catalog as
/// StoreKit's `Product.products(for:)` would on a phone.
@Suite(.enabled(if: Stack.available)) struct StorePricesStackTests {
    @Test func productsShowTheSandboxsLocalizedPriceInTwoStorefronts() async throws {
        let stack = try Stack.require()
        let american = try await stack.device(storefront: "USA").shopkeeper.products()
        let garden = try #require(american.first { $0.id == "extra_garden" })
        #expect(garden.displayPrice == "$2.99")
        #expect(garden.storeProduct?.price == Decimal(string: "2.99"))
        #expect(garden.storeProduct?.currencyCode == "USD")
        #expect(garden.storeProduct?.displayName == "Extra Garden")
        #expect(garden.name == "Extra Garden", "the catalog's own fields are there too")
        #expect(american.first { $0.id == "seeds_sunflower" }?.storeProduct == nil, "a free product has no price")

        let club = try #require(american.first { $0.id == "garden_club" })
        #expect(club.storeProduct?.subscriptionPeriod == "P1M")
        #expect(club.storeProduct?.introductoryOffer?.paymentMode == .freeTrial)
        #expect(club.isEligibleForIntroOffer == true, "a new customer may have the free week")
        #expect(club.introductoryOffer?.period == "P7D")

        let german = try await stack.device(storefront: "DEU").shopkeeper.products()
        let garten = try #require(german.first { $0.id == "extra_garden" })
        let price = try #require(garten.displayPrice)
        #expect(price.contains("3,49") && price.hasSuffix("€"), "\(price)")
        #expect(garten.storeProduct?.currencyCode == "EUR")
        #expect(garten.storeProduct?.storefront == "DEU")
    }

    @Test func whenTheStoreCannotLoadItsProductsTheCatalogStillShows() async throws {
        let stack = try Stack.require()
        let sandbox = try stack.device(storefront: "USA").store
        let device = try stack.device(store: UnreachableProductsStore(real: sandbox))
        let products = try await device.shopkeeper.products()
        let garden = try #require(products.first { $0.id == "extra_garden" })
        #expect(garden.storeProduct == nil)
        #expect(garden.isPriceFromStore == false)
        // The demo's products have no price hint and no catalog sync ran: no price to show, but the shop is there.
        #expect(garden.displayPrice == garden.priceHint)
        #expect(products.contains { $0.id == "seeds_sunflower" })
    }

    @Test func aCustomerWhoUsedTheTrialIsNotOfferedItAgain() async throws {
        let stack = try Stack.require()
        let device = try stack.device()
        guard case .delivered = try await device.shopkeeper.purchase(productID: "garden_club") else {
            Issue.record("the subscription was not delivered")
            return
        }
        let club = try #require(try await device.shopkeeper.products().first { $0.id == "garden_club" })
        #expect(club.storeProduct?.introductoryOffer != nil, "the store still has the offer")
        #expect(club.isEligibleForIntroOffer == false)
        #expect(club.introductoryOffer == nil)
    }

    @Test func canMakePaymentsIsTheDeviceStoresAnswer() async throws {
        let stack = try Stack.require()
        #expect(try await stack.device().shopkeeper.canMakePayments())
        let restricted = try stack.device(canMakePayments: false)
        #expect(await restricted.shopkeeper.canMakePayments() == false)
        await restricted.store.setCanMakePayments(true)
        #expect(await restricted.shopkeeper.canMakePayments())
    }
}

/// A device store that cannot load the store's products (StoreKit failing, no network to the store); the rest is
/// the sandbox's.
struct UnreachableProductsStore: SandboxWrapping {
    let real: SandboxDeviceStore

    func currentStorefront() async -> String? { await real.currentStorefront() }

    func products(for storeProductIDs: [String]) async throws(ShopkeeperError) -> [StoreProduct] {
        throw .deviceStore("the store cannot be reached")
    }
}
