import ShopkeeperModels

/// An app's products and the revision that changes with each of their writes.
protocol ProductRepository: Sendable {
    /// Every product of the app with the revision they belong to, in sort order.
    func snapshot(appID: String) async throws -> CatalogSnapshot
    /// The current revision (0 before the first write).
    func revision(appID: String) async throws -> Int64
    /// One product; throws ``CatalogError/productNotFound`` when absent.
    func product(appID: String, productID: String) async throws -> Product
    /// Adds a product; throws ``CatalogError/productExists`` when the id is taken.
    func create(appID: String, product: Product) async throws -> Int64
    /// Creates or replaces a product; returns whether it was created, and the new revision.
    func upsert(appID: String, product: Product) async throws -> (created: Bool, revision: Int64)
    /// Removes a product; throws ``CatalogError/productNotFound`` when absent.
    func delete(appID: String, productID: String) async throws -> Int64
    /// Makes the app's catalog exactly `products`, in one transaction.
    func replaceAll(appID: String, products: [Product], dryRun: Bool) async throws -> CatalogImportResult
    /// The prices the last accepted syncs kept for the app's products on `platform`, by product id.
    func storePrices(appID: String, platform: StorePlatform) async throws -> [String: [StorePrice]]
    /// Applies a catalog sync's accepted writes, in one transaction.
    func applySync(appID: String, platform: StorePlatform, writes: [CatalogSyncWrite]) async throws
}

/// The products, offerings and targeting rules of one app at one revision.
struct CatalogSnapshot: Sendable {
    var revision: Int64
    var products: [Product]
    var offerings: [Offering] = []
    /// In the order they are tried.
    var rules: [TargetingRule] = []
    /// The running experiments, oldest start first (the first whose audience matches a request serves it).
    var experiments: [Experiment] = []
    /// The prices the last accepted store syncs kept (`catalog.store_prices`): a product's `price_hint` when it has
    /// none of its own and the request names a storefront.
    var storePrices: SyncedPrices = [:]
}
