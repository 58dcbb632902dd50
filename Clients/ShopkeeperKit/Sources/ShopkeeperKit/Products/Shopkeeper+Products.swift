import Foundation

extension Shopkeeper {
    /// The shop with the store's prices: the catalog as this build sees it (``catalog()``), each product joined with
    /// the device store's product (StoreKit's `Product.products(for:)`; the sandbox store's prices on Linux) for
    /// its localized price, subscription period and introductory offer, and, where the store product has an
    /// introductory offer, whether Shopkeeper deems this customer eligible for it (``eligibility(productID:)``; a
    /// failed question leaves it `nil`). In the catalog's order.
    public func products() async throws(ShopkeeperError) -> [ShopProduct] {
        let catalog = try await catalog().products
        let (storeProducts, eligibility) = try await storeFacts(for: catalog)
        return ShopProduct.join(catalog: catalog, storeProducts: storeProducts, eligibility: eligibility)
    }

    /// What to offer the current customer (``offerings(country:)``) with the store's prices: each package's product
    /// joined with the device store's product and the customer's intro offer eligibility, as ``products()`` joins
    /// the catalog.
    public func shopOfferings(country: String? = nil) async throws(ShopkeeperError) -> ShopOfferings {
        let view = try await offerings(country: country)
        let (storeProducts, eligibility) = try await storeFacts(for: ShopOfferings.products(of: view))
        return ShopOfferings.join(view, storeProducts: storeProducts, eligibility: eligibility)
    }

    /// The device store's products for these catalog products, and this customer's eligibility for the
    /// introductory offers among them (a failed question is left out).
    func storeFacts(for items: [CatalogItem]) async throws(ShopkeeperError) -> ([StoreProduct], [String: Bool]) {
        let ids = items.compactMap(\.storeProductID)
        let storeProducts = ids.isEmpty ? [] : try await store.products(for: ids)
        var eligibility: [String: Bool] = [:]
        for productID in ShopProduct.needingEligibility(catalog: items, storeProducts: storeProducts) {
            eligibility[productID] = try? await self.eligibility(productID: productID).eligible
        }
        return (storeProducts, eligibility)
    }

    /// Whether this device may pay at its store (`AppStore.canMakePayments`): when it may not (Screen Time's
    /// purchase restrictions), show the products without a buy button.
    public func canMakePayments() async -> Bool { await store.canMakePayments() }
}
