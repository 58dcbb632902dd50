import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP

/// Writes events in the caller's transaction, with a webhook delivery when the app has a webhook: the change and
/// its event commit together or not at all.
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

    private enum Append: PreparedSQL {
        static let sql = """
            WITH event AS (
                INSERT INTO entitlements.events (app_id, customer_id, app_user_id, type, environment, payload)
                VALUES ($1::text, $2::uuid, $3::text, $4::text, $5::text, $6::text::jsonb)
                RETURNING event_id, app_id
            )
            INSERT INTO entitlements.webhook_deliveries (event_id, app_id)
            SELECT event.event_id, event.app_id FROM event
            JOIN entitlements.app_settings s ON s.app_id = event.app_id
            WHERE s.webhook_url IS NOT NULL
            """
    }
}
