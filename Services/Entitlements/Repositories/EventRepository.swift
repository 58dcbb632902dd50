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
    /// Makes the event's deliveries pending now, with a fresh retry window, creating them where there were none: to
    /// `endpointID`, or else to every enabled endpoint whose filters match the event now. Returns the event as JSON.
    /// Throws ``WebhookError/notConfigured`` when no enabled endpoint is left to send it to,
    /// ``WebhookError/endpointNotFound(_:)`` when the app has no endpoint `endpointID`.
    func replay(appID: String, id: UUID, endpointID: UUID?) async throws -> String
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
                \(unescaped: EventJSON.deliveryJoin)
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

    func replay(appID: String, id: UUID, endpointID: UUID?) async throws -> String {
        try await client.transaction(logger: logger) { connection in
            guard try await sequence(of: id, appID: appID, on: connection) != nil else {
                throw EntitlementsError.eventNotFound(id.uuidString.lowercased())
            }
            // `attempts` restarts (the backoff starts over) and so does the retry window (`created_at`); an attempt
            // still in flight from before cannot overwrite the new state, its `attempts` no longer matches.
            let replayed = try await connection.checkedQuery(
                """
                INSERT INTO entitlements.webhook_deliveries (event_id, app_id, endpoint_id)
                SELECT e.event_id, e.app_id, p.endpoint_id
                FROM entitlements.events e
                JOIN entitlements.webhook_endpoints p ON p.app_id = e.app_id AND p.enabled
                WHERE e.event_id = \(id) AND e.app_id = \(appID) AND CASE
                    WHEN \(endpointID)::uuid IS NULL
                    THEN entitlements.endpoint_matches(p.event_types, p.environments, e.type, e.environment)
                    ELSE p.endpoint_id = \(endpointID) END
                ON CONFLICT (event_id, endpoint_id) DO UPDATE SET
                    state = 'pending', attempts = 0, next_attempt_at = now(), delivered_at = NULL, created_at = now(),
                    lease_until = NULL
                RETURNING 1
                """,
                logger: logger
            )
            var count = 0
            for try await _ in replayed.decode(Int.self) { count += 1 }
            if count == 0 {
                if let endpointID, !(try await endpointExists(endpointID, appID: appID, on: connection)) {
                    throw WebhookError.endpointNotFound(endpointID.uuidString.lowercased())
                }
                throw WebhookError.notConfigured
            }
            return try await render(id, appID: appID, on: connection)
        }
    }

    /// Whether the app has the endpoint (enabled or not).
    private func endpointExists(_ id: UUID, appID: String, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.checkedQuery(
            "SELECT 1 FROM entitlements.webhook_endpoints WHERE endpoint_id = \(id) AND app_id = \(appID)",
            logger: logger
        )
        for try await _ in rows.decode(Int.self) { return true }
        return false
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
            \(unescaped: EventJSON.deliveryJoin)
            WHERE e.event_id = \(id) AND e.app_id = \(appID)
            """,
            logger: logger
        )
        for try await json in rows.decode(String.self) { return json }
        throw EntitlementsError.eventNotFound(id.uuidString.lowercased())
    }
}
