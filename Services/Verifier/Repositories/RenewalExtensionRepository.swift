import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels

/// One request to extend a subscription's renewal date, kept under the caller's `Idempotency-Key`
/// (`verifier.renewal_extensions`).
struct RenewalExtension: Sendable, Equatable {
    enum State: String, Sendable {
        /// Not answered yet (or Apple gave no answer): the lease holder is asking Apple.
        case pending
        /// Apple extended it; `effectiveDate` is the new expiry.
        case succeeded
        /// Final without an extension: `errorCode` says why.
        case refused
    }

    var appID: String
    var idempotencyKey: String
    var originalTransactionID: String
    var environment: StoreEnvironment
    var extendByDays: Int
    var reasonCode: Int
    /// Sent to Apple as `requestIdentifier`, the same on every attempt of this key.
    var requestIdentifier: UUID
    var state: State = .pending
    /// Apple's expiry of the subscription before the first attempt: a later attempt that finds it moved cannot tell
    /// whether the first one extended it, and does not ask again.
    var expiresBefore: Date?
    var effectiveDate: Date?
    var webOrderLineItemID: String?
    var errorCode: String?
    var appleErrorCode: Int64?
    var errorDetail: String?
    var createdAt = Date()

    /// Whether `other` asks for the same extension.
    func isSameRequest(as other: RenewalExtension) -> Bool {
        originalTransactionID == other.originalTransactionID && extendByDays == other.extendByDays
            && reasonCode == other.reasonCode
    }
}

/// What a claim of an idempotency key found.
enum RenewalExtensionClaim: Sendable, Equatable {
    /// Ours to carry out (new, or an earlier attempt that got no answer and whose lease ran out).
    case claimed(RenewalExtension)
    /// Decided before: answer it again.
    case finished(RenewalExtension)
    /// Another request holds it now.
    case inProgress
    /// The key was used for another extension.
    case reused
}

/// Renewal-date extensions, once per app and idempotency key.
protocol RenewalExtensionRepository: Sendable {
    /// Takes `request`'s key for `lease`, or says what it holds.
    func claim(_ request: RenewalExtension, lease: Duration) async throws -> RenewalExtensionClaim
    /// Keeps Apple's expiry before the first attempt.
    func noteExpiry(_ request: RenewalExtension, expiresBefore: Date) async throws
    /// Records the final outcome (`succeeded` or `refused`) and ends the lease.
    func finish(_ request: RenewalExtension) async throws
    /// Ends the lease of a pending request that got no answer, so that a retry with the key may try again.
    func release(_ request: RenewalExtension) async throws
}

/// ``RenewalExtensionRepository`` on PostgreSQL.
struct RenewalExtensionPostgresRepository: RenewalExtensionRepository {
    let client: PostgresClient
    let logger: Logger

    private static let columns = """
        app_id, idempotency_key, original_transaction_id, environment, extend_by_days, reason_code,
        request_identifier, state, expires_before, effective_date, web_order_line_item_id, error_code,
        apple_error_code, error_detail, created_at
        """

    func claim(_ request: RenewalExtension, lease: Duration) async throws -> RenewalExtensionClaim {
        let seconds = Double(lease.milliseconds) / 1000
        let environment: String = request.environment.rawValue
        let inserted = try await rows(
            try await client.query(
                """
                INSERT INTO verifier.renewal_extensions (
                    app_id, idempotency_key, original_transaction_id, environment, extend_by_days, reason_code,
                    request_identifier, leased_until)
                VALUES (
                    \(request.appID), \(request.idempotencyKey), \(request.originalTransactionID), \(environment),
                    \(request.extendByDays), \(request.reasonCode), \(request.requestIdentifier),
                    now() + make_interval(secs => \(seconds)))
                ON CONFLICT (app_id, idempotency_key) DO NOTHING
                RETURNING \(unescaped: Self.columns)
                """,
                logger: logger))
        if let new = inserted.first { return .claimed(new) }
        // An attempt that got no answer, whose lease ran out: taken over by one request (the row decides).
        let resumed = try await rows(
            try await client.query(
                """
                UPDATE verifier.renewal_extensions SET leased_until = now() + make_interval(secs => \(seconds))
                WHERE app_id = \(request.appID) AND idempotency_key = \(request.idempotencyKey)
                  AND state = 'pending' AND leased_until <= now()
                  AND original_transaction_id = \(request.originalTransactionID)
                  AND extend_by_days = \(request.extendByDays) AND reason_code = \(request.reasonCode)
                RETURNING \(unescaped: Self.columns)
                """,
                logger: logger))
        if let taken = resumed.first { return .claimed(taken) }
        let existing = try await rows(
            try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM verifier.renewal_extensions
                WHERE app_id = \(request.appID) AND idempotency_key = \(request.idempotencyKey)
                """,
                logger: logger))
        guard let found = existing.first, found.isSameRequest(as: request) else { return .reused }
        return found.state == .pending ? .inProgress : .finished(found)
    }

    func noteExpiry(_ request: RenewalExtension, expiresBefore: Date) async throws {
        try await client.query(
            """
            UPDATE verifier.renewal_extensions SET expires_before = \(expiresBefore)
            WHERE app_id = \(request.appID) AND idempotency_key = \(request.idempotencyKey) AND expires_before IS NULL
            """,
            logger: logger)
    }

    func finish(_ request: RenewalExtension) async throws {
        let state: String = request.state.rawValue
        try await client.query(
            """
            UPDATE verifier.renewal_extensions SET
                state = \(state), effective_date = \(request.effectiveDate),
                web_order_line_item_id = \(request.webOrderLineItemID), error_code = \(request.errorCode),
                apple_error_code = \(request.appleErrorCode), error_detail = \(request.errorDetail),
                finished_at = now(), leased_until = now()
            WHERE app_id = \(request.appID) AND idempotency_key = \(request.idempotencyKey) AND state = 'pending'
            """,
            logger: logger)
    }

    func release(_ request: RenewalExtension) async throws {
        try await client.query(
            """
            UPDATE verifier.renewal_extensions SET leased_until = now()
            WHERE app_id = \(request.appID) AND idempotency_key = \(request.idempotencyKey) AND state = 'pending'
            """,
            logger: logger)
    }

    private func rows(_ sequence: PostgresRowSequence) async throws -> [RenewalExtension] {
        var found: [RenewalExtension] = []
        for try await row in sequence {
            let columns = row.makeRandomAccess()
            var request = RenewalExtension(
                appID: try columns["app_id"].decode(String.self),
                idempotencyKey: try columns["idempotency_key"].decode(String.self),
                originalTransactionID: try columns["original_transaction_id"].decode(String.self),
                environment: StoreEnvironment(rawValue: try columns["environment"].decode(String.self)) ?? .production,
                extendByDays: try columns["extend_by_days"].decode(Int.self),
                reasonCode: try columns["reason_code"].decode(Int.self),
                requestIdentifier: try columns["request_identifier"].decode(UUID.self))
            request.state = RenewalExtension.State(rawValue: try columns["state"].decode(String.self)) ?? .pending
            request.expiresBefore = try columns["expires_before"].decode(Date?.self)
            request.effectiveDate = try columns["effective_date"].decode(Date?.self)
            request.webOrderLineItemID = try columns["web_order_line_item_id"].decode(String?.self)
            request.errorCode = try columns["error_code"].decode(String?.self)
            request.appleErrorCode = try columns["apple_error_code"].decode(Int64?.self)
            request.errorDetail = try columns["error_detail"].decode(String?.self)
            request.createdAt = try columns["created_at"].decode(Date.self)
            found.append(request)
        }
        return found
    }
}
