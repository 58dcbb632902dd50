import Foundation
import Logging
import PostgresNIO
import ShopkeeperCustomerTokens
import ShopkeeperModels

/// The customer boundary's rows: the app's mode and the keys of its customer tokens (`gateway.customer_token_keys`:
/// sealed HS256 secrets and registered ES256 public keys).
extension AppPostgresRepository {
    func customerBoundary(appID: String) async throws -> CustomerBoundary {
        let rows = try await client.query(
            "SELECT customer_boundary FROM gateway.apps WHERE app_id = \(appID)", logger: logger)
        for try await mode in rows.decode(String.self) {
            var boundary = CustomerBoundary(mode: CustomerBoundaryMode(rawValue: mode) ?? .signed, secrets: [])
            let keys = try await client.query(
                """
                SELECT key_id, algorithm, public_key, created_at FROM gateway.customer_token_keys
                WHERE app_id = \(appID) AND revoked_at IS NULL ORDER BY created_at, key_id
                """,
                logger: logger
            )
            for try await (id, algorithm, publicKey, createdAt) in keys.decode((String, String, String?, Date).self) {
                if algorithm == "ES256", let publicKey {
                    boundary.publicKeys.append(
                        CustomerTokenPublicKeyInfo(
                            keyID: id, publicKey: publicKey, createdAt: createdAt, revokedAt: nil))
                } else {
                    boundary.secrets.append(CustomerTokenSecretInfo(secretID: id, createdAt: createdAt, revokedAt: nil))
                }
            }
            return boundary
        }
        throw GatewayError.appNotFound(appID)
    }

    func setCustomerBoundary(appID: String, mode: CustomerBoundaryMode) async throws -> CustomerBoundary {
        // One statement decides: `signed` only while the app has a live key (no read-then-write race with a
        // revocation).
        let rows = try await client.query(
            """
            UPDATE gateway.apps SET customer_boundary = \(mode.rawValue)
            WHERE app_id = \(appID)
              AND (\(mode.rawValue) = 'open' OR EXISTS (
                  SELECT 1 FROM gateway.customer_token_keys k WHERE k.app_id = \(appID) AND k.revoked_at IS NULL))
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
            INSERT INTO gateway.customer_token_keys (key_id, app_id, algorithm, sealed, sealing_key_id)
            SELECT \(secret.id), app_id, 'HS256', \(ByteBuffer(bytes: sealed)), \(box.keyID)
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
        guard let (_, createdAt, revokedAt) = try await revokeKey(appID: appID, keyID: secretID, algorithm: "HS256")
        else { throw GatewayError.customerTokenSecretNotFound(secretID) }
        return CustomerTokenSecretInfo(secretID: secretID, createdAt: createdAt, revokedAt: revokedAt)
    }

    func registerTokenPublicKey(appID: String, key: CustomerTokenPublicKey) async throws -> CustomerTokenPublicKeyInfo {
        let rows = try await client.query(
            """
            INSERT INTO gateway.customer_token_keys (key_id, app_id, algorithm, public_key)
            SELECT \(key.id), app_id, 'ES256', \(key.pem) FROM gateway.apps WHERE app_id = \(appID)
            RETURNING created_at
            """,
            logger: logger
        )
        for try await createdAt in rows.decode(Date.self) {
            return CustomerTokenPublicKeyInfo(keyID: key.id, publicKey: key.pem, createdAt: createdAt, revokedAt: nil)
        }
        throw GatewayError.appNotFound(appID)
    }

    func revokeTokenPublicKey(appID: String, keyID: String) async throws -> CustomerTokenPublicKeyInfo {
        guard
            let (publicKey, createdAt, revokedAt) = try await revokeKey(appID: appID, keyID: keyID, algorithm: "ES256")
        else { throw GatewayError.customerTokenPublicKeyNotFound(keyID) }
        return CustomerTokenPublicKeyInfo(
            keyID: keyID, publicKey: publicKey ?? "", createdAt: createdAt, revokedAt: revokedAt)
    }

    /// Marks one key of `algorithm` revoked (idempotent): its public key, creation and revocation, or `nil`.
    private func revokeKey(appID: String, keyID: String, algorithm: String) async throws
        -> (String?, Date, Date?)?
    {
        let rows = try await client.query(
            """
            UPDATE gateway.customer_token_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE app_id = \(appID) AND key_id = \(keyID) AND algorithm = \(algorithm)
            RETURNING public_key, created_at, revoked_at
            """,
            logger: logger
        )
        for try await row in rows.decode((String?, Date, Date?).self) {
            return row
        }
        return nil
    }

    /// The app's live keys, secrets opened; a secret that does not open (another master key) is left out and
    /// logged, so tokens signed with it are refused rather than trusted.
    func tokenKeys(appID: String) async throws -> CustomerTokenKeys {
        let rows = try await client.query(
            """
            SELECT key_id, algorithm, sealed, sealing_key_id, public_key FROM gateway.customer_token_keys
            WHERE app_id = \(appID) AND revoked_at IS NULL ORDER BY created_at DESC, key_id
            """,
            logger: logger
        )
        var keys = CustomerTokenKeys()
        for try await (id, algorithm, sealed, keyID, publicKey) in rows.decode(
            (String, String, ByteBuffer?, String?, String?).self)
        {
            if algorithm == "ES256", let publicKey {
                keys.publicKeys.append(CustomerTokenPublicKey(id: id, pem: publicKey))
                continue
            }
            guard let sealed, let keyID,
                let text = box.open(Data(sealed.readableBytesView), appID: appID, secretID: id, keyID: keyID)
            else {
                logger.error(
                    "customer token secret does not open",
                    metadata: ["app_id": "\(appID)", "secret_id": "\(id)", "sealing_key_id": "\(keyID ?? "-")"])
                continue
            }
            keys.secrets.append(CustomerTokenSecret(id: id, secret: text))
        }
        return keys
    }
}
