import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Which of an app's events to list, newest first.
struct EventFilter: Sendable, Equatable {
    /// Only events of the customer this id names now (under any of its ids).
    var appUserID: String?
    var type: EventType?
    /// Only events older than this one.
    var before: UUID?
    var limit: Int
}

/// A page of events, rendered as JSON.
struct EventPage: Sendable {
    /// Each event with its delivery, as JSON objects, newest first.
    var events: [String]
    /// The id to pass as `before` for the next page, when there may be one.
    var nextBefore: UUID?
}

/// Reads an app's events and puts their webhook deliveries back in line.
protocol EventRepository: Sendable {
    /// A page of the app's events; throws ``RequestError/invalidQuery(_:)`` when `before` is not one of its events.
    func events(appID: String, filter: EventFilter) async throws -> EventPage
    /// The event as JSON; throws ``EntitlementsError/eventNotFound(_:)`` when the app has no such event.
    func event(appID: String, id: UUID) async throws -> String
    /// Makes the event's delivery pending now, with a fresh retry window, creating it when there was none; returns
    /// the event as JSON. Throws ``WebhookError/notConfigured`` when the app has no webhook.
    func replay(appID: String, id: UUID) async throws -> String
}

/// ``EventRepository`` on PostgreSQL.
struct EventPostgresRepository: EventRepository {
    let client: PostgresClient
    let logger: Logger

    func events(appID: String, filter: EventFilter) async throws -> EventPage {
        try await client.withConnection { connection in
            var before: Int64?
            if let id = filter.before {
                before = try await sequence(of: id, appID: appID, on: connection)
                guard before != nil else { throw EntitlementsError.eventNotFound(id.uuidString.lowercased()) }
            }
            let user: String? = filter.appUserID
            let type: String? = filter.type?.rawValue
            let fetch: Int = filter.limit + 1
            let rows = try await connection.checkedQuery(
                """
                SELECT e.event_id, \(unescaped: EventJSON.eventWithDelivery)::text
                FROM entitlements.events e
                LEFT JOIN entitlements.webhook_deliveries d ON d.event_id = e.event_id
                WHERE e.app_id = \(appID)
                    AND (\(type)::text IS NULL OR e.type = \(type))
                    AND (\(before)::int8 IS NULL OR e.sequence < \(before))
                    AND (\(user)::text IS NULL OR e.customer_id IN (
                        SELECT c.customer_id FROM entitlements.aliases a
                        JOIN entitlements.customers c ON c.customer_id = a.customer_id OR c.merged_into = a.customer_id
                        WHERE a.app_id = \(appID) AND a.app_user_id = \(user)))
                ORDER BY e.sequence DESC
                LIMIT \(fetch)
                """,
                logger: logger
            )
            var page: [(UUID, String)] = []
            for try await row in rows.decode((UUID, String).self) { page.append(row) }
            let more = page.count > filter.limit
            let shown = page.prefix(filter.limit)
            return EventPage(events: shown.map(\.1), nextBefore: more ? shown.last?.0 : nil)
        }
    }

    func event(appID: String, id: UUID) async throws -> String {
        try await client.withConnection { connection in
            try await render(id, appID: appID, on: connection)
        }
    }

    func replay(appID: String, id: UUID) async throws -> String {
        try await client.transaction(logger: logger) { connection in
            guard try await sequence(of: id, appID: appID, on: connection) != nil else {
                throw EntitlementsError.eventNotFound(id.uuidString.lowercased())
            }
            let configured = try await connection.checkedQuery(
                """
                SELECT 1 FROM entitlements.app_settings
                WHERE app_id = \(appID) AND webhook_url IS NOT NULL
                    AND (webhook_secret_sealed IS NOT NULL OR webhook_secret_unsealed IS NOT NULL)
                """,
                logger: logger
            )
            var hasWebhook = false
            for try await _ in configured.decode(Int.self) { hasWebhook = true }
            guard hasWebhook else { throw WebhookError.notConfigured }
            // `attempts` restarts (the backoff starts over) and so does the retry window (`created_at`); an attempt
            // still in flight from before cannot overwrite the new state, its `attempts` no longer matches.
            try await connection.run(
                """
                INSERT INTO entitlements.webhook_deliveries (event_id, app_id) VALUES (\(id), \(appID))
                ON CONFLICT (event_id) DO UPDATE SET
                    state = 'pending', attempts = 0, next_attempt_at = now(), delivered_at = NULL, created_at = now(),
                    lease_until = NULL
                """,
                logger: logger
            )
            return try await render(id, appID: appID, on: connection)
        }
    }

    /// The event's position in the outbox, or `nil` when the app has no such event.
    private func sequence(of id: UUID, appID: String, on connection: PostgresConnection) async throws -> Int64? {
        let rows = try await connection.checkedQuery(
            "SELECT sequence FROM entitlements.events WHERE event_id = \(id) AND app_id = \(appID)",
            logger: logger
        )
        for try await sequence in rows.decode(Int64.self) { return sequence }
        return nil
    }

    private func render(_ id: UUID, appID: String, on connection: PostgresConnection) async throws -> String {
        let rows = try await connection.checkedQuery(
            """
            SELECT \(unescaped: EventJSON.eventWithDelivery)::text
            FROM entitlements.events e
            LEFT JOIN entitlements.webhook_deliveries d ON d.event_id = e.event_id
            WHERE e.event_id = \(id) AND e.app_id = \(appID)
            """,
            logger: logger
        )
        for try await json in rows.decode(String.self) { return json }
        throw EntitlementsError.eventNotFound(id.uuidString.lowercased())
    }
}
