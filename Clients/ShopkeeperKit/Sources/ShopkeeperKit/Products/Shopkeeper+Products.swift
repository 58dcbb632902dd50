import Foundation

extension Shopkeeper {
    /// The shop with the store's prices: the catalog as this build sees it (``catalog()``), each product joined with
    /// the device store's product (StoreKit's `Product.products(for:)`; the sandbox store's prices on Linux) for
    /// its localized price, subscription period and introductory offer, and, where the store product has an
    /// introductory offer, whether Shopkeeper deems this customer eligible for it (``eligibility(productID:)``; a
    /// failed question leaves it `nil`). In the catalog's order.
    public func products() async throws(ShopkeeperError) -> [ShopProduct] {
        let catalog = try await catalog().products
        let ids = catalog.compactMap(\.storeProductID)
        let storeProducts = ids.isEmpty ? [] : try await store.products(for: ids)
        var eligibility: [String: Bool] = [:]
        for productID in ShopProduct.needingEligibility(catalog: catalog, storeProducts: storeProducts) {
            eligibility[productID] = try? await self.eligibility(productID: productID).eligible
        }
        return ShopProduct.join(catalog: catalog, storeProducts: storeProducts, eligibility: eligibility)
    }

    /// Whether this device may pay at its store (`AppStore.canMakePayments`): when it may not (Screen Time's
    /// purchase restrictions), show the products without a buy button.
    public func canMakePayments() async -> Bool { await store.canMakePayments() }
}
