import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperModels

/// ``ConsoleSessionRepository`` on PostgreSQL (`gateway.console_sessions`). Every rule of a session's life is one
/// statement evaluated by the database's clock, so replicas agree on it.
struct ConsoleSessionPostgresRepository: ConsoleSessionRepository {
    let client: PostgresClient
    let logger: Logger

    func create(
        tokenHash: [UInt8], appID: String, keyID: String?, operatorFingerprint: [UInt8]?, user: SessionUser?,
        lifetime: Duration, idle: Duration
    ) async throws -> StoredConsoleSession {
        let sessionID = RandomToken.identifier(prefix: "ses", length: 16)
        // Sessions over for a day are removed here, by the index on their idle end (never later than their absolute
        // end): no sweeper needed.
        try await client.query(
            "DELETE FROM gateway.console_sessions WHERE idle_expires_at < now() - interval '1 day'", logger: logger)
        let rows = try await client.query(
            """
            INSERT INTO gateway.console_sessions
                (token_hash, session_id, app_id, key_id, operator_fingerprint, user_id, expires_at, idle_expires_at)
            SELECT \(ByteBuffer(bytes: tokenHash)), \(sessionID), app_id, \(keyID),
                   \(operatorFingerprint.map { ByteBuffer(bytes: $0) }), \(user?.userID),
                   now() + make_interval(secs => \(Self.seconds(lifetime))),
                   now() + make_interval(secs => \(Self.seconds(min(idle, lifetime))))
            FROM gateway.apps WHERE app_id = \(appID)
            RETURNING expires_at, idle_expires_at
            """,
            logger: logger)
        for try await (expires, idleExpires) in rows.decode((Date, Date).self) {
            return StoredConsoleSession(
                sessionID: sessionID, appID: appID, keyID: keyID, expiresAt: expires, idleExpiresAt: idleExpires,
                user: user)
        }
        throw GatewayError.appNotFound(appID)
    }

    func live(tokenHash: [UInt8], idle: Duration, operatorFingerprint: [UInt8]?) async throws
        -> StoredConsoleSession?
    {
        let idleSeconds = Self.seconds(idle)
        // The idle end moves only once a tenth of the idle timeout has passed since it last moved: most requests
        // read without writing.
        let rows = try await client.query(
            """
            WITH live AS (
                SELECT s.token_hash, s.session_id, s.app_id, s.key_id, s.expires_at, s.idle_expires_at,
                       u.user_id, u.email, u.role
                FROM gateway.console_sessions s
                LEFT JOIN gateway.api_keys k ON k.key_id = s.key_id AND k.app_id = s.app_id
                LEFT JOIN gateway.console_users u ON u.user_id = s.user_id AND u.app_id = s.app_id
                WHERE s.token_hash = \(ByteBuffer(bytes: tokenHash))
                  AND s.expires_at > now() AND s.idle_expires_at > now()
                  AND ((s.key_id IS NOT NULL AND k.revoked_at IS NULL AND k.kind = 'secret')
                       OR (s.user_id IS NOT NULL AND u.user_id IS NOT NULL)
                       OR (s.key_id IS NULL AND s.operator_fingerprint = \(operatorFingerprint.map { ByteBuffer(bytes: $0) })))
            ), touched AS (
                UPDATE gateway.console_sessions s
                SET idle_expires_at = least(s.expires_at, now() + make_interval(secs => \(idleSeconds)))
                FROM live
                WHERE s.token_hash = live.token_hash
                  AND live.idle_expires_at < least(live.expires_at, now() + make_interval(secs => \(idleSeconds)))
                      - make_interval(secs => \(idleSeconds / 10))
                RETURNING s.idle_expires_at
            )
            SELECT session_id, app_id, key_id, expires_at,
                   coalesce((SELECT idle_expires_at FROM touched), idle_expires_at), user_id, email, role
            FROM live
            """,
            logger: logger)
        for try await row in rows.decode((String, String, String?, Date, Date, String?, String?, String?).self) {
            var user: SessionUser?
            if let userID = row.5, let email = row.6, let role = row.7.flatMap(ConsoleRole.init(rawValue:)) {
                user = SessionUser(userID: userID, email: email, role: role)
            }
            return StoredConsoleSession(
                sessionID: row.0, appID: row.1, keyID: row.2, expiresAt: row.3, idleExpiresAt: row.4, user: user)
        }
        return nil
    }

    func switchApp(tokenHash: [UInt8], appID: String) async throws -> StoredConsoleSession? {
        let rows = try await client.query(
            """
            UPDATE gateway.console_sessions s SET app_id = a.app_id
            FROM gateway.apps a
            WHERE a.app_id = \(appID) AND s.token_hash = \(ByteBuffer(bytes: tokenHash)) AND s.key_id IS NULL
              AND s.user_id IS NULL
            RETURNING s.session_id, s.expires_at, s.idle_expires_at
            """,
            logger: logger)
        for try await (sessionID, expires, idleExpires) in rows.decode((String, Date, Date).self) {
            return StoredConsoleSession(
                sessionID: sessionID, appID: appID, keyID: nil, expiresAt: expires, idleExpiresAt: idleExpires)
        }
        return nil
    }

    func delete(tokenHash: [UInt8]) async throws {
        try await client.query(
            "DELETE FROM gateway.console_sessions WHERE token_hash = \(ByteBuffer(bytes: tokenHash))", logger: logger)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
