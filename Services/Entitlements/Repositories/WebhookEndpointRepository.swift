import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase

/// Reads and changes an app's webhook endpoints. Secrets are generated here, returned once and stored sealed.
protocol WebhookEndpointRepository: Sendable {
    /// The app's endpoints, oldest first.
    func endpoints(appID: String) async throws -> [WebhookEndpoint]
    /// One endpoint; throws ``WebhookError/endpointNotFound(_:)``.
    func endpoint(appID: String, id: UUID) async throws -> WebhookEndpoint
    /// Creates an endpoint with a new secret; throws ``WebhookError/tooManyEndpoints(limit:)`` when the app has
    /// ``WebhookEndpointPostgresRepository/maximumPerApp`` already.
    func create(_ change: WebhookEndpointChange, appID: String) async throws -> WebhookEndpointWithSecret
    /// Applies `change` to the endpoint atomically; throws ``WebhookError/endpointNotFound(_:)``.
    func update(_ change: WebhookEndpointChange, appID: String, id: UUID) async throws -> WebhookEndpoint
    /// Deletes the endpoint (its deliveries still pending are never attempted again); throws
    /// ``WebhookError/endpointNotFound(_:)``.
    func delete(appID: String, id: UUID) async throws
    /// Replaces the endpoint's secret, effective at once; throws ``WebhookError/endpointNotFound(_:)``.
    func rotateSecret(appID: String, id: UUID) async throws -> WebhookEndpointWithSecret
    /// How the endpoint's deliveries are going; throws ``WebhookError/endpointNotFound(_:)``.
    func stats(appID: String, id: UUID) async throws -> WebhookEndpointStats
}

/// ``WebhookEndpointRepository`` on PostgreSQL (`entitlements.webhook_endpoints`).
struct WebhookEndpointPostgresRepository: WebhookEndpointRepository {
    let client: PostgresClient
    let box: WebhookSecretBox
    let logger: Logger

    /// Most endpoints one app may have (each event is sent to each of them that matches).
    static let maximumPerApp = 16
    /// The transaction-scoped advisory lock class under which an app's endpoints are counted and created ('SHKE').
    private static let lockClass: Int32 = 1_397_246_789

    /// A new signing secret: `whsec_` and 32 base-62 characters (190 bits), like the settings webhook's.
    static func newSecret() -> String {
        SettingsPostgresRepository.newWebhookSecret()
    }

    /// The columns of an endpoint, in ``decode(_:)``'s order (constant SQL, for `\(unescaped:)`).
    static let columns = """
        endpoint_id, url, description, event_types, environments, format, enabled, from_settings,
        entitlements.iso(created_at), entitlements.iso(updated_at)
        """

    private typealias Row = (UUID, String, String, [String]?, [String]?, String, Bool, Bool, String, String)

    private static func endpoint(_ row: Row) -> WebhookEndpoint {
        WebhookEndpoint(
            id: row.0, url: row.1, description: row.2, eventTypes: row.3, environments: row.4,
            format: WebhookFormat(rawValue: row.5) ?? .shopkeeper, enabled: row.6, fromSettings: row.7,
            createdAt: row.8, updatedAt: row.9)
    }

    private func first(_ rows: PostgresRowSequence, id: UUID) async throws -> WebhookEndpoint {
        for try await row in rows.decode(Row.self) { return Self.endpoint(row) }
        throw WebhookError.endpointNotFound(id.uuidString.lowercased())
    }

    func endpoints(appID: String) async throws -> [WebhookEndpoint] {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.columns) FROM entitlements.webhook_endpoints
            WHERE app_id = \(appID) ORDER BY created_at, endpoint_id
            """,
            logger: logger
        )
        var found: [WebhookEndpoint] = []
        for try await row in rows.decode(Row.self) { found.append(Self.endpoint(row)) }
        return found
    }

    func endpoint(appID: String, id: UUID) async throws -> WebhookEndpoint {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.columns) FROM entitlements.webhook_endpoints
            WHERE app_id = \(appID) AND endpoint_id = \(id)
            """,
            logger: logger
        )
        return try await first(rows, id: id)
    }

    func create(_ change: WebhookEndpointChange, appID: String) async throws -> WebhookEndpointWithSecret {
        let secret = Self.newSecret()
        let sealed = ByteBuffer(bytes: try box.seal(secret, appID: appID))
        let keyID: String = box.keyID
        let url: String = change.url ?? ""
        let description: String = change.description ?? ""
        let types: [String]? = change.eventTypes.value ?? nil
        let environments: [String]? = change.environments.value ?? nil
        let format: String = (change.format ?? .shopkeeper).rawValue
        let enabled: Bool = change.enabled ?? true
        let limit: Int = Self.maximumPerApp
        let lockClass = Self.lockClass
        return try await client.transaction(logger: logger) { connection in
            // Creations of one app take turns, so the count holds when the row is inserted.
            try await connection.run(
                "SELECT pg_advisory_xact_lock(\(lockClass), hashtext(\(appID)))", logger: logger)
            let rows = try await connection.checkedQuery(
                """
                INSERT INTO entitlements.webhook_endpoints (
                    app_id, url, description, event_types, environments, format, enabled, secret_sealed, secret_key_id)
                SELECT \(appID), \(url), \(description), \(types), \(environments), \(format), \(enabled), \(sealed),
                    \(keyID)
                WHERE (SELECT count(*) FROM entitlements.webhook_endpoints WHERE app_id = \(appID)) < \(limit)
                RETURNING \(unescaped: Self.columns)
                """,
                logger: logger
            )
            for try await row in rows.decode(Row.self) {
                return WebhookEndpointWithSecret(endpoint: Self.endpoint(row), secret: secret)
            }
            throw WebhookError.tooManyEndpoints(limit: limit)
        }
    }

    func update(_ change: WebhookEndpointChange, appID: String, id: UUID) async throws -> WebhookEndpoint {
        let url: String? = change.url
        let description: String? = change.description
        let typesGiven: Bool = change.eventTypes.value != nil
        let types: [String]? = change.eventTypes.value ?? nil
        let environmentsGiven: Bool = change.environments.value != nil
        let environments: [String]? = change.environments.value ?? nil
        let format: String? = change.format?.rawValue
        let enabled: Bool? = change.enabled
        // One statement: concurrent updates each apply their change to the other's result.
        let rows = try await client.query(
            """
            UPDATE entitlements.webhook_endpoints SET
                url = coalesce(\(url), url),
                description = coalesce(\(description), description),
                event_types = CASE WHEN \(typesGiven) THEN \(types)::text[] ELSE event_types END,
                environments = CASE WHEN \(environmentsGiven) THEN \(environments)::text[] ELSE environments END,
                format = coalesce(\(format), format),
                enabled = coalesce(\(enabled), enabled),
                updated_at = now()
            WHERE app_id = \(appID) AND endpoint_id = \(id)
            RETURNING \(unescaped: Self.columns)
            """,
            logger: logger
        )
        return try await first(rows, id: id)
    }

    func delete(appID: String, id: UUID) async throws {
        let rows = try await client.query(
            """
            DELETE FROM entitlements.webhook_endpoints WHERE app_id = \(appID) AND endpoint_id = \(id) RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows.decode(Int.self) { return }
        throw WebhookError.endpointNotFound(id.uuidString.lowercased())
    }

    func rotateSecret(appID: String, id: UUID) async throws -> WebhookEndpointWithSecret {
        let secret = Self.newSecret()
        let sealed = ByteBuffer(bytes: try box.seal(secret, appID: appID))
        let keyID: String = box.keyID
        let rows = try await client.query(
            """
            UPDATE entitlements.webhook_endpoints SET secret_sealed = \(sealed), secret_key_id = \(keyID),
                updated_at = now()
            WHERE app_id = \(appID) AND endpoint_id = \(id)
            RETURNING \(unescaped: Self.columns)
            """,
            logger: logger
        )
        return WebhookEndpointWithSecret(endpoint: try await first(rows, id: id), secret: secret)
    }

    func stats(appID: String, id: UUID) async throws -> WebhookEndpointStats {
        let rows = try await client.query(
            """
            SELECT
                (SELECT count(*) FROM entitlements.webhook_deliveries d
                 WHERE d.endpoint_id = p.endpoint_id AND d.state = 'delivered')::integer,
                (SELECT count(*) FROM entitlements.webhook_deliveries d
                 WHERE d.endpoint_id = p.endpoint_id AND d.state = 'pending')::integer,
                (SELECT count(*) FROM entitlements.webhook_deliveries d
                 WHERE d.endpoint_id = p.endpoint_id AND d.state = 'pending' AND d.last_error IS NOT NULL)::integer,
                (SELECT count(*) FROM entitlements.webhook_deliveries d
                 WHERE d.endpoint_id = p.endpoint_id AND d.state = 'dead')::integer,
                entitlements.iso(last.last_attempt_at), last.last_status, last.last_error
            FROM entitlements.webhook_endpoints p
            LEFT JOIN LATERAL (
                SELECT d.last_attempt_at, d.last_status, d.last_error FROM entitlements.webhook_deliveries d
                WHERE d.endpoint_id = p.endpoint_id AND d.last_attempt_at IS NOT NULL
                ORDER BY d.last_attempt_at DESC LIMIT 1
            ) last ON true
            WHERE p.app_id = \(appID) AND p.endpoint_id = \(id)
            """,
            logger: logger
        )
        for try await (delivered, pending, failing, dead, at, status, error) in rows.decode(
            (Int, Int, Int, Int, String?, Int?, String?).self)
        {
            return WebhookEndpointStats(
                endpointID: id, delivered: delivered, pending: pending, failing: failing, dead: dead,
                lastAttemptAt: at, lastStatus: status, lastError: error)
        }
        throw WebhookError.endpointNotFound(id.uuidString.lowercased())
    }
}

extension WebhookEndpointInput.FieldChange {
    /// The value given, or `nil` when the field was omitted.
    var value: Value? {
        if case .set(let value) = self { return value }
        return nil
    }
}
