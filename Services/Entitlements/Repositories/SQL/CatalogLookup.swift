import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// A catalog product as the entitlements service needs it, read through the catalog's published views.
struct CatalogProduct: Sendable, Equatable {
    var productID: String
    /// `nil` for a type this service does not know.
    var type: ProductType?
    var consumableQuantity: Int64?
}

/// Reads the catalog's published views (`catalog.products_v1`, `catalog.store_products_v1`).
enum CatalogLookup {
    /// The product with this catalog id, or `nil`.
    static func product(appID: String, productID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> CatalogProduct?
    {
        let rows = try await connection.checkedQuery(
            """
            SELECT product_id, type, consumable_quantity FROM catalog.products_v1
            WHERE app_id = \(appID) AND product_id = \(productID)
            """,
            logger: logger
        )
        for try await (id, type, quantity) in rows.decode((String, String, Int?).self) {
            return CatalogProduct(
                productID: id, type: ProductType(rawValue: type), consumableQuantity: quantity.map(Int64.init))
        }
        return nil
    }
}
