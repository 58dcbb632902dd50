import Crypto
import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels

/// The answer signing keys' rows (`gateway.answer_signing_keys`): live while not retired; the live key activated
/// last signs.
extension AppPostgresRepository: AnswerSigningKeyRepository {
    /// Whether the row `k` is its app's active key: the live key activated last.
    private static let isActive = """
        k.key_id = (SELECT a.key_id FROM gateway.answer_signing_keys a
                    WHERE a.app_id = k.app_id AND a.retired_at IS NULL AND a.activated_at IS NOT NULL
                    ORDER BY a.activated_at DESC, a.key_id DESC LIMIT 1)
        """

    func answerSigning(appID: String) async throws -> AnswerSigningKeys {
        _ = try await app(appID: appID)
        let rows = try await client.query(
            """
            SELECT key_id, public_key, created_at, retired_at, \(unescaped: Self.isActive)
            FROM gateway.answer_signing_keys k
            WHERE k.app_id = \(appID) AND k.retired_at IS NULL ORDER BY k.created_at, k.key_id
            """,
            logger: logger
        )
        var keys: [AnswerSigningKeyInfo] = []
        for try await row in rows.decode((String, ByteBuffer, Date, Date?, Bool).self) {
            keys.append(Self.info(row))
        }
        return AnswerSigningKeys(keys: keys)
    }

    func createAnswerSigningKey(appID: String, keyID: String, privateKey: Curve25519.Signing.PrivateKey) async throws
        -> AnswerSigningKeyInfo
    {
        let sealed = try box.sealAnswerKey(privateKey.rawRepresentation, appID: appID, keyID: keyID)
        let publicKey = ByteBuffer(bytes: privateKey.publicKey.rawRepresentation)
        // One statement: the first live key is active from the start (two created at once both are; the later
        // activation wins, as it would for two activations).
        let rows = try await client.query(
            """
            INSERT INTO gateway.answer_signing_keys (key_id, app_id, public_key, sealed, sealing_key_id, activated_at)
            SELECT \(keyID), app_id, \(publicKey), \(ByteBuffer(bytes: sealed)), \(box.answerKeyID),
                   CASE WHEN EXISTS (SELECT 1 FROM gateway.answer_signing_keys l
                                     WHERE l.app_id = \(appID) AND l.retired_at IS NULL AND l.activated_at IS NOT NULL)
                        THEN NULL ELSE clock_timestamp() END
            FROM gateway.apps WHERE app_id = \(appID)
            RETURNING key_id
            """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) {
            return try await key(appID: appID, keyID: keyID)
        }
        throw GatewayError.appNotFound(appID)
    }

    func activateAnswerSigningKey(appID: String, keyID: String) async throws -> AnswerSigningKeyInfo {
        let rows = try await client.query(
            """
            UPDATE gateway.answer_signing_keys SET activated_at = clock_timestamp()
            WHERE app_id = \(appID) AND key_id = \(keyID) AND retired_at IS NULL
            RETURNING key_id
            """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) {
            return try await key(appID: appID, keyID: keyID)
        }
        _ = try await app(appID: appID)
        throw GatewayError.answerSigningKeyNotFound(keyID)
    }

    func retireAnswerSigningKey(appID: String, keyID: String) async throws -> AnswerSigningKeyInfo {
        let live = try await key(appID: appID, keyID: keyID)
        // Decided in the statement: the active key retires only when no other live key could take its place.
        let rows = try await client.query(
            """
            UPDATE gateway.answer_signing_keys k SET retired_at = clock_timestamp()
            WHERE k.app_id = \(appID) AND k.key_id = \(keyID) AND k.retired_at IS NULL
              AND NOT (\(unescaped: Self.isActive)
                       AND EXISTS (SELECT 1 FROM gateway.answer_signing_keys o
                                   WHERE o.app_id = k.app_id AND o.retired_at IS NULL AND o.key_id <> k.key_id))
            RETURNING retired_at
            """,
            logger: logger
        )
        for try await retiredAt in rows.decode(Date.self) {
            var retired = live
            retired.active = false
            retired.retiredAt = retiredAt
            return retired
        }
        throw GatewayError.answerSigningKeyActive(keyID)
    }

    /// One live key; throws ``GatewayError/answerSigningKeyNotFound`` when absent or retired.
    private func key(appID: String, keyID: String) async throws -> AnswerSigningKeyInfo {
        let rows = try await client.query(
            """
            SELECT key_id, public_key, created_at, retired_at, \(unescaped: Self.isActive)
            FROM gateway.answer_signing_keys k
            WHERE k.app_id = \(appID) AND k.key_id = \(keyID) AND k.retired_at IS NULL
            """,
            logger: logger
        )
        for try await row in rows.decode((String, ByteBuffer, Date, Date?, Bool).self) {
            return Self.info(row)
        }
        _ = try await app(appID: appID)
        throw GatewayError.answerSigningKeyNotFound(keyID)
    }

    private static func info(_ row: (String, ByteBuffer, Date, Date?, Bool)) -> AnswerSigningKeyInfo {
        AnswerSigningKeyInfo(
            keyID: row.0, publicKey: Data(row.1.readableBytesView).base64EncodedString(), active: row.4,
            createdAt: row.2, retiredAt: row.3)
    }

    /// The app's active key, opened, from its sealed row; `nil` (and logged) when it does not open, so answers go
    /// out unsigned, which an app that checks signatures refuses, rather than signed with something else.
    func answerSigner(appID: String, keyID: String?, sealed: ByteBuffer?, sealingKeyID: String?) -> AnswerSigner? {
        guard let keyID, let sealed, let sealingKeyID else { return nil }
        guard
            let raw = box.openAnswerKey(
                Data(sealed.readableBytesView), appID: appID, keyID: keyID, sealingKeyID: sealingKeyID),
            let privateKey = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        else {
            logger.error(
                "answer signing key does not open",
                metadata: ["app_id": "\(appID)", "key_id": "\(keyID)", "sealing_key_id": "\(sealingKeyID)"])
            return nil
        }
        return AnswerSigner(keyID: keyID, privateKey: privateKey)
    }
}
