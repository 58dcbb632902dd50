import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperModels

/// ``AppRepository`` on PostgreSQL (schema `gateway`).
struct AppPostgresRepository: AppRepository {
    let client: PostgresClient
    /// Seals and opens customer token secrets and answer signing keys.
    let box: GatewaySecretBox
    let logger: Logger

    func createApp(name: String) async throws -> AppInfo {
        let appID = RandomToken.identifier(prefix: "app", length: 16)
        let rows = try await client.query(
            "INSERT INTO gateway.apps (app_id, name) VALUES (\(appID), \(name)) RETURNING created_at",
            logger: logger
        )
        for try await createdAt in rows.decode(Date.self) {
            return AppInfo(appID: appID, name: name, createdAt: createdAt)
        }
        throw GatewayError.appNotFound(appID)
    }

    func apps() async throws -> [AppInfo] {
        let rows = try await client.query(
            "SELECT app_id, name, created_at FROM gateway.apps ORDER BY created_at, app_id",
            logger: logger
        )
        var apps: [AppInfo] = []
        for try await (appID, name, createdAt) in rows.decode((String, String, Date).self) {
            apps.append(AppInfo(appID: appID, name: name, createdAt: createdAt))
        }
        return apps
    }

    func app(appID: String) async throws -> AppInfo {
        let rows = try await client.query(
            "SELECT app_id, name, created_at FROM gateway.apps WHERE app_id = \(appID)",
            logger: logger
        )
        for try await (appID, name, createdAt) in rows.decode((String, String, Date).self) {
            return AppInfo(appID: appID, name: name, createdAt: createdAt)
        }
        throw GatewayError.appNotFound(appID)
    }

    func createKey(appID: String, kind: APIKeyKind, label: String?, keyHash: [UInt8], prefix: String) async throws
        -> APIKeyInfo
    {
        let keyID = RandomToken.identifier(prefix: "key", length: 16)
        let rows = try await client.query(
            """
            INSERT INTO gateway.api_keys (key_id, app_id, kind, key_hash, prefix, label)
            SELECT \(keyID), app_id, \(kind.rawValue), \(ByteBuffer(bytes: keyHash)), \(prefix), \(label)
            FROM gateway.apps WHERE app_id = \(appID)
            RETURNING created_at
            """,
            logger: logger
        )
        for try await createdAt in rows.decode(Date.self) {
            return APIKeyInfo(
                keyID: keyID, appID: appID, kind: kind, prefix: prefix, label: label, createdAt: createdAt,
                revokedAt: nil
            )
        }
        throw GatewayError.appNotFound(appID)
    }

    func keys(appID: String) async throws -> [APIKeyInfo] {
        _ = try await app(appID: appID)
        let rows = try await client.query(
            """
            SELECT key_id, kind, prefix, label, created_at, revoked_at FROM gateway.api_keys
            WHERE app_id = \(appID) ORDER BY created_at, key_id
            """,
            logger: logger
        )
        var keys: [APIKeyInfo] = []
        for try await row in rows.decode(KeyRow.self) {
            keys.append(Self.keyInfo(row, appID: appID))
        }
        return keys
    }

    func revokeKey(appID: String, keyID: String) async throws -> APIKeyInfo {
        let rows = try await client.query(
            """
            UPDATE gateway.api_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE app_id = \(appID) AND key_id = \(keyID)
            RETURNING key_id, kind, prefix, label, created_at, revoked_at
            """,
            logger: logger
        )
        for try await row in rows.decode(KeyRow.self) {
            return Self.keyInfo(row, appID: appID)
        }
        throw GatewayError.keyNotFound(keyID)
    }

    /// `key_id, kind, prefix, label, created_at, revoked_at`.
    private typealias KeyRow = (String, String, String, String?, Date, Date?)

    private static func keyInfo(_ row: KeyRow, appID: String) -> APIKeyInfo {
        APIKeyInfo(
            keyID: row.0,
            appID: appID,
            kind: APIKeyKind(rawValue: row.1) ?? .public,
            prefix: row.2,
            label: row.3,
            createdAt: row.4,
            revokedAt: row.5
        )
    }

    func identity(keyHash: [UInt8]) async throws -> KeyIdentity? {
        let rows = try await client.query(
            """
            SELECT k.key_id, k.app_id, k.kind, a.customer_boundary, s.key_id, s.sealed, s.sealing_key_id
            FROM gateway.api_keys k JOIN gateway.apps a ON a.app_id = k.app_id
            LEFT JOIN LATERAL (
                SELECT key_id, sealed, sealing_key_id FROM gateway.answer_signing_keys s
                WHERE s.app_id = k.app_id AND s.retired_at IS NULL AND s.activated_at IS NOT NULL
                ORDER BY s.activated_at DESC, s.key_id DESC LIMIT 1
            ) s ON true
            WHERE k.key_hash = \(ByteBuffer(bytes: keyHash)) AND k.revoked_at IS NULL
            """,
            logger: logger
        )
        var found: KeyIdentity?
        for try await (keyID, appID, kind, boundary, answerKeyID, sealed, sealingKeyID) in rows.decode(
            (String, String, String, String, String?, ByteBuffer?, String?).self)
        {
            guard let kind = APIKeyKind(rawValue: kind) else { return nil }
            // An unknown mode fails closed.
            found = KeyIdentity(
                keyID: keyID, appID: appID, kind: kind, boundary: CustomerBoundaryMode(rawValue: boundary) ?? .signed,
                answerSigner: answerSigner(
                    appID: appID, keyID: answerKeyID, sealed: sealed, sealingKeyID: sealingKeyID))
        }
        guard var identity = found else { return nil }
        if identity.boundary == .signed {
            identity.tokenKeys = try await tokenKeys(appID: identity.appID)
        }
        return identity
    }
}
