import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase

/// The scheduled catalog sync's turns (`gateway.catalog_sync_schedule`): one per app and store, leased to one
/// replica at a time.
protocol CatalogSyncTurns: Sendable {
    /// Adds a turn for every app and store that has none (due at once), then leases up to `limit` due turns to this
    /// replica for `lease`.
    func claim(limit: Int, lease: Duration) async throws -> [CatalogSyncTurn]
    /// Ends a leased turn: due again `after` from now; `outcome` says how the run went.
    func finish(_ turn: CatalogSyncTurn, after: Duration, outcome: String) async throws
    /// Hands a leased turn back unrun (shutdown): due again at once.
    func handBack(_ turn: CatalogSyncTurn) async throws
}

/// One app's turn with one store, leased to this replica.
struct CatalogSyncTurn: Sendable, Equatable {
    var appID: String
    /// `apple` or `google`.
    var store: String
    /// Proves the lease when the turn ends: a replica whose lease ran out (and was taken) cannot move the turn.
    var leaseID: UUID
}

/// ``CatalogSyncTurns`` on PostgreSQL.
struct CatalogSyncTurnsPostgres: CatalogSyncTurns {
    let client: PostgresClient
    let logger: Logger

    func claim(limit: Int, lease: Duration) async throws -> [CatalogSyncTurn] {
        let seconds = Double(lease.milliseconds) / 1000
        try await client.query(
            """
            INSERT INTO gateway.catalog_sync_schedule (app_id, store)
            SELECT a.app_id, s.store FROM gateway.apps a CROSS JOIN (VALUES ('apple'), ('google')) AS s(store)
            ON CONFLICT (app_id, store) DO NOTHING
            """, logger: logger)
        let rows = try await client.query(
            """
            UPDATE gateway.catalog_sync_schedule c
            SET next_run_at = now() + make_interval(secs => \(seconds)), lease_id = gen_random_uuid()
            FROM (
                SELECT app_id, store FROM gateway.catalog_sync_schedule
                WHERE next_run_at <= now()
                ORDER BY next_run_at
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED) AS due
            WHERE c.app_id = due.app_id AND c.store = due.store
            RETURNING c.app_id, c.store, c.lease_id
            """, logger: logger)
        var turns: [CatalogSyncTurn] = []
        for try await (app, store, leaseID) in rows.decode((String, String, UUID).self) {
            turns.append(CatalogSyncTurn(appID: app, store: store, leaseID: leaseID))
        }
        return turns
    }

    func finish(_ turn: CatalogSyncTurn, after: Duration, outcome: String) async throws {
        let seconds = Double(after.milliseconds) / 1000
        try await client.query(
            """
            UPDATE gateway.catalog_sync_schedule SET
                next_run_at = now() + make_interval(secs => \(seconds)), lease_id = NULL, runs = runs + 1,
                last_run_at = now(), last_outcome = \(String(outcome.prefix(500)))
            WHERE app_id = \(turn.appID) AND store = \(turn.store) AND lease_id = \(turn.leaseID)
            """, logger: logger)
    }

    func handBack(_ turn: CatalogSyncTurn) async throws {
        try await client.query(
            """
            UPDATE gateway.catalog_sync_schedule SET next_run_at = now(), lease_id = NULL
            WHERE app_id = \(turn.appID) AND store = \(turn.store) AND lease_id = \(turn.leaseID)
            """, logger: logger)
    }
}
