import Foundation
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels

/// Where verified facts and verification attempts are recorded.
protocol TransactionRepository: Sendable {
    /// Records `facts` for `appID` in one database transaction, once per (store, transaction id), and
    /// returns each as recorded. Recording the same fact again returns the first recording, except that
    /// a revocation, once known, is kept.
    func record(_ facts: [VerifiedFact], appID: String, presenter: Presenter) async throws -> [StoreTransaction]
    /// The recorded transactions of `appID` with these ids.
    func transactions(appID: String, store: StorePlatform, ids: [String]) async throws -> [StoreTransaction]
    /// Logs an attempt; a failure to log is reported, never thrown.
    func log(_ attempt: VerificationAttempt) async
}

/// ``TransactionRepository`` on PostgreSQL.
struct TransactionPostgresRepository: TransactionRepository {
    let client: PostgresClient
    let logger: Logger

    func record(_ facts: [VerifiedFact], appID: String, presenter: Presenter) async throws -> [StoreTransaction] {
        guard !facts.isEmpty else { return [] }
        do {
            return try await recordInTransaction(facts, appID: appID, presenter: presenter)
        } catch let error as PostgresTransactionError {
            // PostgresNIO wraps the body's own errors; a transaction of another app must stay a 409.
            if let verdict = error.closureError as? VerifierError { throw verdict }
            throw error
        }
    }

    private func recordInTransaction(_ facts: [VerifiedFact], appID: String, presenter: Presenter) async throws
        -> [StoreTransaction]
    {
        try await client.withTransaction(logger: logger) { connection in
            var recorded: [StoreTransaction] = []
            for fact in facts {
                let transaction = fact.transaction
                let document = String(decoding: try JSONBody.encode(transaction), as: UTF8.self)
                let rows = try await connection.query(
                    """
                    INSERT INTO verifier.transactions AS t (
                        store, transaction_id, app_id, environment, original_transaction_id, store_product_id, type,
                        quantity, purchase_date, expires_date, revocation_date, revocation_reason, fact, proof_kind,
                        raw_proof, app_user_id, device_id)
                    VALUES (
                        \(transaction.store.rawValue), \(transaction.transactionID), \(appID),
                        \(transaction.environment.rawValue), \(transaction.originalTransactionID),
                        \(transaction.storeProductID), \(transaction.type?.rawValue), \(transaction.quantity),
                        \(transaction.purchaseDate), \(transaction.expiresDate), \(transaction.revocationDate),
                        \(transaction.revocationReason?.rawValue), \(document)::jsonb, \(fact.proofKind.rawValue),
                        \(fact.rawProof), \(presenter.appUserID), \(presenter.deviceID))
                    ON CONFLICT (store, transaction_id) DO UPDATE SET
                        last_verified_at = now(),
                        revocation_date = coalesce(t.revocation_date, excluded.revocation_date),
                        revocation_reason = coalesce(t.revocation_reason, excluded.revocation_reason),
                        fact = CASE WHEN t.revocation_date IS NULL AND excluded.revocation_date IS NOT NULL
                                    THEN excluded.fact ELSE t.fact END
                    WHERE t.app_id = excluded.app_id
                    RETURNING fact::text
                    """,
                    logger: logger
                )
                var found: StoreTransaction?
                for try await text in rows.decode(String.self) {
                    found = try JSONBody.decode(StoreTransaction.self, from: Data(text.utf8))
                }
                guard let found else {
                    throw VerifierError.transactionOfAnotherApp(transaction.transactionID)
                }
                recorded.append(found)
            }
            return recorded
        }
    }

    func transactions(appID: String, store: StorePlatform, ids: [String]) async throws -> [StoreTransaction] {
        let rows = try await client.query(
            """
            SELECT fact::text FROM verifier.transactions
            WHERE app_id = \(appID) AND store = \(store.rawValue) AND transaction_id = ANY(\(ids))
            ORDER BY purchase_date, transaction_id
            """,
            logger: logger
        )
        var found: [StoreTransaction] = []
        for try await text in rows.decode(String.self) {
            found.append(try JSONBody.decode(StoreTransaction.self, from: Data(text.utf8)))
        }
        return found
    }

    func log(_ attempt: VerificationAttempt) async {
        do {
            try await client.query(
                """
                INSERT INTO verifier.verification_attempts (
                    app_id, proof_kind, outcome, code, transaction_ids, app_user_id, request_id, duration_ms)
                VALUES (
                    \(attempt.appID), \(attempt.proofKind.rawValue), \(attempt.outcome.rawValue), \(attempt.code),
                    \(attempt.transactionIDs), \(attempt.appUserID), \(attempt.requestID),
                    \(Int(attempt.duration.milliseconds)))
                """,
                logger: logger
            )
        } catch {
            logger.error("could not log a verification attempt", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
