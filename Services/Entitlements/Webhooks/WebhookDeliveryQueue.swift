import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase

/// The state of an event's webhook delivery.
enum WebhookDeliveryState: String, Sendable, Equatable {
    /// Waiting for its next attempt (or being attempted).
    case pending
    /// A 2xx answer was received.
    case delivered
    /// Given up: retried past the retry window, or its endpoint was disabled or deleted.
    case dead
}

/// One delivery attempt a dispatcher claimed, with what it needs to make it.
struct ClaimedDelivery: Sendable, Equatable {
    /// The delivery: one event to one endpoint.
    var deliveryID: UUID
    var eventID: UUID
    var appID: String
    var type: String
    /// Which attempt this is (1 for the first); also the claim's fencing token.
    var attempt: Int
    /// The event's JSON as the events API shows it (without its deliveries): the `shopkeeper` body, and the
    /// `cloudevents` body's `data`.
    var event: String
    /// The endpoint's URL now, or `nil` when the endpoint is disabled or deleted.
    var webhookURL: String?
    /// The endpoint's signing secret now, sealed (``WebhookSecretBox``), and the key id it was sealed under.
    var sealedSecret: SealedWebhookSecret?
    /// The endpoint's payload format.
    var format: WebhookFormat = .shopkeeper
    /// The event's attributes a CloudEvent carries besides its data.
    var appUserID: String?
    var createdAt: String = ""

    /// The request body, exactly the bytes that are signed.
    var body: String {
        switch format {
        case .shopkeeper: event
        case .cloudevents:
            CloudEvent.structured(
                id: eventID, appID: appID, type: type, subject: appUserID, time: createdAt, data: event)
        }
    }
}

/// A webhook signing secret as stored: sealed, with the fingerprint of the key that sealed it.
struct SealedWebhookSecret: Sendable, Equatable {
    var sealed: Data
    var keyID: String
}

/// The outbox's webhook deliveries as a work queue shared by every replica.
protocol WebhookDeliveryQueue: Sendable {
    /// Claims up to `limit` due deliveries for `lease`, taking from no app more than it takes to have `perApp`
    /// attempts in flight across every replica: no other dispatcher sees them until the lease ends (or the attempt is
    /// recorded). Each claim counts as an attempt.
    func claim(limit: Int, perApp: Int, lease: Duration) async throws -> [ClaimedDelivery]
    /// Records a 2xx answer.
    func markDelivered(_ delivery: ClaimedDelivery, status: Int) async throws
    /// Records a failed attempt: `pending` again after `retryAfter`, or `dead` when the delivery's retry window
    /// (`giveUpAfter` from its creation or replay) is over or `giveUp` is set. Returns the new state, `nil` when the
    /// delivery moved on meanwhile (replayed, or delivered by another attempt).
    func markFailed(
        _ delivery: ClaimedDelivery, failure: WebhookFailure, retryAfter: Duration, giveUpAfter: Duration,
        giveUp: Bool
    ) async throws -> WebhookDeliveryState?
    /// Seals every webhook secret still stored in plaintext (written by a release before secrets were sealed) into
    /// the app's first endpoint and clears the plaintext; returns how many it sealed. Safe to run on several replicas at once.
    func sealUnsealedSecrets(with box: WebhookSecretBox) async throws -> Int
}

/// ``WebhookDeliveryQueue`` on PostgreSQL (`entitlements.webhook_deliveries`).
struct WebhookDeliveryPostgresQueue: WebhookDeliveryQueue {
    let client: PostgresClient
    let logger: Logger

    /// The transaction-scoped advisory lock that makes claims take turns across replicas ('SHKW', 1), so each one
    /// counts the attempts in flight after the previous one's have been leased.
    private static let claimLock: (Int32, Int32) = (1_397_246_807, 1)

    func claim(limit: Int, perApp: Int, lease: Duration) async throws -> [ClaimedDelivery] {
        let leaseMilliseconds: Double = Double(lease.milliseconds)
        let lock = Self.claimLock
        return try await client.transaction(logger: logger) { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(\(lock.0), \(lock.1))", logger: logger)
            // Per app with due deliveries, at most what keeps it under `perApp` leased attempts (over all its
            // endpoints), oldest first; then the oldest of those overall. An app whose receiver hangs holds `perApp`
            // attempts and no more, so it cannot take the slots other apps' deliveries need. SKIP LOCKED leaves rows
            // that a replay is changing.
            let rows = try await connection.checkedQuery(
                """
                WITH busy AS (
                    SELECT app_id, count(*)::integer AS in_flight FROM entitlements.webhook_deliveries
                    WHERE state = 'pending' AND lease_until > now()
                    GROUP BY app_id
                ), apps AS (
                    SELECT DISTINCT app_id FROM entitlements.webhook_deliveries
                    WHERE state = 'pending' AND next_attempt_at <= now()
                ), due AS (
                    SELECT picked.delivery_id, picked.next_attempt_at
                    FROM apps a
                    LEFT JOIN busy b ON b.app_id = a.app_id
                    CROSS JOIN LATERAL (
                        SELECT w.delivery_id, w.next_attempt_at FROM entitlements.webhook_deliveries w
                        WHERE w.app_id = a.app_id AND w.state = 'pending' AND w.next_attempt_at <= now()
                        ORDER BY w.next_attempt_at
                        LIMIT greatest(\(perApp) - coalesce(b.in_flight, 0), 0)
                        FOR UPDATE SKIP LOCKED
                    ) picked
                    ORDER BY picked.next_attempt_at
                    LIMIT \(limit)
                ), claimed AS (
                    UPDATE entitlements.webhook_deliveries w
                    SET next_attempt_at = now() + \(leaseMilliseconds) * interval '1 millisecond',
                        lease_until = now() + \(leaseMilliseconds) * interval '1 millisecond',
                        attempts = w.attempts + 1
                    FROM due WHERE w.delivery_id = due.delivery_id
                    RETURNING w.delivery_id, w.event_id, w.app_id, w.endpoint_id, w.attempts
                )
                SELECT c.delivery_id, c.event_id, c.app_id, e.type, c.attempts, \(unescaped: EventJSON.event)::text,
                    CASE WHEN p.enabled THEN p.url END, p.secret_sealed, p.secret_key_id, coalesce(p.format, 'shopkeeper'),
                    e.app_user_id, entitlements.iso(e.created_at)
                FROM claimed c
                JOIN entitlements.events e ON e.event_id = c.event_id
                LEFT JOIN entitlements.webhook_endpoints p ON p.endpoint_id = c.endpoint_id
                """,
                logger: logger
            )
            var claimed: [ClaimedDelivery] = []
            for try await (delivery, id, app, type, attempt, event, url, sealed, keyID, format, user, created)
                in rows.decode(
                    (UUID, UUID, String, String, Int, String, String?, ByteBuffer?, String?, String, String?, String)
                        .self)
            {
                var secret: SealedWebhookSecret?
                if let sealed, let keyID {
                    secret = SealedWebhookSecret(sealed: Data(sealed.readableBytesView), keyID: keyID)
                }
                claimed.append(
                    ClaimedDelivery(
                        deliveryID: delivery, eventID: id, appID: app, type: type, attempt: attempt, event: event,
                        webhookURL: url, sealedSecret: secret, format: WebhookFormat(rawValue: format) ?? .shopkeeper,
                        appUserID: user, createdAt: created))
            }
            return claimed
        }
    }

    func markDelivered(_ delivery: ClaimedDelivery, status: Int) async throws {
        // A success counts even when the claim is stale: the receiver has the event.
        try await client.run(
            """
            UPDATE entitlements.webhook_deliveries
            SET state = 'delivered', delivered_at = now(), last_status = \(status), last_error = NULL,
                lease_until = NULL, last_attempt_at = now()
            WHERE delivery_id = \(delivery.deliveryID) AND state = 'pending'
            """,
            logger: logger
        )
    }

    func markFailed(
        _ delivery: ClaimedDelivery, failure: WebhookFailure, retryAfter: Duration, giveUpAfter: Duration,
        giveUp: Bool
    ) async throws -> WebhookDeliveryState? {
        let status: Int? = failure.status
        let reason: String = failure.reason
        let retryMilliseconds: Double = Double(retryAfter.milliseconds)
        let windowMilliseconds: Double = Double(giveUpAfter.milliseconds)
        let attempt: Int = delivery.attempt
        let rows = try await client.query(
            """
            UPDATE entitlements.webhook_deliveries
            SET state = CASE
                    WHEN \(giveUp) OR created_at + \(windowMilliseconds) * interval '1 millisecond' <= now() THEN 'dead'
                    ELSE 'pending' END,
                next_attempt_at = now() + \(retryMilliseconds) * interval '1 millisecond',
                last_status = \(status), last_error = \(reason), lease_until = NULL, last_attempt_at = now()
            WHERE delivery_id = \(delivery.deliveryID) AND state = 'pending' AND attempts = \(attempt)
            RETURNING state
            """,
            logger: logger
        )
        for try await state in rows.decode(String.self) { return WebhookDeliveryState(rawValue: state) }
        return nil
    }

    func sealUnsealedSecrets(with box: WebhookSecretBox) async throws -> Int {
        let rows = try await client.query(
            """
            SELECT app_id, webhook_secret_unsealed FROM entitlements.app_settings
            WHERE webhook_secret_unsealed IS NOT NULL
            """,
            logger: logger
        )
        var unsealed: [(appID: String, secret: String)] = []
        for try await (app, secret) in rows.decode((String, String).self) { unsealed.append((app, secret)) }
        var sealedCount = 0
        for (appID, secret) in unsealed {
            let sealed = ByteBuffer(bytes: try box.seal(secret, appID: appID))
            let keyID: String = box.keyID
            // The plaintext read above goes to the app's first endpoint (where migration 0039 left its secret NULL):
            // a replica that sealed it meanwhile, or a rotation that wrote a sealed secret, is left as it is (and the
            // plaintext is cleared either way, with the webhook columns 0039 left in that row).
            let updated = try await client.query(
                """
                WITH endpoint AS (
                    UPDATE entitlements.webhook_endpoints SET secret_sealed = \(sealed), secret_key_id = \(keyID)
                    WHERE app_id = \(appID) AND from_settings AND secret_sealed IS NULL
                )
                UPDATE entitlements.app_settings SET webhook_secret_unsealed = NULL, webhook_url = NULL,
                    webhook_secret_sealed = NULL, webhook_secret_key_id = NULL
                WHERE app_id = \(appID) AND webhook_secret_unsealed = \(secret)
                RETURNING 1
                """,
                logger: logger
            )
            for try await _ in updated.decode(Int.self) { sealedCount += 1 }
        }
        return sealedCount
    }
}
