import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// A catalog product as the entitlements service needs it, read through the catalog's published views.
struct CatalogProduct: Sendable, Equatable {
    var productID: String
    /// `consumable`, `non_consumable`, `auto_renewable` or `non_renewing`.
    var type: String
    var consumableQuantity: Int64?
}

/// Reads the catalog's published views (`catalog.products_v1`, `catalog.store_products_v1`).
enum CatalogLookup {
    /// The product a store product id is sold as, or `nil` when the catalog does not know it.
    static func product(
        appID: String, store: StorePlatform, storeProductID: String, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> CatalogProduct? {
        let platform: String = store.rawValue
        let rows = try await connection.run(
            ByStoreProduct.self, try PostgresBindings(appID, platform, storeProductID), logger: logger
        ) { try $0.decode((String, String, Int?).self) }
        return rows.first.map { id, type, quantity in
            CatalogProduct(productID: id, type: type, consumableQuantity: quantity.map(Int64.init))
        }
    }

    private enum ByStoreProduct: PreparedSQL {
        static let sql = """
            SELECT p.product_id, p.type, p.consumable_quantity
            FROM catalog.store_products_v1 s
            JOIN catalog.products_v1 p ON p.app_id = s.app_id AND p.product_id = s.product_id
            WHERE s.app_id = $1::text AND s.platform = $2::text AND s.store_product_id = $3::text
            """
    }

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
            return CatalogProduct(productID: id, type: type, consumableQuantity: quantity.map(Int64.init))
        }
        return nil
    }
}
