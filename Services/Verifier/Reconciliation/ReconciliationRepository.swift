import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperModels

/// A subscription whose period ended with no final word from the store (`subscriptions.stale_v1`), claimed by
/// one reconciler for a while.
struct StaleSubscription: Sendable, Equatable {
    var appID: String
    var store: StorePlatform
    var originalTransactionID: String
    var environment: StoreEnvironment
    /// The period end that looked stale.
    var expiresAt: Date
    /// How many times the store has been asked about this period end, this claim included.
    var attempts: Int
}

/// The reconciliation job's queue and memory (`verifier.reconciliations`).
protocol ReconciliationRepository: Sendable {
    /// Claims up to `limit` stale subscriptions whose period ended at least `after` ago and whose next check is due
    /// (or that are new, or whose period end changed since the last check), each for `lease`: no other replica
    /// claims it until the lease runs out or ``finish(_:outcome:nextCheckIn:)`` sets the next check.
    func claim(limit: Int, after: Duration, lease: Duration) async throws -> [StaleSubscription]
    /// Records what asking the store about `subscription` gave, and when to ask again if it still looks stale.
    func finish(_ subscription: StaleSubscription, outcome: String, nextCheckIn: Duration) async throws
    /// Hands claimed subscriptions back unasked (shutdown): due again at once, the claim's check not counted.
    func release(_ subscriptions: [StaleSubscription]) async throws
    /// The Play purchase token of the subscription's latest recorded order, if any.
    func latestPlayToken(appID: String, originalTransactionID: String) async throws -> String?
}

/// ``ReconciliationRepository`` on PostgreSQL.
struct ReconciliationPostgresRepository: ReconciliationRepository {
    let client: PostgresClient
    let logger: Logger

    func release(_ subscriptions: [StaleSubscription]) async throws {
        guard !subscriptions.isEmpty else { return }
        let stores: [String] = subscriptions.map(\.store.rawValue)
        let ids: [String] = subscriptions.map(\.originalTransactionID)
        try await client.query(
            """
            UPDATE verifier.reconciliations r SET next_check_at = now(), attempts = greatest(r.attempts - 1, 0)
            FROM unnest(\(stores)::text[], \(ids)::text[]) AS k(store, original_transaction_id)
            WHERE r.store = k.store AND r.original_transaction_id = k.original_transaction_id
            """,
            logger: logger
        )
    }

    func claim(limit: Int, after: Duration, lease: Duration) async throws -> [StaleSubscription] {
        let afterSeconds = Double(after.milliseconds) / 1000
        let leaseSeconds = Double(lease.milliseconds) / 1000
        // Two replicas may select the same row; the second one's conflict update finds it claimed (its
        // `next_check_at` in the future, its `expires_at` the same) and skips it, so each row has one claimant.
        let rows = try await client.query(
            """
            INSERT INTO verifier.reconciliations AS r (
                store, original_transaction_id, app_id, environment, expires_at, attempts, next_check_at)
            SELECT s.store, s.original_transaction_id, s.app_id, s.environment, s.expires_at, 1,
                   now() + make_interval(secs => \(leaseSeconds))
            FROM subscriptions.stale_v1 s
            LEFT JOIN verifier.reconciliations x
                ON x.store = s.store AND x.original_transaction_id = s.original_transaction_id
            WHERE s.expires_at <= now() - make_interval(secs => \(afterSeconds))
              AND (x.store IS NULL OR x.expires_at <> s.expires_at OR x.next_check_at <= now())
            ORDER BY s.expires_at
            LIMIT \(limit)
            ON CONFLICT (store, original_transaction_id) DO UPDATE SET
                app_id = excluded.app_id, environment = excluded.environment, expires_at = excluded.expires_at,
                attempts = CASE WHEN r.expires_at = excluded.expires_at THEN r.attempts + 1 ELSE 1 END,
                next_check_at = excluded.next_check_at
            WHERE r.expires_at <> excluded.expires_at OR r.next_check_at <= now()
            RETURNING r.app_id, r.store, r.original_transaction_id, r.environment, r.expires_at, r.attempts
            """,
            logger: logger
        )
        var claimed: [StaleSubscription] = []
        for try await (appID, store, original, environment, expiresAt, attempts) in rows.decode(
            (String, String, String, String, Date, Int).self)
        {
            guard let store = StorePlatform(rawValue: store),
                let environment = StoreEnvironment(rawValue: environment)
            else { continue }
            claimed.append(
                StaleSubscription(
                    appID: appID, store: store, originalTransactionID: original, environment: environment,
                    expiresAt: expiresAt, attempts: attempts))
        }
        return claimed
    }

    func finish(_ subscription: StaleSubscription, outcome: String, nextCheckIn: Duration) async throws {
        let store: String = subscription.store.rawValue
        let seconds = Double(nextCheckIn.milliseconds) / 1000
        try await client.query(
            """
            UPDATE verifier.reconciliations
            SET checked_at = now(), outcome = \(outcome), next_check_at = now() + make_interval(secs => \(seconds))
            WHERE store = \(store) AND original_transaction_id = \(subscription.originalTransactionID)
              AND expires_at = \(subscription.expiresAt)
            """,
            logger: logger
        )
    }

    func latestPlayToken(appID: String, originalTransactionID: String) async throws -> String? {
        let store: String = StorePlatform.playStore.rawValue
        let rows = try await client.query(
            """
            SELECT proof_kind, raw_proof FROM verifier.transactions
            WHERE app_id = \(appID) AND store = \(store) AND original_transaction_id = \(originalTransactionID)
              AND proof_kind IN ('play_token', 'notification', 'store_status')
            ORDER BY purchase_date DESC, first_verified_at DESC
            LIMIT 1
            """,
            logger: logger
        )
        for try await (kind, proof) in rows.decode((String, String).self) {
            guard kind == ProofKind.playToken.rawValue else { return proof }
            // A presented token is kept as `kind:product:token` (``StoreProof/raw``).
            let parts = proof.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            return parts.count == 3 ? String(parts[2]) : nil
        }
        return nil
    }
}
