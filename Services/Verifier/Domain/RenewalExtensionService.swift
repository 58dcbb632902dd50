import Foundation
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// Extends an App Store subscription's renewal date (Apple's *Extend a Subscription Renewal Date*) at most once per
/// `Idempotency-Key`, and brings Shopkeeper's view of the subscription up to date at once.
///
/// Apple does not promise to recognise a repeated `requestIdentifier`, so Shopkeeper never relies on it: the key is
/// recorded (with its request identifier) before Apple is asked, a decided key is answered from the record, and a
/// request that got no answer from Apple (a timeout, a 5xx, a crash) is asked again only while Apple's expiry of the
/// subscription is still the one read before the first attempt. Once the expiry has moved, that attempt may have
/// extended it, and the key answers `409 extension_outcome_unknown` instead of risking a second extension.
struct RenewalExtensionService: Sendable, RequestLogging {
    let credentials: any CredentialsRepository
    let notifications: AppleNotifications
    let extensions: any RenewalExtensionRepository
    var news: StoreNewsApplier
    let database: PostgresClient
    /// Its own log lines' and the news it applies (``RequestLogging/logging(to:)`` sets both).
    var logger: Logger {
        didSet { news.logger = logger }
    }
    /// How long one request holds its key.
    var lease: Duration = .seconds(60)

    /// What the caller asked for.
    struct Request: Sendable {
        var originalTransactionID: String
        var extendByDays: Int
        var reasonCode: Int
        var idempotencyKey: String
    }

    /// The extension as Apple made it, and whether it is the record of an earlier request with the same key.
    func extend(_ request: Request, appID: String, requestID: String?) async throws -> (
        RenewalExtension, replayed: Bool
    ) {
        guard let credentials = try await credentials.apple(appID: appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        guard let key = credentials.apiKey else { throw AppStoreSupportError.apiKeyRequired }
        guard let environment = try await environment(of: request.originalTransactionID, appID: appID) else {
            throw AppStoreSupportError.subscriptionNotFound(request.originalTransactionID)
        }
        let asked = RenewalExtension(
            appID: appID, idempotencyKey: request.idempotencyKey, originalTransactionID: request.originalTransactionID,
            environment: environment, extendByDays: request.extendByDays, reasonCode: request.reasonCode,
            requestIdentifier: UUID())
        var record: RenewalExtension
        switch try await extensions.claim(asked, lease: lease) {
        case .reused: throw AppStoreSupportError.idempotencyKeyReused
        case .inProgress: throw AppStoreSupportError.extensionInProgress
        case .finished(let decided): return (try Self.outcome(decided), true)
        case .claimed(let claimed): record = claimed
        }
        do {
            let expiry = try await currentExpiry(record)
            if let before = record.expiresBefore, abs(before.timeIntervalSince(expiry)) >= 0.001 {
                record.state = .refused
                record.errorCode = AppStoreSupportError.extensionOutcomeUnknown(detail: "").code
                record.errorDetail =
                    "An earlier attempt with this Idempotency-Key got no answer from Apple, and the subscription's "
                    + "expiry has moved since (\(before.formatted(.iso8601)) to \(expiry.formatted(.iso8601))): it may "
                    + "have been extended. Nothing more was asked; check the subscription, and use a new key to extend "
                    + "it again."
                try await extensions.finish(record)
                return (try Self.outcome(record), false)
            }
            if record.expiresBefore == nil {
                try await extensions.noteExpiry(record, expiresBefore: expiry)
                record.expiresBefore = expiry
            }
            let answer = try await notifications.verifier.api.extendRenewalDate(
                record.originalTransactionID,
                AppStoreExtendRenewalDateRequest(
                    extendByDays: record.extendByDays, extendReasonCode: record.reasonCode,
                    requestIdentifier: record.requestIdentifier.uuidString.lowercased()),
                environment: environment, credentials: credentials, key: key)
            try await decide(&record, answer)
        } catch {
            // No answer (or no record of it): the key may be tried again.
            try? await extensions.release(record)
            throw error
        }
        try await extensions.finish(record)
        if record.state == .succeeded { await refresh(record, requestID: requestID) }
        return (try Self.outcome(record), false)
    }

    /// Apple's answer as the record's final state; a failure to get one throws.
    private func decide(
        _ record: inout RenewalExtension, _ answer: AppStoreAnswer<AppStoreExtendRenewalDateResponse>
    ) async throws {
        switch answer {
        case .answered(let response) where response.success == true:
            record.state = .succeeded
            record.effectiveDate = response.effectiveDate.map(Date.init(storeMilliseconds:))
            record.webOrderLineItemID = response.webOrderLineItemId
        case .answered:
            record.state = .refused
            record.errorCode = "extension_failed"
        case .refused(404, let code):
            record.state = .refused
            record.errorCode = AppStoreSupportError.subscriptionNotFound("").code
            record.appleErrorCode = code
        case .refused(let status, let code) where status == 400 || status == 403:
            record.state = .refused
            record.errorCode = AppStoreSupportError.extensionRefusal(status: status, appleCode: code).code
            record.appleErrorCode = code
        case .refused(let status, let code):
            throw VerifierError.storeUnavailable(
                store: "App Store", reason: "answer \(code.map(String.init) ?? "HTTP \(status)")", retryAfterSeconds: 5)
        }
    }

    /// Apple's expiry of the subscription now (Get All Subscription Statuses, verified).
    private func currentExpiry(_ record: RenewalExtension) async throws -> Date {
        let facts = try await notifications.currentFacts(
            appID: record.appID, originalTransactionID: record.originalTransactionID, environment: record.environment)
        guard let expiry = facts?.facts.compactMap(\.transaction.expiresDate).max() else {
            throw AppStoreSupportError.subscriptionNotFound(record.originalTransactionID)
        }
        return expiry
    }

    /// Reads the subscription again and applies it, so that Shopkeeper's expiry moves now (the `RENEWAL_EXTENDED`
    /// notification may come later, or not at all). A failure is logged: the extension stands, and the notification,
    /// the reconciler or the background retry bring the subscription up to date.
    private func refresh(_ record: RenewalExtension, requestID: String?) async {
        do {
            if let facts = try await notifications.currentFacts(
                appID: record.appID, originalTransactionID: record.originalTransactionID,
                environment: record.environment)
            {
                try await news.apply(facts, appID: record.appID, requestID: requestID)
            }
        } catch {
            logger.warning(
                "an extended subscription was not read again yet",
                metadata: ["app_id": "\(record.appID)", "error": "\(error)"])
        }
    }

    /// The environment of the App Store subscription `originalTransactionID` of `appID`, as recorded here.
    private func environment(of originalTransactionID: String, appID: String) async throws -> StoreEnvironment? {
        let rows = try await database.query(
            """
            SELECT environment FROM verifier.transactions
            WHERE app_id = \(appID) AND store = 'app_store' AND original_transaction_id = \(originalTransactionID)
              AND environment IN ('production', 'sandbox')
            LIMIT 1
            """,
            logger: logger)
        for try await environment in rows.decode(String.self) { return StoreEnvironment(rawValue: environment) }
        return nil
    }

    /// A decided record, or the error it records.
    static func outcome(_ record: RenewalExtension) throws -> RenewalExtension {
        guard record.state == .refused else { return record }
        let code = record.errorCode ?? "extension_failed"
        switch code {
        case "subscription_not_found": throw AppStoreSupportError.subscriptionNotFound(record.originalTransactionID)
        case "extension_outcome_unknown":
            throw AppStoreSupportError.extensionOutcomeUnknown(detail: record.errorDetail ?? "")
        default: throw AppStoreSupportError.extensionRefused(code: code, appleCode: record.appleErrorCode)
        }
    }
}
