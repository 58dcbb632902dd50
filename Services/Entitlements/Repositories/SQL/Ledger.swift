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
            WITH \(posting(
                app: "$1::text", customer: "$2::uuid", product: "$3::text", delta: "$4::bigint", reason: "$5::text",
                store: "$6::text", transaction: "$7::text", key: "$8::text"))
            SELECT balance FROM balance
            """
    }

    /// A line and its balance as two common table expressions, `line` and `balance` (`RETURNING balance`), for a
    /// statement that posts along with other writes; each argument is an SQL expression. `source` (a `FROM ...
    /// WHERE ...` clause) makes the line depend on rows of another expression: none there, no line and no balance.
    static func posting(
        app: String, customer: String, product: String, delta: String, reason: String, store: String,
        transaction: String, key: String, source: String = ""
    ) -> String {
        """
        line AS (
            INSERT INTO entitlements.ledger (
                app_id, customer_id, product_id, delta, reason, store, transaction_id, idempotency_key)
            SELECT \(app), \(customer), \(product), \(delta), \(reason), \(store), \(transaction), \(key)
            \(source)
            RETURNING customer_id, product_id, app_id, delta
        ), balance AS (
            INSERT INTO entitlements.balances AS b (customer_id, product_id, app_id, balance)
            SELECT customer_id, product_id, app_id, delta FROM line
            ON CONFLICT (customer_id, product_id) DO UPDATE SET balance = b.balance + excluded.balance, updated_at = now()
            RETURNING balance
        )
        """
    }
}
