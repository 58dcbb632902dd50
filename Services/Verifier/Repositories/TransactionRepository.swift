import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Where verified facts and verification attempts are recorded.
protocol TransactionRepository: Sendable {
    /// Records `facts` for `appID` and the successful `attempt` that proved them (none for a store notification),
    /// atomically, once per
    /// (store, transaction id), and returns each as recorded. Recording the same fact again returns the
    /// first recording, except that a revocation, once known, is kept, and a later period end of a transaction in
    /// force (a renewal-date extension) replaces the earlier one. Throws
    /// ``VerifierError/transactionOfAnotherApp(_:)`` when a transaction is another app's.
    func record(_ facts: [VerifiedFact], appID: String, presenter: Presenter, attempt: VerificationAttempt?)
        async throws -> [StoreTransaction]
    /// The recorded transactions of `appID` with these ids.
    func transactions(appID: String, store: StorePlatform, ids: [String]) async throws -> [StoreTransaction]
    /// Logs an attempt; a failure to log is reported, never thrown.
    func log(_ attempt: VerificationAttempt) async
    /// Marks recorded facts as applied by the entitlements service for `appUserID` (`nil`: applied as news, with no
    /// presenter); a fact whose recorded presenter is another stays as it is (it is still to be applied for them).
    /// A failure is logged (the background retry applies them again, which is idempotent).
    func markApplied(_ transactions: [StoreTransaction], appID: String, for appUserID: String?) async
    /// Marks recorded facts as refused by the entitlements service for `appUserID` with its problem `code` (only
    /// those whose recorded presenter it is, and that entitlements has not applied for someone else).
    func markRefused(_ transactions: [StoreTransaction], appID: String, for appUserID: String?, code: String) async
    /// Marks pending facts applied that the entitlements service has applied (its `applied_transactions_v1` view), so
    /// the request path need not write the state itself; returns how many.
    func sweepApplied() async throws -> Int
    /// Leases up to `limit` pending facts whose time has come to one background worker, pushing their next try
    /// back by `base` doubled per attempt (at most an hour).
    func claimPending(limit: Int, base: Duration) async throws -> [PendingFact]
    /// Hands claimed pending facts back unapplied (shutdown): due again at once, the claim's attempt not counted.
    func releasePending(_ facts: [PendingFact]) async throws
    /// Keeps the revocations these fresh store facts report for recorded transactions, and returns the ones that
    /// were news; they are left pending, to be applied to their current owner.
    func recordRevocations(_ transactions: [StoreTransaction], appID: String) async throws -> [StoreTransaction]
}

/// A recorded fact whose apply has not finished, leased to one background worker.
struct PendingFact: Sendable {
    var appID: String
    var appUserID: String?
    var deviceID: String?
    /// Whether to apply for the presenter (`false`: news for the current owner only).
    var asPresenter: Bool
    var transaction: StoreTransaction
}

/// ``TransactionRepository`` on PostgreSQL.
struct TransactionPostgresRepository: TransactionRepository {
    let client: PostgresClient
    let logger: Logger
    /// How long the request that recorded a fact has to apply it before the background retry may.
    var applyGrace: Duration = .seconds(5)

    func record(_ facts: [VerifiedFact], appID: String, presenter: Presenter, attempt: VerificationAttempt?)
        async throws -> [StoreTransaction]
    {
        guard !facts.isEmpty else { return [] }
        // One fact (the common case) is one statement, atomic by itself: one round trip and one commit.
        if facts.count == 1 {
            return try await client.withConnection { connection in
                [try await upsert(facts[0], appID: appID, presenter: presenter, attempt: attempt, on: connection)]
            }
        }
        return try await client.transaction(logger: logger, attempts: 1) { connection in
            var recorded: [StoreTransaction] = []
            for (index, fact) in facts.enumerated() {
                let last = index == facts.count - 1
                recorded.append(
                    try await upsert(
                        fact, appID: appID, presenter: presenter, attempt: last ? attempt : nil, on: connection))
            }
            return recorded
        }
    }

    /// Inserts or refreshes one fact, and logs `attempt` in the same statement when the fact is this app's;
    /// throws when the transaction belongs to another app.
    private func upsert(
        _ fact: VerifiedFact, appID: String, presenter: Presenter, attempt: VerificationAttempt?,
        on connection: PostgresConnection
    ) async throws -> StoreTransaction {
        let transaction = fact.transaction
        let document = String(decoding: try JSONBody.encode(transaction), as: UTF8.self)
        let logAttempt: Bool = attempt != nil
        let attemptIDs: [String] = attempt?.transactionIDs ?? []
        let attemptUser: String? = attempt?.appUserID
        let attemptRequest: String? = attempt?.requestID
        let attemptMilliseconds: Int = Int(attempt?.duration.milliseconds ?? 0)
        let type: String? = transaction.type?.rawValue
        let reason: String? = transaction.revocationReason?.rawValue
        let reversedAt: Date? = transaction.revocationReversedAt
        let store: String = transaction.store.rawValue
        let environment: String = transaction.environment.rawValue
        let proofKind: String = fact.proofKind.rawValue
        let applyGraceSeconds: Double = Double(applyGrace.milliseconds) / 1000
        let consumeToken: String? = fact.consumption?.token
        let bindings = try PostgresBindings(
            store, transaction.transactionID, appID, environment, transaction.originalTransactionID,
            transaction.storeProductID, type, transaction.quantity, transaction.purchaseDate, transaction.expiresDate,
            transaction.revocationDate, reason, reversedAt, document, proofKind, fact.rawProof, presenter.appUserID,
            presenter.deviceID, applyGraceSeconds, attemptIDs, attemptUser, attemptRequest, attemptMilliseconds,
            logAttempt, consumeToken)
        let recorded = try await connection.run(Upsert.self, bindings, logger: logger) { try $0.decode(String?.self) }
        guard let stored = recorded.first else {
            throw VerifierError.transactionOfAnotherApp(transaction.transactionID)
        }
        // The statement returns the recorded fact only when it differs from this one (a revocation kept): store
        // dates are whole seconds, so this fact and its JSON read back are the same value.
        guard let text = stored else { return transaction }
        return try JSONBody.decode(StoreTransaction.self, from: Data(text.utf8))
    }

    /// The value of a revocation column (`revocation_date`, `revocation_reason`) after an upsert: a revocation, once
    /// known, is kept until the store reverses it (a revocation dated at or before the reversal); a later one is news
    /// again.
    private static func keptRevocation(_ column: String) -> String {
        """
        CASE
            WHEN t.revocation_date <= excluded.revocation_reversed_at THEN NULL
            WHEN t.revocation_date IS NOT NULL THEN t.\(column)
            WHEN excluded.revocation_date > coalesce(t.revocation_reversed_at, '-infinity') THEN excluded.\(column)
        END
        """
    }

    /// Records one fact (see ``upsert(_:appID:presenter:attempt:on:)``), prepared once per connection: it runs
    /// for every verified purchase and notification, and a primary-key upsert has one good plan. Returns one row
    /// when the fact is this app's: `NULL` when the recorded fact is the one given, else the recorded one. A Play
    /// purchase to consume once granted (`$25`, its token) is queued in `verifier.google_consumptions` by the same
    /// statement, so a fact is never recorded without the consume it may need.
    private enum Upsert: PreparedSQL {
        static let sql = """
            WITH recorded AS (
                INSERT INTO verifier.transactions AS t (
                    store, transaction_id, app_id, environment, original_transaction_id, store_product_id, type,
                    quantity, purchase_date, expires_date, revocation_date, revocation_reason, revocation_reversed_at,
                    fact, proof_kind, raw_proof, app_user_id, device_id, next_apply_at)
                VALUES (
                    $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint,
                    $9::timestamptz, $10::timestamptz, $11::timestamptz, $12::text, $13::timestamptz, $14::jsonb,
                    $15::text, $16::text, $17::text, $18::text, now() + make_interval(secs => $19::float8))
                ON CONFLICT (store, transaction_id) DO UPDATE SET
                    last_verified_at = now(),
                    -- A fact recorded first with no presenter (a store notification) keeps the first customer who
                    -- presents it, pending until applied: the background retry grants it to them if their request
                    -- does not finish. A fact that has its presenter keeps it until it is applied.
                    app_user_id = CASE WHEN t.app_user_id IS NULL AND t.apply_as = 'presenter'
                        THEN excluded.app_user_id ELSE t.app_user_id END,
                    device_id = CASE WHEN t.app_user_id IS NULL AND t.apply_as = 'presenter'
                        AND excluded.app_user_id IS NOT NULL THEN excluded.device_id ELSE t.device_id END,
                    apply_state = CASE WHEN t.app_user_id IS NULL AND t.apply_as = 'presenter'
                        AND excluded.app_user_id IS NOT NULL THEN 'pending' ELSE t.apply_state END,
                    next_apply_at = greatest(t.next_apply_at, excluded.next_apply_at),
                    revocation_reversed_at = greatest(t.revocation_reversed_at, excluded.revocation_reversed_at),
                    revocation_date = \(keptRevocation("revocation_date")),
                    revocation_reason = \(keptRevocation("revocation_reason")),
                    -- The store moved the period's end of a transaction in force (Apple's renewal-date extension):
                    -- the later end is kept, and an older proof presented afterwards does not take it back.
                    expires_date = CASE
                        WHEN t.revocation_date IS NULL AND excluded.revocation_date IS NULL
                            AND excluded.expires_date > t.expires_date THEN excluded.expires_date
                        ELSE t.expires_date END,
                    fact = CASE
                        WHEN t.revocation_date <= excluded.revocation_reversed_at THEN excluded.fact
                        WHEN t.revocation_date IS NULL
                            AND excluded.revocation_date > coalesce(t.revocation_reversed_at, '-infinity')
                            THEN excluded.fact
                        WHEN t.revocation_date IS NULL AND excluded.revocation_date IS NULL
                            AND excluded.expires_date > t.expires_date THEN excluded.fact
                        -- More units of a multi-quantity purchase refunded (Play's quantity-based partial refunds,
                        -- a running total): the fact says so, and entitlements claws back only the difference.
                        WHEN t.revocation_date IS NULL AND excluded.revocation_date IS NULL
                            AND coalesce((excluded.fact->>'refunded_quantity')::integer, 0)
                                > coalesce((t.fact->>'refunded_quantity')::integer, 0)
                            THEN jsonb_set(t.fact, '{refunded_quantity}', excluded.fact->'refunded_quantity')
                        ELSE t.fact END
                WHERE t.app_id = excluded.app_id
                RETURNING fact
            ), logged AS (
                INSERT INTO verifier.verification_attempts (
                    app_id, proof_kind, outcome, code, transaction_ids, app_user_id, request_id, duration_ms)
                SELECT $3::text, $15::text, 'verified', NULL, $20::text[], $21::text, $22::text, $23::bigint
                FROM recorded WHERE $24::boolean
            ), consumption AS (
                INSERT INTO verifier.google_consumptions (
                    transaction_id, app_id, store_product_id, purchase_token, next_attempt_at)
                SELECT $2::text, $3::text, $6::text, $25::text, now() + make_interval(secs => $19::float8)
                FROM recorded WHERE $25::text IS NOT NULL
                ON CONFLICT (transaction_id) DO NOTHING
            )
            SELECT CASE WHEN fact = $14::jsonb THEN NULL ELSE fact::text END FROM recorded
            """
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
        let outcome: String = attempt.outcome.rawValue
        let proofKind: String = attempt.proofKind.rawValue
        let milliseconds: Int = Int(attempt.duration.milliseconds)
        do {
            try await client.query(
                """
                INSERT INTO verifier.verification_attempts (
                    app_id, proof_kind, outcome, code, transaction_ids, app_user_id, request_id, duration_ms)
                VALUES (
                    \(attempt.appID), \(proofKind), \(outcome), \(attempt.code), \(attempt.transactionIDs),
                    \(attempt.appUserID), \(attempt.requestID), \(milliseconds))
                """,
                logger: logger
            )
        } catch {
            logger.error("could not log a verification attempt", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
