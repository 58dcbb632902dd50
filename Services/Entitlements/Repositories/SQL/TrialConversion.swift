import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// The app's own free trial (`subscriptions.trials_v1`) turned into a purchase: the customer's first purchase of a
/// subscription in the trial's group, made after the trial started, converts it, once per customer.
enum TrialConversion {
    /// Records the conversion when this purchase is one; returns whether it was (the caller writes the event).
    static func record(
        appID: String, customerID: UUID, productID: String, transactionID: String, purchasedAt: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let rows = try await connection.run(
            Record.self, try PostgresBindings(appID, customerID, productID, transactionID, purchasedAt),
            logger: logger
        ) { try $0.decode(Int64.self) }
        return rows.first.map { $0 > 0 } ?? false
    }

    private enum Record: PreparedSQL {
        static let sql = """
            WITH trial AS (
                SELECT 1 FROM subscriptions.trials_v1 t
                JOIN catalog.products_v1 p ON p.app_id = t.app_id AND p.product_id = $3::text
                WHERE t.app_id = $1::text AND t.customer_id = $2::uuid AND t.started_at <= $5::timestamptz
                  AND coalesce(p.product_group, p.product_id) = t.group_key
            ), converted AS (
                INSERT INTO entitlements.trial_conversions (app_id, customer_id, product_id, transaction_id)
                SELECT $1::text, $2::uuid, $3::text, $4::text FROM trial
                ON CONFLICT (app_id, customer_id) DO NOTHING
                RETURNING 1
            )
            SELECT count(*) FROM converted
            """
    }
}
