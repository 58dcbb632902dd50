import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// What signing an App Store offer needs besides eligibility: the product's App Store id and a transaction of the
/// customer's for the JWS forms to name.
protocol OfferFactsRepository: Sendable {
    /// The product's App Store product id (the first by id when it has several), or `nil`.
    func appleProductID(appID: String, productID: String) async throws -> String?

    /// The newest app transaction id of any of the customers, else their newest App Store transaction id; `nil`
    /// when they have neither.
    func appleTransactionID(appID: String, customerIDs: [UUID]) async throws -> String?
}

struct OfferFactsPostgresRepository: OfferFactsRepository {
    let client: PostgresClient
    let logger: Logger

    func appleProductID(appID: String, productID: String) async throws -> String? {
        try await client.withConnection { connection in
            try await connection.run(AppleProduct.self, try PostgresBindings(appID, productID), logger: logger) {
                try $0.decode(String.self)
            }.first
        }
    }

    func appleTransactionID(appID: String, customerIDs: [UUID]) async throws -> String? {
        guard !customerIDs.isEmpty else { return nil }
        return try await client.withConnection { connection in
            try await connection.run(
                AppleTransaction.self, try PostgresBindings(appID, customerIDs), logger: logger
            ) { try $0.decode(String.self) }.first
        }
    }

    private enum AppleProduct: PreparedSQL {
        static let sql = """
            SELECT store_product_id FROM catalog.store_products_v1
            WHERE app_id = $1::text AND product_id = $2::text AND platform = 'app_store'
            ORDER BY store_product_id LIMIT 1
            """
    }

    private enum AppleTransaction: PreparedSQL {
        static let sql = """
            (SELECT app_transaction_id FROM entitlements.app_transactions
             WHERE app_id = $1::text AND customer_id = ANY($2::uuid[])
             ORDER BY updated_at DESC LIMIT 1)
            UNION ALL
            (SELECT latest_transaction_id FROM entitlements.purchases
             WHERE app_id = $1::text AND customer_id = ANY($2::uuid[]) AND store = 'app_store'
             ORDER BY purchase_date DESC LIMIT 1)
            LIMIT 1
            """
    }
}
