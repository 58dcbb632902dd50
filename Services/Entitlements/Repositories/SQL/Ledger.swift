import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Consumable ledger lines and the balance they add up to, always written together in the caller's transaction
/// (which holds the customer's lock: ``CustomerLocks``), so the balance is the sum of the lines at every commit.
enum Ledger {
    /// Why a line was written.
    enum Reason: String {
        case purchase, consume, refund
        /// The store reversed a refund: the units it clawed back are credited again.
        case refundReversed = "refund_reversed"
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
        let bindings = try PostgresBindings(
            appID, customerID, productID, delta, reasonName, store, transactionID, idempotencyKey)
        let rows = try await connection.run(Post.self, bindings, logger: logger) { try $0.decode(Int64.self) }
        return rows.first ?? delta
    }

    /// The customer's balance of `productID` (0 without one), as the caller's transaction sees it: the caller holds
    /// the customer's lock (``CustomerLocks``), so it cannot change underneath.
    static func balance(customerID: UUID, productID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> Int64
    {
        let rows = try await connection.run(Balance.self, try PostgresBindings(customerID, productID), logger: logger) {
            try $0.decode(Int64.self)
        }
        return rows.first ?? 0
    }

    private enum Balance: PreparedSQL {
        static let sql = """
            SELECT balance FROM entitlements.balances WHERE customer_id = $1::uuid AND product_id = $2::text
            """
    }

    private enum Post: PreparedSQL {
        static let sql = """
            WITH line AS (
                INSERT INTO entitlements.ledger (
                    app_id, customer_id, product_id, delta, reason, store, transaction_id, idempotency_key)
                VALUES ($1::text, $2::uuid, $3::text, $4::bigint, $5::text, $6::text, $7::text, $8::text)
            )
            INSERT INTO entitlements.balances AS b (customer_id, product_id, app_id, balance)
            VALUES ($2::uuid, $3::text, $1::text, $4::bigint)
            ON CONFLICT (customer_id, product_id) DO UPDATE SET balance = b.balance + excluded.balance, updated_at = now()
            RETURNING balance
            """
    }
}
