import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

extension ProductPostgresRepository {
    /// The synced prices of the app's products on `platform`, by product id.
    func storePrices(appID: String, platform: StorePlatform) async throws -> [String: [StorePrice]] {
        let rows = try await client.query(
            """
            SELECT product_id, territory, currency, price::text FROM catalog.store_prices
            WHERE app_id = \(appID) AND platform = \(platform.rawValue)
            ORDER BY product_id, territory
            """, logger: logger)
        var prices: [String: [StorePrice]] = [:]
        for try await (productID, territory, currency, price) in rows.decode((String, String, String, String).self) {
            prices[productID, default: []].append(StorePrice(territory: territory, currency: currency, price: price))
        }
        return prices
    }

    /// Applies a sync's writes in one transaction (one revision). Each write touches only its own field, so an
    /// operator's edit of another field made since the diff was read is kept; a review state set twice, a price
    /// upserted twice, a product already gone: all the same as once.
    func applySync(appID: String, platform: StorePlatform, writes: [CatalogSyncWrite]) async throws {
        guard writes.contains(where: { if case .refuse = $0 { false } else { true } }) else { return }
        _ = try await write(appID: appID) { connection, revision in
            for write in writes {
                try await apply(write, connection: connection, appID: appID, platform: platform)
            }
            return revision
        }
    }

    private func apply(
        _ write: CatalogSyncWrite, connection: PostgresConnection, appID: String, platform: StorePlatform
    ) async throws {
        switch write {
        case .create(let product, let prices):
            _ = try await upsert(connection: connection, appID: appID, product: product)
            try await replaceStoreIDs(connection: connection, appID: appID, products: [product])
            for price in prices {
                try await setPrice(
                    price, productID: product.productID, connection: connection, appID: appID,
                    platform: platform)
            }
        case .setReviewState(let productID, let state):
            try await setReviewState(state, productID: productID, connection: connection, appID: appID)
        case .markRemoved(let productID):
            try await setReviewState(.removed, productID: productID, connection: connection, appID: appID)
        case .setPrice(let productID, let price):
            try await setPrice(price, productID: productID, connection: connection, appID: appID, platform: platform)
        case .removePrice(let productID, let territory):
            try await connection.checkedQuery(
                """
                DELETE FROM catalog.store_prices
                WHERE app_id = \(appID) AND product_id = \(productID) AND platform = \(platform.rawValue)
                  AND territory = \(territory)
                """, logger: logger)
        case .delete(let productID):
            try await connection.checkedQuery(
                "DELETE FROM catalog.products WHERE app_id = \(appID) AND product_id = \(productID)", logger: logger)
        case .refuse:
            break
        }
    }

    /// Sets one product's review state (the column and the document's field), nothing else.
    private func setReviewState(
        _ state: ReviewState, productID: String, connection: PostgresConnection, appID: String
    ) async throws {
        try await connection.checkedQuery(
            """
            UPDATE catalog.products
            SET review_state = \(state.rawValue),
                document = jsonb_set(document, '{review_state}', to_jsonb(\(state.rawValue)::text)),
                updated_at = now()
            WHERE app_id = \(appID) AND product_id = \(productID) AND review_state <> \(state.rawValue)
            """, logger: logger)
    }

    private func setPrice(
        _ price: StorePrice, productID: String, connection: PostgresConnection, appID: String, platform: StorePlatform
    ) async throws {
        try await connection.checkedQuery(
            """
            INSERT INTO catalog.store_prices (app_id, product_id, platform, territory, currency, price)
            SELECT \(appID), \(productID), \(platform.rawValue), \(price.territory), \(price.currency),
                   \(price.price)::numeric
            WHERE EXISTS (SELECT 1 FROM catalog.products WHERE app_id = \(appID) AND product_id = \(productID))
            ON CONFLICT (app_id, product_id, platform, territory) DO UPDATE
            SET currency = excluded.currency, price = excluded.price, updated_at = now()
            """, logger: logger)
    }
}
