import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Writes events in the caller's transaction: the change and its event commit together or not at all. The event's
/// webhook deliveries (one per endpoint whose filters match) are written with it by the `events_fan_out` trigger.
///
/// Every event of a customer names the customer (`app_user_id`): the id the change was made under when the caller
/// knows one (the presenter, the path's customer), otherwise the customer's first id (``customerName(_:)``), as for a
/// refund a store notification tells about a purchase (the purchase's owner). Only app-level events name none.
enum EventOutbox {
    static func append(
        _ type: EventType,
        payload: EventPayload,
        appID: String,
        customerID: UUID,
        appUserID: String?,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let document = String(decoding: try JSONBody.encode(payload), as: UTF8.self)
        let typeName: String = type.rawValue
        let environment: String? = payload.environment
        try await connection.run(
            Append.self, try PostgresBindings(appID, customerID, appUserID, typeName, environment, document),
            logger: logger)
    }

    /// Writes an app-level event (one that names no customer) unless the app has an event under `key` already;
    /// returns whether it was new. Fanned out to the app's webhook endpoints like every event.
    static func appendAppEvent(
        _ type: EventType,
        payload: EventPayload,
        key: String,
        appID: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool {
        let document = String(decoding: try JSONBody.encode(payload), as: UTF8.self)
        let typeName: String = type.rawValue
        let environment: String? = payload.environment
        let rows = try await connection.run(
            AppendOnce.self, try PostgresBindings(appID, key, typeName, environment, document), logger: logger
        ) { try $0.decode(Int.self) }
        return !rows.isEmpty
    }

    private enum AppendOnce: PreparedSQL {
        static let sql = """
            WITH event AS (
                INSERT INTO entitlements.events (app_id, customer_id, app_user_id, idempotency_key, type, environment,
                    payload)
                VALUES ($1::text, NULL, NULL, $2::text, $3::text, $4::text, $5::text::jsonb)
                ON CONFLICT (app_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
                RETURNING event_id, app_id
            )
            SELECT 1 FROM event
            """
    }

    private enum Append: PreparedSQL {
        static let sql = """
            WITH \(appending(
                "SELECT $1::text, $2::uuid, $3::text, $4::text, $5::text, $6::text::jsonb"))
            SELECT count(*) FROM event
            """
    }

    /// An event as the common table expression `event`, for a statement that appends along with other writes:
    /// `values` is a query of the event's app id, customer id, app user id (NULL: the customer's first id), type,
    /// environment and payload (`jsonb`).
    static func appending(_ values: String) -> String {
        """
        event AS (
            INSERT INTO entitlements.events (app_id, customer_id, app_user_id, type, environment, payload)
            SELECT v.app_id, v.customer_id, coalesce(v.app_user_id, \(customerName("v.customer_id"))), v.type,
                   v.environment, v.payload
            FROM (\(values)) AS v (app_id, customer_id, app_user_id, type, environment, payload)
            RETURNING event_id, app_id
        )
        """
    }

    /// The id an event names the customer `customer` (an SQL expression of its id) by when the change came without
    /// one: the customer's first id (the oldest alias, then the least), the one it was created under. NULL for no
    /// customer (app-level events).
    static func customerName(_ customer: String) -> String {
        """
        (SELECT a.app_user_id FROM entitlements.aliases a WHERE a.customer_id = \(customer)
         ORDER BY a.created_at, a.app_user_id LIMIT 1)
        """
    }
}
