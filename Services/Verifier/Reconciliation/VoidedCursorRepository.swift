import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// The voided-purchases poller's memory (`verifier.google_voided_cursors`): one cursor per app with Google
/// credentials, leased to one replica at a time.
protocol VoidedCursorRepository: Sendable {
    /// Starts a cursor for each app with Google credentials that has none, then leases up to `limit` cursors due for
    /// a poll to this replica for `lease`.
    func claim(limit: Int, lease: Duration) async throws -> [VoidedCursorLease]
    /// Saves a leased cursor's progress (how many voided purchases were handed on, the newest voided time seen) and
    /// extends the lease; `false` when the lease was lost (it ran out and another replica took the app): the caller
    /// must stop.
    func save(
        _ lease: VoidedCursorLease, cursor: VoidedPurchasesCursor, found: Int, lastVoidedMillis: Int64?,
        extendBy: Duration
    ) async throws -> Bool
    /// Ends a lease: the app is polled again after `pause`; `error` says why this poll stopped short.
    func release(_ lease: VoidedCursorLease, pause: Duration, error: String?) async throws
    /// Hands a lease back unpolled (shutdown): the app is due again at once, its last poll's record kept.
    func handBack(_ lease: VoidedCursorLease) async throws
    /// What Shopkeeper recorded of a Play order: `nil` when nothing (the order, or for a renewal its subscription).
    func knownOrder(appID: String, orderID: String) async throws -> KnownPlayOrder?
}

/// A cursor leased to this replica.
struct VoidedCursorLease: Sendable, Equatable {
    var appID: String
    /// Proves the lease when saving: a replica whose lease ran out (and was taken) cannot move the cursor.
    var leaseID: UUID
    var cursor: VoidedPurchasesCursor
}

/// What the verifier knows of a voided Play order.
struct KnownPlayOrder: Sendable, Equatable {
    /// The order is a subscription's (its first order or a renewal `<first>..N`).
    var isSubscription: Bool
    /// A revocation of it (of the subscription, for a renewal) is recorded already: by a voided-purchase
    /// notification, a validation, or an earlier poll.
    var revoked: Bool
}

/// ``VoidedCursorRepository`` on PostgreSQL.
struct VoidedCursorPostgresRepository: VoidedCursorRepository {
    let client: PostgresClient
    let logger: Logger

    func claim(limit: Int, lease: Duration) async throws -> [VoidedCursorLease] {
        let seconds: Double = Double(lease.milliseconds) / 1000
        try await client.query(
            """
            INSERT INTO verifier.google_voided_cursors (app_id)
            SELECT app_id FROM verifier.store_credentials WHERE store = 'google'
            ON CONFLICT (app_id) DO NOTHING
            """,
            logger: logger)
        let rows = try await client.query(
            """
            UPDATE verifier.google_voided_cursors c
            SET next_poll_at = now() + make_interval(secs => \(seconds)), lease_id = gen_random_uuid()
            FROM (
                SELECT v.app_id FROM verifier.google_voided_cursors v
                WHERE v.next_poll_at <= now()
                  AND EXISTS (SELECT 1 FROM verifier.store_credentials s
                              WHERE s.app_id = v.app_id AND s.store = 'google')
                ORDER BY v.next_poll_at
                LIMIT \(limit)
                FOR UPDATE OF v SKIP LOCKED) AS due
            WHERE c.app_id = due.app_id
            RETURNING c.app_id, c.lease_id, c.next_start_ms, c.window_end_ms, c.page_token
            """,
            logger: logger)
        var leases: [VoidedCursorLease] = []
        for try await (app, leaseID, start, end, token) in rows.decode((String, UUID, Int64?, Int64?, String?).self) {
            leases.append(
                VoidedCursorLease(
                    appID: app, leaseID: leaseID,
                    cursor: VoidedPurchasesCursor(nextStartMillis: start, windowEndMillis: end, pageToken: token)))
        }
        return leases
    }

    func save(
        _ lease: VoidedCursorLease, cursor: VoidedPurchasesCursor, found: Int, lastVoidedMillis: Int64?,
        extendBy: Duration
    ) async throws -> Bool {
        let seconds: Double = Double(extendBy.milliseconds) / 1000
        let rows = try await client.query(
            """
            UPDATE verifier.google_voided_cursors SET
                next_start_ms = \(cursor.nextStartMillis), window_end_ms = \(cursor.windowEndMillis),
                page_token = \(cursor.pageToken), found = found + \(found),
                last_voided_ms = greatest(last_voided_ms, \(lastVoidedMillis)),
                next_poll_at = greatest(next_poll_at, now() + make_interval(secs => \(seconds)))
            WHERE app_id = \(lease.appID) AND lease_id = \(lease.leaseID)
            RETURNING 1
            """,
            logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    func release(_ lease: VoidedCursorLease, pause: Duration, error: String?) async throws {
        let seconds: Double = Double(pause.milliseconds) / 1000
        try await client.query(
            """
            UPDATE verifier.google_voided_cursors SET
                next_poll_at = now() + make_interval(secs => \(seconds)), polled_at = now(), last_error = \(error),
                lease_id = NULL
            WHERE app_id = \(lease.appID) AND lease_id = \(lease.leaseID)
            """,
            logger: logger)
    }

    func handBack(_ lease: VoidedCursorLease) async throws {
        try await client.query(
            """
            UPDATE verifier.google_voided_cursors SET next_poll_at = now(), lease_id = NULL
            WHERE app_id = \(lease.appID) AND lease_id = \(lease.leaseID)
            """,
            logger: logger)
    }

    func knownOrder(appID: String, orderID: String) async throws -> KnownPlayOrder? {
        // A renewal order is `<first order>..N`; the subscription is recorded under its first order.
        let first = orderID.components(separatedBy: "..").first ?? orderID
        let rows = try await client.query(
            """
            SELECT bool_or(type = \(unescaped: ProductType.autoRenewable.sql)), bool_or(revocation_date IS NOT NULL)
            FROM verifier.transactions
            WHERE app_id = \(appID) AND store = 'play_store'
              AND (transaction_id = \(orderID) OR original_transaction_id = \(first))
            HAVING count(*) > 0
            """,
            logger: logger)
        for try await (subscription, revoked) in rows.decode((Bool?, Bool?).self) {
            return KnownPlayOrder(isSubscription: subscription ?? false, revoked: revoked ?? false)
        }
        return nil
    }
}
