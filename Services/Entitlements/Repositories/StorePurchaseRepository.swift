import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// The purchases of one store a customer owns now (``StorePurchases``).
protocol StorePurchaseRepository: Sendable {
    /// The original transaction ids of `store` the customer `appUserID` names owns (with the customers merged into
    /// it), newest purchase first, at most ``StorePurchases/limit``; empty when there is no such customer.
    func originalTransactionIDs(appID: String, appUserID: String, store: StorePlatform) async throws -> [String]
}

struct StorePurchasePostgresRepository: StorePurchaseRepository {
    let client: PostgresClient
    let logger: Logger

    func originalTransactionIDs(appID: String, appUserID: String, store: StorePlatform) async throws -> [String] {
        try await client.withConnection { connection in
            guard
                let customerID = try await CustomerRows.find(
                    appID: appID, appUserID: appUserID, on: connection, logger: logger)
            else { return [] }
            return try await connection.run(
                Owned.self, try PostgresBindings(appID, customerID, store.rawValue), logger: logger
            ) { try $0.decode(String.self) }
        }
    }

    private enum Owned: PreparedSQL {
        static let sql = """
            SELECT original_transaction_id FROM entitlements.purchases
            WHERE app_id = $1::text AND store = $3::text
              AND customer_id IN (SELECT customer_id FROM entitlements.customers
                                  WHERE customer_id = $2::uuid OR merged_into = $2::uuid)
            ORDER BY purchase_date DESC, original_transaction_id LIMIT \(StorePurchases.limit)
            """
    }
}
