import Crypto
import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase

/// A response kept under an idempotency key, answered again verbatim to a retry of the same request.
struct StoredResponse: Sendable, Equatable {
    var status: Int
    /// The body as first sent: JSON, a problem document for an error status.
    var body: String
    /// Whether this is an answer kept from an earlier request rather than made now.
    var replayed: Bool
}

/// The `entitlements.idempotency_keys` table, used in the caller's transaction.
///
/// The key's row is inserted first, before anything else the request does: a concurrent request with the same key
/// waits on that insert until the first transaction ends, then finds the first answer (or, when the first one rolled
/// back, takes the key itself).
enum IdempotencyKeys {
    /// What claiming a key found.
    enum Claim: Sendable, Equatable {
        /// The key is new and now held by this transaction; record the answer with ``finish(_:appID:key:on:logger:)``.
        case claimed
        /// The key answered this same request before.
        case answered(StoredResponse)
    }

    /// A fingerprint of what a request asks for, to tell a retry from another request reusing the key.
    static func requestHash(_ parts: [String]) -> String {
        // Length-prefixed, so no two different lists of parts give the same text.
        let text = parts.map { "\($0.utf8.count):\($0)" }.joined(separator: "|")
        return SHA256.hash(data: Data(text.utf8)).hexString
    }

    /// Claims `key` for this transaction, or returns the answer kept under it; throws
    /// ``EntitlementsError/idempotencyKeyReused`` when it was used for another request.
    static func claim(
        appID: String, key: String, requestHash: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> Claim {
        let inserted = try await connection.checkedQuery(
            """
            INSERT INTO entitlements.idempotency_keys (app_id, idempotency_key, request_hash, status, response)
            VALUES (\(appID), \(key), \(requestHash), 0, '')
            ON CONFLICT (app_id, idempotency_key) DO NOTHING
            RETURNING 1
            """,
            logger: logger
        )
        var claimed = false
        for try await _ in inserted.decode(Int.self) { claimed = true }
        if claimed { return .claimed }

        let rows = try await connection.checkedQuery(
            """
            SELECT request_hash, status, response FROM entitlements.idempotency_keys
            WHERE app_id = \(appID) AND idempotency_key = \(key)
            """,
            logger: logger
        )
        var found: (hash: String, status: Int, response: String)?
        for try await (hash, status, response) in rows.decode((String, Int, String).self) {
            found = (hash, status, response)
        }
        guard let found else { throw IdempotencyKeysError.vanished }
        guard found.hash == requestHash else { throw EntitlementsError.idempotencyKeyReused }
        return .answered(StoredResponse(status: found.status, body: found.response, replayed: true))
    }

    /// Records the answer of the request that claimed `key`, in the same transaction as what it did.
    static func finish(
        _ response: StoredResponse, appID: String, key: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let status: Int = response.status
        let body: String = response.body
        try await connection.run(
            """
            UPDATE entitlements.idempotency_keys SET status = \(status), response = \(body)
            WHERE app_id = \(appID) AND idempotency_key = \(key)
            """,
            logger: logger
        )
    }
}

/// A claimed key's row disappeared between the insert that found it and the read: cannot happen while keys are
/// never deleted.
struct IdempotencyKeysError: Error {
    static let vanished = IdempotencyKeysError()
}
