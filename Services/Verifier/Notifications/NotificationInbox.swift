import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// A store notification as received: verified, attributed to an app, not processed yet.
struct ReceivedNotification: Sendable, Equatable {
    /// `app_store`, `play_store` or `stripe`.
    var store: String
    /// Apple's `notificationUUID`, Pub/Sub's message id, Stripe's event id.
    var id: String
    var appID: String
    var type: String
    var subtype: String?
    var environment: String?
    var signedAt: Date?
    /// What the store sent (Apple's `signedPayload`, Pub/Sub's message data), kept for processing and audits.
    var payload: String
}

/// Where notifications wait between being answered and being processed.
protocol NotificationInbox: Sendable {
    /// Records the notification once; returns `false` when it was recorded before (a store retry).
    func record(_ notification: ReceivedNotification) async throws -> Bool

    /// Records the notification once, leased for `lease` to the caller (which processes it at once, before
    /// answering the store): `false` when it was recorded before. The worker takes it only once the lease runs out.
    func recordClaimed(_ notification: ReceivedNotification, lease: Duration) async throws -> Bool

    /// Leases up to `limit` due pending notifications for `lease` (replicas skip each other's), oldest first.
    func claim(limit: Int, lease: Duration) async throws -> [ReceivedNotification]

    /// Leases one notification for `lease` when it is pending and due (no one else works on it): `nil` otherwise.
    /// A webhook answered only once its event is processed (Stripe's) claims its own notification with this.
    func claim(store: String, id: String, lease: Duration) async throws -> ReceivedNotification?

    /// Marks notifications processed.
    func markProcessed(_ notifications: [ReceivedNotification]) async throws

    /// Marks a notification failed for good, with the reason.
    func markFailed(_ notification: ReceivedNotification, reason: String) async throws

    /// Puts notifications back for a later attempt, backing off with their attempts from `base`.
    func retryLater(_ notifications: [ReceivedNotification], reason: String, base: Duration) async throws

    /// Hands claimed notifications back unprocessed (shutdown): due again at once, the claim's attempt not counted.
    func release(_ notifications: [ReceivedNotification]) async throws

    /// Keeps what was answered to the store for a notification (or why nothing was).
    func recordAnswer(_ notification: ReceivedNotification, answer: String) async throws
}

/// ``NotificationInbox`` in `verifier.notifications`.
struct NotificationPostgresInbox: NotificationInbox {
    let client: PostgresClient
    let logger: Logger

    func record(_ notification: ReceivedNotification) async throws -> Bool {
        let rows = try await client.withConnection { connection in
            try await connection.run(
                Record.self,
                try PostgresBindings(
                    notification.store, notification.id, notification.appID, notification.type, notification.subtype,
                    notification.environment, notification.signedAt, notification.payload),
                logger: logger
            ) { try $0.decode(Int.self) }
        }
        return !rows.isEmpty
    }

    func recordClaimed(_ notification: ReceivedNotification, lease: Duration) async throws -> Bool {
        let seconds: Double = Double(lease.milliseconds) / 1000
        let rows = try await client.withConnection { connection in
            try await connection.run(
                RecordClaimed.self,
                try PostgresBindings(
                    notification.store, notification.id, notification.appID, notification.type, notification.subtype,
                    notification.environment, notification.signedAt, notification.payload, seconds),
                logger: logger
            ) { try $0.decode(Int.self) }
        }
        return !rows.isEmpty
    }

    func claim(limit: Int, lease: Duration) async throws -> [ReceivedNotification] {
        let seconds: Double = Double(lease.milliseconds) / 1000
        return try await client.withConnection { connection in
            try await connection.run(
                Claim.self, try PostgresBindings(limit, seconds), logger: logger, decode: Self.received)
        }
    }

    func claim(store: String, id: String, lease: Duration) async throws -> ReceivedNotification? {
        let seconds: Double = Double(lease.milliseconds) / 1000
        let rows = try await client.withConnection { connection in
            try await connection.run(
                ClaimOne.self, try PostgresBindings(store, id, seconds), logger: logger, decode: Self.received)
        }
        return rows.first
    }

    /// A notification as a claim returns it (`store, notification_id, app_id, type, subtype, environment,
    /// signed_at, payload`).
    private static func received(_ row: PostgresRow) throws -> ReceivedNotification {
        let (store, id, app, type, subtype, environment, signed, payload) = try row.decode(
            (String, String, String, String, String?, String?, Date?, String).self)
        return ReceivedNotification(
            store: store, id: id, appID: app, type: type, subtype: subtype, environment: environment,
            signedAt: signed, payload: payload)
    }

    func markProcessed(_ notifications: [ReceivedNotification]) async throws {
        guard !notifications.isEmpty else { return }
        let stores: [String] = notifications.map(\.store)
        let ids: [String] = notifications.map(\.id)
        try await client.withConnection { connection in
            try await connection.run(Processed.self, try PostgresBindings(stores, ids), logger: logger)
        }
    }

    func markFailed(_ notification: ReceivedNotification, reason: String) async throws {
        try await client.withConnection { connection in
            try await connection.run(
                Failed.self, try PostgresBindings(notification.store, notification.id, reason), logger: logger)
        }
    }

    func recordAnswer(_ notification: ReceivedNotification, answer: String) async throws {
        try await client.withConnection { connection in
            try await connection.run(
                """
                UPDATE verifier.notifications SET answer = \(answer)
                WHERE store = \(notification.store) AND notification_id = \(notification.id)
                """,
                logger: logger)
        }
    }

    func release(_ notifications: [ReceivedNotification]) async throws {
        guard !notifications.isEmpty else { return }
        let stores: [String] = notifications.map(\.store)
        let ids: [String] = notifications.map(\.id)
        try await client.withConnection { connection in
            try await connection.run(Release.self, try PostgresBindings(stores, ids), logger: logger)
        }
    }

    func retryLater(_ notifications: [ReceivedNotification], reason: String, base: Duration) async throws {
        guard !notifications.isEmpty else { return }
        let stores: [String] = notifications.map(\.store)
        let ids: [String] = notifications.map(\.id)
        let seconds: Double = Double(base.milliseconds) / 1000
        try await client.withConnection { connection in
            try await connection.run(
                Retry.self, try PostgresBindings(stores, ids, reason, seconds), logger: logger)
        }
    }

    private enum Record: PreparedSQL {
        static let sql = """
            INSERT INTO verifier.notifications (
                store, notification_id, app_id, type, subtype, environment, signed_at, payload)
            VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::timestamptz, $8::text)
            ON CONFLICT (store, notification_id) DO NOTHING
            RETURNING 1
            """
    }

    private enum RecordClaimed: PreparedSQL {
        static let sql = """
            INSERT INTO verifier.notifications (
                store, notification_id, app_id, type, subtype, environment, signed_at, payload, attempts,
                next_attempt_at)
            VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::timestamptz, $8::text, 1,
                    now() + make_interval(secs => $9::float8))
            ON CONFLICT (store, notification_id) DO NOTHING
            RETURNING 1
            """
    }

    private enum Claim: PreparedSQL {
        static let sql = """
            UPDATE verifier.notifications n
            SET next_attempt_at = now() + make_interval(secs => $2::float8), attempts = n.attempts + 1
            FROM (
                SELECT store, notification_id FROM verifier.notifications
                WHERE state = 'pending' AND next_attempt_at <= now()
                ORDER BY next_attempt_at
                LIMIT $1::bigint
                FOR UPDATE SKIP LOCKED
            ) due
            WHERE n.store = due.store AND n.notification_id = due.notification_id
            RETURNING n.store, n.notification_id, n.app_id, n.type, n.subtype, n.environment, n.signed_at, n.payload
            """
    }

    /// `SKIP LOCKED`: a notification another request or worker is claiming right now is theirs.
    private enum ClaimOne: PreparedSQL {
        static let sql = """
            UPDATE verifier.notifications n
            SET next_attempt_at = now() + make_interval(secs => $3::float8), attempts = n.attempts + 1
            FROM (
                SELECT store, notification_id FROM verifier.notifications
                WHERE store = $1::text AND notification_id = $2::text AND state = 'pending' AND next_attempt_at <= now()
                FOR UPDATE SKIP LOCKED
            ) due
            WHERE n.store = due.store AND n.notification_id = due.notification_id
            RETURNING n.store, n.notification_id, n.app_id, n.type, n.subtype, n.environment, n.signed_at, n.payload
            """
    }

    private enum Processed: PreparedSQL {
        static let sql = """
            UPDATE verifier.notifications n SET state = 'processed', processed_at = now(), last_error = NULL
            FROM unnest($1::text[], $2::text[]) AS k(store, notification_id)
            WHERE n.store = k.store AND n.notification_id = k.notification_id
            """
    }

    private enum Failed: PreparedSQL {
        static let sql = """
            UPDATE verifier.notifications SET state = 'failed', processed_at = now(), last_error = $3::text
            WHERE store = $1::text AND notification_id = $2::text
            """
    }

    private enum Release: PreparedSQL {
        static let sql = """
            UPDATE verifier.notifications n SET next_attempt_at = now(), attempts = greatest(n.attempts - 1, 0)
            FROM unnest($1::text[], $2::text[]) AS k(store, notification_id)
            WHERE n.store = k.store AND n.notification_id = k.notification_id AND n.state = 'pending'
            """
    }

    /// Backoff: base × 2^(attempts - 1), at most an hour.
    private enum Retry: PreparedSQL {
        static let sql = """
            UPDATE verifier.notifications n SET last_error = $3::text,
                next_attempt_at = now() + make_interval(secs => least(3600, $4::float8 * 2 ^ greatest(n.attempts - 1, 0)))
            FROM unnest($1::text[], $2::text[]) AS k(store, notification_id)
            WHERE n.store = k.store AND n.notification_id = k.notification_id
            """
    }
}
