import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels

/// Which App Store purchases the refund lookups ask Apple about, and when each was last asked
/// (`verifier.refund_lookups`).
protocol RefundLookupRepository: Sendable {
    /// Up to `limit` original transaction ids of `appID`'s App Store purchases in `environment` bought without an
    /// `appAccountToken` within `horizon`, not all refunded yet: those never asked first, then the least recently
    /// asked.
    func due(appID: String, environment: StoreEnvironment, horizon: Duration, limit: Int) async throws -> [String]
    /// Records that Apple was asked with `originalTransactionID` now and listed `refunds` refunds.
    func checked(appID: String, environment: StoreEnvironment, originalTransactionID: String, refunds: Int)
        async throws
}

/// ``RefundLookupRepository`` on PostgreSQL.
struct RefundLookupPostgresRepository: RefundLookupRepository {
    let client: PostgresClient
    let logger: Logger

    func due(appID: String, environment: StoreEnvironment, horizon: Duration, limit: Int) async throws -> [String] {
        let environment: String = environment.rawValue
        let horizonSeconds = Double(horizon.milliseconds) / 1000
        let rows = try await client.query(
            """
            SELECT t.original_transaction_id
            FROM verifier.transactions t
            LEFT JOIN verifier.refund_lookups l
              ON l.app_id = t.app_id AND l.environment = t.environment
             AND l.original_transaction_id = t.original_transaction_id
            WHERE t.app_id = \(appID) AND t.store = 'app_store' AND t.environment = \(environment)
              AND t.fact ->> 'app_account_token' IS NULL
              AND t.purchase_date > now() - make_interval(secs => \(horizonSeconds))
            GROUP BY t.original_transaction_id, l.checked_at
            HAVING bool_or(t.revocation_date IS NULL)
            ORDER BY l.checked_at NULLS FIRST, max(t.purchase_date) DESC, t.original_transaction_id
            LIMIT \(limit)
            """,
            logger: logger)
        var found: [String] = []
        for try await id in rows.decode(String.self) { found.append(id) }
        return found
    }

    func checked(appID: String, environment: StoreEnvironment, originalTransactionID: String, refunds: Int)
        async throws
    {
        let environment: String = environment.rawValue
        try await client.query(
            """
            INSERT INTO verifier.refund_lookups (app_id, environment, original_transaction_id, checked_at, refunds)
            VALUES (\(appID), \(environment), \(originalTransactionID), now(), \(refunds))
            ON CONFLICT (app_id, environment, original_transaction_id)
            DO UPDATE SET checked_at = now(), refunds = EXCLUDED.refunds
            """,
            logger: logger)
    }
}
