import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// A catalog product as the subscriptions service needs it, read through the catalog's published views.
struct SubscriptionProduct: Sendable, Equatable {
    var productID: String
    /// Decoded from the catalog's column as it is: its check constraint holds the values ``ProductType`` knows.
    var type: ProductType
    /// The subscription group: the catalog's `group`, or the product id when it has none.
    var groupKey: String
    /// ISO 8601 duration of the product's free trial, when it has one.
    var trialDuration: String?
}

extension SubscriptionProduct {
    /// A row of `product_id, type, group, trial_duration`.
    init(row: PostgresRow) throws {
        let (id, type, group, trial) = try row.decode((String, ProductType, String, String?).self)
        self.init(productID: id, type: type, groupKey: group, trialDuration: trial)
    }
}

/// Reads `catalog.products_v1` and `catalog.store_products_v1`.
enum CatalogSubscriptions {
    /// The products these store product ids are sold as, keyed by store product id.
    static func products(
        appID: String, store: StorePlatform, storeProductIDs: [String], on connection: PostgresConnection,
        logger: Logger
    ) async throws -> [String: SubscriptionProduct] {
        let platform: String = store.rawValue
        let rows = try await connection.run(
            ByStoreProducts.self, try PostgresBindings(appID, platform, storeProductIDs), logger: logger
        ) { row in
            let (storeProductID, id, type, group, trial) = try row.decode(
                (String, String, ProductType, String, String?).self)
            return (
                storeProductID, SubscriptionProduct(productID: id, type: type, groupKey: group, trialDuration: trial)
            )
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// The product with this catalog id, or `nil`.
    static func product(appID: String, productID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> SubscriptionProduct?
    {
        try await connection.run(
            ByID.self, try PostgresBindings(appID, productID), logger: logger, decode: SubscriptionProduct.init(row:)
        ).first
    }

    /// The app's trial product: the first product (by id) that has a trial duration.
    static func trialProduct(appID: String, on connection: PostgresConnection, logger: Logger) async throws
        -> SubscriptionProduct?
    {
        try await connection.run(
            TrialProduct.self, try PostgresBindings(appID), logger: logger, decode: SubscriptionProduct.init(row:)
        ).first
    }

    private enum ByStoreProducts: PreparedSQL {
        static let sql = """
            SELECT s.store_product_id, p.product_id, p.type, coalesce(p.product_group, p.product_id),
                   p.trial_duration
            FROM catalog.store_products_v1 s
            JOIN catalog.products_v1 p ON p.app_id = s.app_id AND p.product_id = s.product_id
            WHERE s.app_id = $1::text AND s.platform = $2::text AND s.store_product_id = ANY($3::text[])
            """
    }

    private enum ByID: PreparedSQL {
        static let sql = """
            SELECT product_id, type, coalesce(product_group, product_id), trial_duration
            FROM catalog.products_v1 WHERE app_id = $1::text AND product_id = $2::text
            """
    }

    private enum TrialProduct: PreparedSQL {
        static let sql = """
            SELECT product_id, type, coalesce(product_group, product_id), trial_duration
            FROM catalog.products_v1
            WHERE app_id = $1::text AND trial_duration IS NOT NULL
            ORDER BY product_id
            LIMIT 1
            """
    }
}
