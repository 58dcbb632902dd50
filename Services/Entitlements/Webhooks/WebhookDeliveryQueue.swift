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
    /// Given up: retried past the retry window, or the app had no webhook any more.
    case dead
}

/// One delivery attempt a dispatcher claimed, with what it needs to make it.
struct ClaimedDelivery: Sendable, Equatable {
    var eventID: UUID
    var appID: String
    var type: String
    /// Which attempt this is (1 for the first); also the claim's fencing token.
    var attempt: Int
    /// The request body: the event's JSON, exactly the bytes that are signed.
    var body: String
    /// The app's webhook now, or `nil` when it has none.
    var webhookURL: String?
    var webhookSecret: String?
}

/// The outbox's webhook deliveries as a work queue shared by every replica.
protocol WebhookDeliveryQueue: Sendable {
    /// Claims up to `limit` due deliveries for `lease`: no other dispatcher sees them until the lease ends (or the
    /// attempt is recorded). Each claim counts as an attempt.
    func claim(limit: Int, lease: Duration) async throws -> [ClaimedDelivery]
    /// Records a 2xx answer.
    func markDelivered(_ delivery: ClaimedDelivery, status: Int) async throws
    /// Records a failed attempt: `pending` again after `retryAfter`, or `dead` when the delivery's retry window
    /// (`giveUpAfter` from its creation or replay) is over or `giveUp` is set. Returns the new state, `nil` when the
    /// delivery moved on meanwhile (replayed, or delivered by another attempt).
    func markFailed(
        _ delivery: ClaimedDelivery, status: Int?, error: String, retryAfter: Duration, giveUpAfter: Duration,
        giveUp: Bool
    ) async throws -> WebhookDeliveryState?
}

/// ``WebhookDeliveryQueue`` on PostgreSQL (`entitlements.webhook_deliveries`).
struct WebhookDeliveryPostgresQueue: WebhookDeliveryQueue {
    let client: PostgresClient
    let logger: Logger

    func claim(limit: Int, lease: Duration) async throws -> [ClaimedDelivery] {
        let leaseMilliseconds: Double = Double(lease.milliseconds)
        // One statement, so the claim is atomic: SKIP LOCKED lets replicas take disjoint rows at the same moment,
        // and the moved `next_attempt_at` keeps the rows away from everyone once the statement's locks are gone.
        let rows = try await client.query(
            """
            WITH due AS (
                SELECT event_id FROM entitlements.webhook_deliveries
                WHERE state = 'pending' AND next_attempt_at <= now()
                ORDER BY next_attempt_at
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            ), claimed AS (
                UPDATE entitlements.webhook_deliveries w
                SET next_attempt_at = now() + \(leaseMilliseconds) * interval '1 millisecond',
                    attempts = w.attempts + 1
                FROM due WHERE w.event_id = due.event_id
                RETURNING w.event_id, w.app_id, w.attempts
            )
            SELECT c.event_id, c.app_id, e.type, c.attempts, \(unescaped: EventJSON.event)::text,
                s.webhook_url, s.webhook_secret
            FROM claimed c
            JOIN entitlements.events e ON e.event_id = c.event_id
            LEFT JOIN entitlements.app_settings s ON s.app_id = c.app_id
            """,
            logger: logger
        )
        var claimed: [ClaimedDelivery] = []
        for try await (id, app, type, attempt, body, url, secret) in rows.decode(
            (UUID, String, String, Int, String, String?, String?).self)
        {
            claimed.append(
                ClaimedDelivery(
                    eventID: id, appID: app, type: type, attempt: attempt, body: body, webhookURL: url,
                    webhookSecret: secret))
        }
        return claimed
    }

    func markDelivered(_ delivery: ClaimedDelivery, status: Int) async throws {
        // A success counts even when the claim is stale: the receiver has the event.
        try await client.run(
            """
            UPDATE entitlements.webhook_deliveries
            SET state = 'delivered', delivered_at = now(), last_status = \(status), last_error = NULL
            WHERE event_id = \(delivery.eventID) AND state = 'pending'
            """,
            logger: logger
        )
    }

    func markFailed(
        _ delivery: ClaimedDelivery, status: Int?, error: String, retryAfter: Duration, giveUpAfter: Duration,
        giveUp: Bool
    ) async throws -> WebhookDeliveryState? {
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
                last_status = \(status), last_error = \(error)
            WHERE event_id = \(delivery.eventID) AND state = 'pending' AND attempts = \(attempt)
            RETURNING state
            """,
            logger: logger
        )
        for try await state in rows.decode(String.self) { return WebhookDeliveryState(rawValue: state) }
        return nil
    }
}
