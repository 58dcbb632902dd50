import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// ``ProductRepository`` on PostgreSQL: the product document as `jsonb`, its store ids in a uniquely-keyed table,
/// and a per-app revision bumped in the same transaction as every write.
struct ProductPostgresRepository: ProductRepository {
    let client: PostgresClient
    let logger: Logger

    var writes: CatalogWrites { CatalogWrites(client: client, logger: logger) }

    /// One synced price as the snapshot's statement aggregates it.
    private struct SyncedPriceRow: Decodable {
        var platform: String
        var productID: String
        var territory: String
        var currency: String
        var price: String

        enum CodingKeys: String, CodingKey {
            case platform, territory, currency, price
            case productID = "product_id"
        }
    }

    func snapshot(appID: String) async throws -> CatalogSnapshot {
        // One statement, so the revision, the products, the offerings, the rules and the running experiments come from
        // one database snapshot.
        let rows = try await client.query(
            """
            SELECT r.revision,
                   (SELECT coalesce(json_agg(p.document), '[]') FROM catalog.products p WHERE p.app_id = \(appID))::text,
                   (SELECT coalesce(json_agg(o.document ORDER BY o.offering_id), '[]')
                    FROM catalog.offerings o WHERE o.app_id = \(appID))::text,
                   (SELECT coalesce(json_agg(t.document ORDER BY t.position), '[]')
                    FROM catalog.offering_rules t WHERE t.app_id = \(appID))::text,
                   (SELECT coalesce(json_agg(json_strip_nulls(json_build_object(
                        'experiment_id', e.experiment_id, 'name', e.name, 'audience', e.audience, 'state', e.state,
                        'variants', (SELECT json_agg(json_build_object('key', v.variant_key, 'offering_id', v.offering_id,
                                                                       'weight', v.weight) ORDER BY v.position)
                                     FROM catalog.experiment_variants v
                                     WHERE v.app_id = e.app_id AND v.experiment_id = e.experiment_id)))
                        ORDER BY e.started_at, e.experiment_id), '[]')
                    FROM catalog.experiments e WHERE e.app_id = \(appID) AND e.state = 'running')::text,
                   (SELECT coalesce(json_agg(json_build_object(
                        'platform', s.platform, 'product_id', s.product_id, 'territory', s.territory,
                        'currency', s.currency, 'price', s.price::text)), '[]')
                    FROM catalog.store_prices s WHERE s.app_id = \(appID))::text
            FROM (SELECT coalesce(max(revision), 0)::bigint AS revision FROM catalog.revisions WHERE app_id = \(appID)) r
            """,
            logger: logger
        )
        for try await (revision, products, offerings, rules, experiments, prices) in rows.decode(
            (Int64, String, String, String, String, String).self)
        {
            let decoder = JSONDecoder()
            var storePrices: SyncedPrices = [:]
            for row in try decoder.decode([SyncedPriceRow].self, from: Data(prices.utf8)) {
                guard let platform = StorePlatform(rawValue: row.platform) else { continue }
                storePrices[platform, default: [:]][row.productID, default: [:]][row.territory] = StorePrice(
                    territory: row.territory, currency: row.currency, price: row.price)
            }
            return CatalogSnapshot(
                revision: revision,
                products: try decoder.decode([Product].self, from: Data(products.utf8)),
                offerings: try decoder.decode([Offering].self, from: Data(offerings.utf8)),
                rules: try decoder.decode([TargetingRule].self, from: Data(rules.utf8)),
                experiments: try decoder.decode([Experiment].self, from: Data(experiments.utf8)),
                storePrices: storePrices
            )
        }
        return CatalogSnapshot(revision: 0, products: [])
    }

    func revision(appID: String) async throws -> Int64 {
        let rows = try await client.query(
            "SELECT coalesce(max(revision), 0)::bigint FROM catalog.revisions WHERE app_id = \(appID)",
            logger: logger
        )
        for try await revision in rows.decode(Int64.self) { return revision }
        return 0
    }

    func product(appID: String, productID: String) async throws -> Product {
        let rows = try await client.query(
            "SELECT document::text FROM catalog.products WHERE app_id = \(appID) AND product_id = \(productID)",
            logger: logger
        )
        for try await document in rows.decode(String.self) { return try Self.decode(document) }
        throw CatalogError.productNotFound(productID)
    }

    func create(appID: String, product: Product) async throws -> Int64 {
        try await writes.write(appID: appID) { connection, revision in
            let document = try Self.encode(product)
            let inserted = try await connection.checkedQuery(
                """
                INSERT INTO catalog.products (app_id, product_id, type, review_state, cleared_for_sale, free, document)
                VALUES (\(appID), \(product.productID), \(product.type.rawValue), \(product.reviewState.rawValue),
                        \(product.clearedForSale), \(product.free), \(document)::jsonb)
                ON CONFLICT (app_id, product_id) DO NOTHING
                RETURNING product_id
                """,
                logger: logger
            ).collect()
            guard !inserted.isEmpty else { throw CatalogError.productExists(product.productID) }
            try await replaceStoreIDs(connection: connection, appID: appID, products: [product])
            return revision
        }
    }

    func upsert(appID: String, product: Product) async throws -> (created: Bool, revision: Int64) {
        try await writes.write(appID: appID) { connection, revision in
            let created = try await upsert(connection: connection, appID: appID, product: product)
            try await replaceStoreIDs(connection: connection, appID: appID, products: [product])
            return (created, revision)
        }
    }

    func delete(appID: String, productID: String) async throws -> Int64 {
        try await writes.deleteOne(
            appID: appID,
            """
            DELETE FROM catalog.products WHERE app_id = \(appID) AND product_id = \(productID)
            RETURNING product_id
            """,
            notFound: .productNotFound(productID))
    }

    func replaceAll(appID: String, products: [Product], dryRun: Bool) async throws -> CatalogImportResult {
        if dryRun {
            let current = try await snapshot(appID: appID)
            return CatalogDiff(current: current.products, wanted: products, id: \.productID).result(
                revision: current.revision)
        }
        return try await writes.write(appID: appID) { connection, revision in
            // The revision row is locked by now, so concurrent imports of one app run one after the other.
            var current: [Product] = []
            let rows = try await connection.checkedQuery(
                "SELECT document::text FROM catalog.products WHERE app_id = \(appID)",
                logger: logger
            )
            for try await document in rows.decode(String.self) { current.append(try Self.decode(document)) }
            let diff = CatalogDiff(current: current, wanted: products, id: \.productID)
            if !diff.deleted.isEmpty {
                try await connection.checkedQuery(
                    "DELETE FROM catalog.products WHERE app_id = \(appID) AND product_id = ANY(\(diff.deleted))",
                    logger: logger
                )
            }
            let changed = diff.changed
            let changedIDs = changed.map(\.productID)
            if !changedIDs.isEmpty {
                // Free every changed product's store ids first, so ids may move between products in one import.
                try await connection.checkedQuery(
                    "DELETE FROM catalog.store_products WHERE app_id = \(appID) AND product_id = ANY(\(changedIDs))",
                    logger: logger
                )
            }
            for product in changed {
                _ = try await upsert(connection: connection, appID: appID, product: product)
            }
            try await insertStoreIDs(connection: connection, appID: appID, products: changed)
            return diff.result(revision: revision)
        }
    }

    // MARK: - Helpers

    func upsert(connection: PostgresConnection, appID: String, product: Product) async throws -> Bool {
        let document = try Self.encode(product)
        let rows = try await connection.checkedQuery(
            """
            INSERT INTO catalog.products (app_id, product_id, type, review_state, cleared_for_sale, free, document)
            VALUES (\(appID), \(product.productID), \(product.type.rawValue), \(product.reviewState.rawValue),
                    \(product.clearedForSale), \(product.free), \(document)::jsonb)
            ON CONFLICT (app_id, product_id) DO UPDATE SET
                type = excluded.type, review_state = excluded.review_state,
                cleared_for_sale = excluded.cleared_for_sale, free = excluded.free,
                document = excluded.document, updated_at = now()
            RETURNING (xmax = 0) AS created
            """,
            logger: logger
        )
        for try await created in rows.decode(Bool.self) { return created }
        return false
    }

    func replaceStoreIDs(connection: PostgresConnection, appID: String, products: [Product]) async throws {
        let ids = products.map(\.productID)
        try await connection.checkedQuery(
            "DELETE FROM catalog.store_products WHERE app_id = \(appID) AND product_id = ANY(\(ids))",
            logger: logger
        )
        try await insertStoreIDs(connection: connection, appID: appID, products: products)
    }

    private func insertStoreIDs(connection: PostgresConnection, appID: String, products: [Product]) async throws {
        var platforms: [String] = []
        var storeIDs: [String] = []
        var productIDs: [String] = []
        for product in products {
            for (platform, storeID) in product.storeProductIDs {
                platforms.append(platform.rawValue)
                storeIDs.append(storeID)
                productIDs.append(product.productID)
            }
        }
        guard !platforms.isEmpty else { return }
        try await connection.checkedQuery(
            """
            INSERT INTO catalog.store_products (app_id, platform, store_product_id, product_id)
            SELECT \(appID), * FROM unnest(\(platforms)::text[], \(storeIDs)::text[], \(productIDs)::text[])
            """,
            logger: logger
        )
    }

    private static func encode(_ product: Product) throws -> String {
        String(decoding: try JSONBody.encode(product), as: UTF8.self)
    }

    private static func decode(_ document: String) throws -> Product {
        try JSONDecoder().decode(Product.self, from: Data(document.utf8))
    }
}
