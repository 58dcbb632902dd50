import Foundation

extension Shopkeeper {
    /// The shop with the store's prices: the catalog as this build sees it (``catalog()``), each product joined with
    /// the device store's product (StoreKit's `Product.products(for:)`; the sandbox store's prices on Linux) for
    /// its localized price, subscription period and introductory offer, and, where the store product has an
    /// introductory offer, whether Shopkeeper deems this customer eligible for it (``eligibility(productID:)``; a
    /// failed question leaves it `nil`). In the catalog's order.
    ///
    /// When the store's products cannot be loaded (no network to the store, StoreKit failing), the products come
    /// without store products, each with the catalog's ``CatalogItem/priceHint`` as its ``ShopProduct/displayPrice``:
    /// the product's own hint, or else the price the last catalog sync with the store kept for this storefront.
    public func products() async throws(ShopkeeperError) -> [ShopProduct] {
        let catalog = try await catalog().products
        let facts = await storeFacts(for: catalog)
        return ShopProduct.join(
            catalog: catalog, storeProducts: facts.storeProducts, eligibility: facts.eligibility,
            storeLoaded: facts.storeLoaded)
    }

    /// What to offer the current customer (``offerings(country:)``) with the store's prices: each package's product
    /// joined with the device store's product and the customer's intro offer eligibility, as ``products()`` joins
    /// the catalog.
    public func shopOfferings(country: String? = nil) async throws(ShopkeeperError) -> ShopOfferings {
        let view = try await offerings(country: country)
        let facts = await storeFacts(for: ShopOfferings.products(of: view))
        return ShopOfferings.join(
            view, storeProducts: facts.storeProducts, eligibility: facts.eligibility, storeLoaded: facts.storeLoaded)
    }

    /// What the device's store says of some catalog products.
    struct StoreFacts {
        var storeProducts: [StoreProduct]
        /// This customer's eligibility for the introductory offers among them (a failed question is left out).
        var eligibility: [String: Bool]
        /// Whether the store's products could be loaded: when not, the catalog's price hints stand in.
        var storeLoaded: Bool
    }

    /// The device store's products for these catalog products, and this customer's eligibility for the
    /// introductory offers among them.
    func storeFacts(for items: [CatalogItem]) async -> StoreFacts {
        let ids = items.compactMap(\.storeProductID)
        let storeProducts: [StoreProduct]
        do {
            storeProducts = ids.isEmpty ? [] : try await store.products(for: ids)
        } catch {
            return StoreFacts(storeProducts: [], eligibility: [:], storeLoaded: false)
        }
        var eligibility: [String: Bool] = [:]
        for productID in ShopProduct.needingEligibility(catalog: items, storeProducts: storeProducts) {
            eligibility[productID] = try? await self.eligibility(productID: productID).eligible
        }
        return StoreFacts(storeProducts: storeProducts, eligibility: eligibility, storeLoaded: true)
    }

    /// Whether this device may pay at its store (`AppStore.canMakePayments`): when it may not (Screen Time's
    /// purchase restrictions), show the products without a buy button.
    public func canMakePayments() async -> Bool { await store.canMakePayments() }
}
