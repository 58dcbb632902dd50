import Foundation

/// One attempt to verify a proof, as `GET /v1/admin/verification-attempts` lists it.
package struct VerificationAttemptRecord: Codable, Hashable, Sendable {
    package var id: String
    package var attemptedAt: Date
    /// `signed_transaction`, `receipt`, `purchase_token`, ...
    package var proofKind: String
    /// `verified`, `invalid` (a verdict on the proof) or `retryable` (the store could not answer).
    package var outcome: String
    /// Why it was refused (the problem's `code`); `null` when verified.
    package var code: String?
    package var transactionIDs: [String]
    package var appUserID: String?
    package var requestID: String?
    package var durationMilliseconds: Int

    package init(
        id: String, attemptedAt: Date, proofKind: String, outcome: String, code: String?, transactionIDs: [String],
        appUserID: String?, requestID: String?, durationMilliseconds: Int
    ) {
        self.id = id
        self.attemptedAt = attemptedAt
        self.proofKind = proofKind
        self.outcome = outcome
        self.code = code
        self.transactionIDs = transactionIDs
        self.appUserID = appUserID
        self.requestID = requestID
        self.durationMilliseconds = durationMilliseconds
    }

    package enum CodingKeys: String, CodingKey {
        case id, outcome, code
        case attemptedAt = "attempted_at"
        case proofKind = "proof_kind"
        case transactionIDs = "transaction_ids"
        case appUserID = "app_user_id"
        case requestID = "request_id"
        case durationMilliseconds = "duration_ms"
    }
}

/// A page of `GET /v1/admin/verification-attempts`, newest first; `next_before` fetches the next one.
package struct VerificationAttemptPage: Codable, Hashable, Sendable {
    package var attempts: [VerificationAttemptRecord]
    package var nextBefore: String?

    package init(attempts: [VerificationAttemptRecord], nextBefore: String?) {
        self.attempts = attempts
        self.nextBefore = nextBefore
    }

    package enum CodingKeys: String, CodingKey {
        case attempts
        case nextBefore = "next_before"
    }
}
