import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Folds one customer into another, in the caller's transaction, which holds both customers' locks.
///
/// Everything the customer owns follows: its ids, purchases, app transactions, device bindings, promotional grants
/// and consumable balances. Balances move as a pair of ledger lines (`merge_out` on the old customer, `merge_in` on the new), so
/// each customer's balance stays the sum of its own lines. The store transactions, ledger lines and events already
/// written stay where they are (they are a record of what happened); the old customer is marked `merged_into` the
/// new one, and so are the customers it had absorbed, so one level of `merged_into` finds a customer's whole past.
enum CustomerMerge {
    /// Whether a customer has something a merge would move or lose: any purchase (a refunded one too: it stays with
    /// its buyer under the strict policies), a non-zero consumable balance, an active promotional grant, a trial, or
    /// an app transaction (it stands for a paid app).
    static func ownsSomething(_ customerID: UUID, appID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> Bool
    {
        let rows = try await connection.checkedQuery(
            """
            SELECT EXISTS (SELECT 1 FROM entitlements.purchases WHERE customer_id = \(customerID))
                OR EXISTS (SELECT 1 FROM entitlements.balances WHERE customer_id = \(customerID) AND balance <> 0)
                OR EXISTS (
                    SELECT 1 FROM entitlements.promotional_grants
                    WHERE customer_id = \(customerID) AND revoked_at IS NULL AND expires_at > now())
                OR EXISTS (
                    SELECT 1 FROM subscriptions.trials_v1 WHERE app_id = \(appID) AND customer_id = \(customerID))
                OR EXISTS (SELECT 1 FROM entitlements.app_transactions WHERE customer_id = \(customerID))
            """,
            logger: logger
        )
        var owns = false
        for try await value in rows.decode(Bool.self) { owns = value }
        return owns
    }

    /// Moves everything of `old` to `survivor` and marks `old` as merged into it.
    static func merge(
        _ old: UUID, into survivor: UUID, appID: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let balances = try await connection.checkedQuery(
            """
            SELECT product_id, balance FROM entitlements.balances
            WHERE customer_id = \(old) AND balance <> 0
            ORDER BY product_id FOR UPDATE
            """,
            logger: logger
        )
        var moving: [(product: String, units: Int64)] = []
        for try await (product, units) in balances.decode((String, Int64).self) { moving.append((product, units)) }
        for (product, units) in moving {
            try await Ledger.post(
                -units, reason: .mergeOut, appID: appID, customerID: old, productID: product, on: connection,
                logger: logger)
            try await Ledger.post(
                units, reason: .mergeIn, appID: appID, customerID: survivor, productID: product, on: connection,
                logger: logger)
        }
        try await connection.run(
            """
            WITH moved_aliases AS (
                UPDATE entitlements.aliases SET customer_id = \(survivor) WHERE customer_id = \(old) RETURNING 1
            ), moved_purchases AS (
                UPDATE entitlements.purchases SET customer_id = \(survivor), updated_at = now()
                WHERE customer_id = \(old) RETURNING 1
            ), moved_devices AS (
                UPDATE entitlements.purchase_devices SET customer_id = \(survivor)
                WHERE customer_id = \(old) RETURNING 1
            ), moved_grants AS (
                UPDATE entitlements.promotional_grants SET customer_id = \(survivor)
                WHERE customer_id = \(old) RETURNING 1
            ), moved_app_transactions AS (
                UPDATE entitlements.app_transactions SET customer_id = \(survivor), updated_at = now()
                WHERE customer_id = \(old) RETURNING 1
            ), absorbing AS (
                UPDATE entitlements.customers s SET refund_count = s.refund_count + o.refund_count,
                    first_seen = least(s.first_seen, o.first_seen), last_seen = now()
                FROM entitlements.customers o
                WHERE s.customer_id = \(survivor) AND o.customer_id = \(old)
                RETURNING 1
            ), merged AS (
                UPDATE entitlements.customers SET merged_into = \(survivor)
                WHERE customer_id = \(old) OR merged_into = \(old)
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM moved_aliases), (SELECT count(*) FROM moved_purchases),
                (SELECT count(*) FROM moved_devices), (SELECT count(*) FROM moved_grants),
                (SELECT count(*) FROM moved_app_transactions), (SELECT count(*) FROM absorbing),
                (SELECT count(*) FROM merged)
            """,
            logger: logger
        )
    }
}
