import Foundation
import Logging
import PostgresNIO

/// Consumable ledger lines and the balance they add up to, always written together in the caller's transaction
/// (which holds the customer's row lock), so the balance is the sum of the lines at every commit.
enum Ledger {
    /// Why a line was written.
    enum Reason: String {
        case purchase, consume, refund
        case transferIn = "transfer_in"
        case transferOut = "transfer_out"
        case mergeIn = "merge_in"
        case mergeOut = "merge_out"
    }

    /// Adds a line of `delta` units and returns the new balance.
    @discardableResult
    static func post(
        _ delta: Int64,
        reason: Reason,
        appID: String,
        customerID: UUID,
        productID: String,
        store: String? = nil,
        transactionID: String? = nil,
        idempotencyKey: String? = nil,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Int64 {
        let reasonName: String = reason.rawValue
        let rows = try await connection.query(
            """
            WITH line AS (
                INSERT INTO entitlements.ledger (
                    app_id, customer_id, product_id, delta, reason, store, transaction_id, idempotency_key)
                VALUES (
                    \(appID), \(customerID), \(productID), \(delta), \(reasonName), \(store), \(transactionID),
                    \(idempotencyKey))
            )
            INSERT INTO entitlements.balances AS b (customer_id, product_id, app_id, balance)
            VALUES (\(customerID), \(productID), \(appID), \(delta))
            ON CONFLICT (customer_id, product_id) DO UPDATE SET balance = b.balance + excluded.balance, updated_at = now()
            RETURNING balance
            """,
            logger: logger
        )
        for try await balance in rows.decode(Int64.self) { return balance }
        return delta
    }
}
