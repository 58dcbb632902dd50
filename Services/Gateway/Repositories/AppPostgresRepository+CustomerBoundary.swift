import Foundation
import Logging
import PostgresNIO
import ShopkeeperCustomerTokens
import ShopkeeperModels

/// The customer boundary's rows: the app's mode and its sealed customer token secrets.
extension AppPostgresRepository {
    func customerBoundary(appID: String) async throws -> CustomerBoundary {
        let rows = try await client.query(
            "SELECT customer_boundary FROM gateway.apps WHERE app_id = \(appID)", logger: logger)
        for try await mode in rows.decode(String.self) {
            return CustomerBoundary(
                mode: CustomerBoundaryMode(rawValue: mode) ?? .signed, secrets: try await secretInfos(appID: appID))
        }
        throw GatewayError.appNotFound(appID)
    }

    func setCustomerBoundary(appID: String, mode: CustomerBoundaryMode) async throws -> CustomerBoundary {
        // One statement decides: `signed` only while the app has a live secret (no read-then-write race with a
        // revocation).
        let rows = try await client.query(
            """
            UPDATE gateway.apps SET customer_boundary = \(mode.rawValue)
            WHERE app_id = \(appID)
              AND (\(mode.rawValue) = 'open' OR EXISTS (
                  SELECT 1 FROM gateway.customer_token_secrets s WHERE s.app_id = \(appID) AND s.revoked_at IS NULL))
            RETURNING app_id
            """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) {
            return try await customerBoundary(appID: appID)
        }
        _ = try await app(appID: appID)
        throw GatewayError.customerTokenSecretRequired
    }

    func createTokenSecret(appID: String, secret: CustomerTokenSecret) async throws -> CustomerTokenSecretInfo {
        let sealed = try box.seal(secret.secret, appID: appID, secretID: secret.id)
        let rows = try await client.query(
            """
            INSERT INTO gateway.customer_token_secrets (secret_id, app_id, sealed, sealing_key_id)
            SELECT \(secret.id), app_id, \(ByteBuffer(bytes: sealed)), \(box.keyID)
            FROM gateway.apps WHERE app_id = \(appID)
            RETURNING created_at
            """,
            logger: logger
        )
        for try await createdAt in rows.decode(Date.self) {
            return CustomerTokenSecretInfo(secretID: secret.id, createdAt: createdAt, revokedAt: nil)
        }
        throw GatewayError.appNotFound(appID)
    }

    func revokeTokenSecret(appID: String, secretID: String) async throws -> CustomerTokenSecretInfo {
        let rows = try await client.query(
            """
            UPDATE gateway.customer_token_secrets SET revoked_at = coalesce(revoked_at, now())
            WHERE app_id = \(appID) AND secret_id = \(secretID)
            RETURNING secret_id, created_at, revoked_at
            """,
            logger: logger
        )
        for try await (id, createdAt, revokedAt) in rows.decode((String, Date, Date?).self) {
            return CustomerTokenSecretInfo(secretID: id, createdAt: createdAt, revokedAt: revokedAt)
        }
        throw GatewayError.customerTokenSecretNotFound(secretID)
    }

    /// The app's live secrets as listed, oldest first.
    private func secretInfos(appID: String) async throws -> [CustomerTokenSecretInfo] {
        let rows = try await client.query(
            """
            SELECT secret_id, created_at FROM gateway.customer_token_secrets
            WHERE app_id = \(appID) AND revoked_at IS NULL ORDER BY created_at, secret_id
            """,
            logger: logger
        )
        var secrets: [CustomerTokenSecretInfo] = []
        for try await (id, createdAt) in rows.decode((String, Date).self) {
            secrets.append(CustomerTokenSecretInfo(secretID: id, createdAt: createdAt, revokedAt: nil))
        }
        return secrets
    }

    /// The app's live secrets, opened; one that does not open (another master key) is left out and logged, so
    /// tokens signed with it are refused rather than trusted.
    func openSecrets(appID: String) async throws -> [CustomerTokenSecret] {
        let rows = try await client.query(
            """
            SELECT secret_id, sealed, sealing_key_id FROM gateway.customer_token_secrets
            WHERE app_id = \(appID) AND revoked_at IS NULL ORDER BY created_at DESC, secret_id
            """,
            logger: logger
        )
        var secrets: [CustomerTokenSecret] = []
        for try await (id, sealed, keyID) in rows.decode((String, ByteBuffer, String).self) {
            guard let text = box.open(Data(sealed.readableBytesView), appID: appID, secretID: id, keyID: keyID) else {
                logger.error(
                    "customer token secret does not open",
                    metadata: ["app_id": "\(appID)", "secret_id": "\(id)", "sealing_key_id": "\(keyID)"])
                continue
            }
            secrets.append(CustomerTokenSecret(id: id, secret: text))
        }
        return secrets
    }
}
