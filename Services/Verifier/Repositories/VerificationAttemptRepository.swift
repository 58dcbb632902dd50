import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels

/// Which of an app's verification attempts to list.
struct VerificationAttemptFilter: Sendable, Equatable {
    var limit: Int
    var appUserID: String?
    /// `verified`, `invalid` or `retryable`.
    var outcome: String?
    var code: String?
    var from: Date?
    var to: Date?
    /// Only attempts older than this one (the previous page's `next_before`).
    var before: Int64?
}

/// The audit of every proof the verifier was asked to verify, refused ones included.
protocol VerificationAttemptRepository: Sendable {
    /// A page of `appID`'s attempts that match `filter`, newest first.
    func attempts(appID: String, filter: VerificationAttemptFilter) async throws -> VerificationAttemptPage
}

/// ``VerificationAttemptRepository`` on PostgreSQL (`verifier.verification_attempts`).
struct VerificationAttemptPostgresRepository: VerificationAttemptRepository {
    let client: PostgresClient
    let logger: Logger

    func attempts(appID: String, filter: VerificationAttemptFilter) async throws -> VerificationAttemptPage {
        // One more than asked for: whether there is a next page.
        let rows = try await client.query(
            """
            SELECT id, attempted_at, proof_kind, outcome, code, transaction_ids, app_user_id, request_id, duration_ms
            FROM verifier.verification_attempts
            WHERE app_id = \(appID)
              AND (\(filter.appUserID)::text IS NULL OR app_user_id = \(filter.appUserID))
              AND (\(filter.outcome)::text IS NULL OR outcome = \(filter.outcome))
              AND (\(filter.code)::text IS NULL OR code = \(filter.code))
              AND (\(filter.from)::timestamptz IS NULL OR attempted_at >= \(filter.from))
              AND (\(filter.to)::timestamptz IS NULL OR attempted_at < \(filter.to))
              AND (\(filter.before)::bigint IS NULL OR id < \(filter.before))
            ORDER BY id DESC
            LIMIT \(filter.limit + 1)
            """,
            logger: logger)
        var found: [VerificationAttemptRecord] = []
        for try await (id, at, kind, outcome, code, transactions, user, request, duration) in rows.decode(
            (Int64, Date, String, String, String?, [String], String?, String?, Int32).self)
        {
            found.append(
                VerificationAttemptRecord(
                    id: String(id), attemptedAt: at, proofKind: kind, outcome: outcome, code: code,
                    transactionIDs: transactions, appUserID: user, requestID: request,
                    durationMilliseconds: Int(duration)))
        }
        let more = found.count > filter.limit
        let page = Array(found.prefix(filter.limit))
        return VerificationAttemptPage(attempts: page, nextBefore: more ? page.last?.id : nil)
    }
}
