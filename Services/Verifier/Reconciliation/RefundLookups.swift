import Foundation
import Logging
import ShopkeeperModels
import ShopkeeperStores

/// Finds the refunds of App Store purchases bought without an `appAccountToken` without any notification: Apple's Get
/// Refund History, asked with the purchase's original transaction id (Apple takes any transaction id of the
/// customer), lists every refund of that customer in the app, and each one Shopkeeper had not recorded is recorded
/// and applied once, as a refund lookup by support would (``StoreNewsApplier/applyRefunds(_:appID:requestID:)``).
///
/// Purchases with an `appAccountToken` are the customer's, found by the app user id; those without are found only
/// through their transaction, so the recovery job (``NotificationRecoveryJob``) asks about them on each run, after
/// reading the notification history of the app and environment it holds: at most ``perRun`` purchases, those never
/// asked first, then the least recently asked, within ``horizon`` of their purchase. With `N` such purchases an app
/// has each asked about every `ceil(N / perRun)` runs. A refund recorded already (by a notification, a recovery, a
/// lookup) is not news and is not applied again, so overlapping lookups are harmless.
struct RefundLookups: Sendable {
    let credentials: any CredentialsRepository
    let apple: AppleProofVerifier
    let news: StoreNewsApplier
    let repository: any RefundLookupRepository
    /// Purchases asked about per run of an app and environment (0: none).
    let perRun: Int
    /// How long after its purchase a purchase is asked about: Apple's 180 days of history.
    var horizon: Duration = .seconds(180 * 86_400)
    let logger: Logger

    /// What one run found.
    struct Outcome: Sendable, Equatable {
        /// Purchases Apple was asked with.
        var asked = 0
        /// Refunds Apple listed.
        var refunds = 0
        /// Refunds Shopkeeper had not recorded: recorded and applied now.
        var applied = 0
    }

    /// Asks Apple about the due purchases of `appID` in `environment`. Throws when Apple or the database fails (the
    /// purchases not asked yet stay first in line).
    func run(appID: String, environment: StoreEnvironment) async throws -> Outcome {
        var outcome = Outcome()
        guard perRun > 0, let credentials = try await credentials.apple(appID: appID), let key = credentials.apiKey
        else { return outcome }
        let due = try await repository.due(appID: appID, environment: environment, horizon: horizon, limit: perRun)
        for originalTransactionID in due {
            try Task.checkCancellation()
            let signed =
                try await apple.api.refundHistory(
                    originalTransactionID, environment: environment, credentials: credentials, key: key) ?? []
            var refunded: [VerifiedFact] = []
            for jws in signed {
                if let fact = try await verified(jws, credentials: credentials, appID: appID) { refunded.append(fact) }
            }
            do {
                outcome.applied += try await news.applyRefunds(refunded, appID: appID, requestID: nil).count
            } catch VerifierError.applyPending {
                // Recorded: the background retry applies them.
                outcome.applied += refunded.count
            }
            try await repository.checked(
                appID: appID, environment: environment, originalTransactionID: originalTransactionID,
                refunds: refunded.count)
            outcome.asked += 1
            outcome.refunds += refunded.count
        }
        return outcome
    }

    /// A refunded transaction of Apple's answer, verified; `nil` when it is refused (not this app's, a bad signature).
    private func verified(_ jws: String, credentials: AppleCredentials, appID: String) async throws -> VerifiedFact? {
        let transaction: StoreTransaction
        do {
            transaction = try await apple.verifySignedTransaction(jws, credentials: credentials)
        } catch {
            guard error.isVerdict else { throw error }
            let code = error.code
            logger.notice(
                "a refund of Apple's refund history was refused", metadata: ["app_id": "\(appID)", "code": "\(code)"])
            return nil
        }
        return VerifiedFact(transaction: transaction, proofKind: .storeStatus, rawProof: jws)
    }
}
