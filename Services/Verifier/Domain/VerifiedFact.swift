import Foundation
import ShopkeeperModels

/// A transaction the verifier has proven, with the proof it came from (kept for audit).
struct VerifiedFact: Sendable, Equatable {
    var transaction: StoreTransaction
    var proofKind: ProofKind
    var rawProof: String
    /// A Play purchase to acknowledge once the fact is recorded.
    var acknowledgement: GoogleAcknowledgement? = nil
    /// A Play purchase to consume once granted, if it is a consumable: recorded with the fact, in the same statement.
    var consumption: GoogleConsumption? = nil
}

/// The form a proof arrived in.
enum ProofKind: String, Codable, Sendable {
    case signedTransaction = "signed_transaction"
    case receipt
    case playToken = "play_token"
    /// A StoreKit 2 app transaction (`signed_app_transaction`).
    case appTransaction = "app_transaction"
    /// A store notification (App Store Server Notifications V2, Play real-time developer notifications).
    case notification
    /// The store's answer to the reconciliation job asking about a subscription that looked stale.
    case storeStatus = "store_status"
}

/// Who presented a proof.
struct Presenter: Sendable, Equatable {
    var appUserID: String?
    var deviceID: String?
}

/// One verification attempt, for the audit log.
struct VerificationAttempt: Sendable {
    enum Outcome: String, Sendable {
        case verified, invalid, retryable
    }

    var appID: String
    var proofKind: ProofKind
    var outcome: Outcome
    var code: String?
    var transactionIDs: [String]
    var appUserID: String?
    var requestID: String?
    var duration: Duration

    /// The attempt, started at `start`, that proved `transactionIDs`.
    static func verified(
        _ transactionIDs: [String], kind: ProofKind, appID: String, appUserID: String?, requestID: String?,
        since start: ContinuousClock.Instant
    ) -> VerificationAttempt {
        VerificationAttempt(
            appID: appID, proofKind: kind, outcome: .verified, code: nil, transactionIDs: transactionIDs,
            appUserID: appUserID, requestID: requestID, duration: .now - start)
    }

    /// The attempt, started at `start`, that ended with `error`: `invalid` for a verdict, else `retryable`.
    static func failed(
        _ error: VerifierError, kind: ProofKind, appID: String, appUserID: String?, requestID: String?,
        since start: ContinuousClock.Instant
    ) -> VerificationAttempt {
        VerificationAttempt(
            appID: appID, proofKind: kind, outcome: error.isVerdict ? .invalid : .retryable, code: error.code,
            transactionIDs: [], appUserID: appUserID, requestID: requestID, duration: .now - start)
    }
}
