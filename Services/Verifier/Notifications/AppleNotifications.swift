import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// What a notification says, ready to record and apply.
struct NotificationFacts: Sendable {
    var facts: [VerifiedFact] = []
    var renewals: [SubscriptionRenewalFacts] = []
    /// App-level facts to publish as events (consent rescinded, external purchase tokens), which name no customer.
    var appEvents: [AppEvent] = []
}

/// App Store Server Notifications V2: verified like any signed App Store data (same roots, same checks), attributed
/// to an app by its bundle id, recorded once per `notificationUUID`, and later turned into facts.
struct AppleNotifications: Sendable {
    let signedData: AppleSignedDataVerifier
    let verifier: AppleProofVerifier
    let credentials: any CredentialsRepository
    let apps: NotificationApps
    let inbox: any NotificationInbox

    /// Verifies and records a `signedPayload`; returns the notification and whether it had been recorded before.
    func receive(signedPayload: String, requestedApp: String?) async throws -> (ReceivedNotification, duplicate: Bool) {
        let payload: AppleNotificationPayload
        do {
            payload = try await signedData.verify(signedPayload, as: AppleNotificationPayload.self)
        } catch {
            throw VerifierError.proofRejected(code: error.code, detail: error.description)
        }
        // The app and environment come from whichever part the notification has: `data`, `summary`,
        // `externalPurchaseToken` or `appData` (`AppleNotificationPayload.app`, Apple's own rule).
        let app = payload.app
        guard let bundleID = app.bundleId else {
            throw VerifierError.proofRejected(code: "wrong_bundle_id", detail: "The notification names no bundle id.")
        }
        let appID = try await apps.apple(bundleID: bundleID, appAppleID: app.appAppleId, requested: requestedApp)
        guard let credentials = try await credentials.apple(appID: appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        try verifier.check(bundleID: bundleID, environment: app.environment, credentials: credentials)
        try verifier.checkAppAppleID(app.appAppleId, environment: app.environment, credentials: credentials)
        let notification = ReceivedNotification(
            store: StorePlatform.appStore.rawValue, id: payload.notificationUUID, appID: appID,
            type: payload.notificationType, subtype: payload.subtype, environment: payload.environment,
            signedAt: payload.signedDate.map(Date.init(appleMilliseconds:)), payload: signedPayload)
        let recorded = try await inbox.record(notification)
        return (notification, !recorded)
    }

    /// The transaction and renewal facts a recorded notification carries (its inner JWS verified and checked
    /// against the app); none for types that carry none (`TEST`, summaries).
    func facts(of notification: ReceivedNotification) async throws(VerifierError) -> NotificationFacts {
        // Its signature was verified before it was recorded (``receive(signedPayload:requestedApp:)``), and only
        // this service writes the inbox: decoding it again is enough. The inner JWS are verified here.
        guard
            let payload = CompactJWS(notification.payload)?.appleDecodedPayload(as: AppleNotificationPayload.self)
        else {
            throw .proofRejected(code: "malformed_notification", detail: "The recorded notification does not decode.")
        }
        // Without `data`: a summary, or an app-level fact (`appData`, `externalPurchaseToken`).
        guard let data = payload.data else { return try await appFacts(of: payload, notification: notification) }
        guard let credentials = try? await credentials.apple(appID: notification.appID) else {
            throw .storeNotConfigured(.apple)
        }
        let reversed =
            payload.notificationType == AppleNotificationType.refundReversed.rawValue
            ? payload.signedDate.map(Date.init(storeMilliseconds:)) ?? Date().wholeSeconds : nil
        return try await facts(
            signedTransaction: data.signedTransactionInfo, signedRenewal: data.signedRenewalInfo, status: data.status,
            signedAt: payload.signedDate, credentials: credentials, reversedAt: reversed)
    }

    /// The facts of a signed transaction and signed renewal info with the subscription's `status`, as a
    /// notification or the App Store Server API carries them, each JWS verified and checked against the app.
    /// `reversedAt`: Apple reversed the transaction's refund or revocation then (`REFUND_REVERSED`).
    func facts(
        signedTransaction: String?, signedRenewal: String?, status: Int?, signedAt: Int64?,
        credentials: AppleCredentials, reversedAt: Date? = nil, proofKind: ProofKind = .notification
    ) async throws(VerifierError) -> NotificationFacts {
        var facts = NotificationFacts()
        if let jws = signedTransaction {
            var transaction = try await verifier.verifySignedTransaction(jws, credentials: credentials)
            if let reversedAt, transaction.revocationDate == nil {
                // The transaction stands again, as of the reversal.
                transaction.revocationReversedAt = reversedAt
            }
            facts.facts.append(VerifiedFact(transaction: transaction, proofKind: proofKind, rawProof: jws))
        }
        if let jws = signedRenewal {
            let renewal = try await verifier.verifySigned(
                jws, as: AppleRenewalInfoPayload.self, credentials: credentials)
            if var renewalFacts = Self.renewalFacts(renewal, signedAt: signedAt) {
                // Apple's status: 1 active; 2 expired, 3 billing retry, 4 grace period (the period is over).
                renewalFacts.periodEnded = status.map { (2...4).contains($0) }
                facts.renewals.append(renewalFacts)
            }
        }
        return facts
    }

    /// Renewal info in the subscriptions service's words, observed when Apple signed it (or at `signedAt`, the
    /// signing date of what carried it, when it has none).
    static func renewalFacts(_ renewal: AppleRenewalInfoPayload, signedAt: Int64?) -> SubscriptionRenewalFacts? {
        guard let original = renewal.originalTransactionId, let signed = renewal.signedDate ?? signedAt else {
            return nil
        }
        return SubscriptionRenewalFacts(
            store: .appStore, originalTransactionID: original, observedAt: Date(appleMilliseconds: signed),
            willRenew: renewal.autoRenewStatus.map { $0 == 1 }, renewsIntoStoreProductID: renewal.autoRenewProductId,
            gracePeriodExpiresDate: renewal.gracePeriodExpiresDate.map(Date.init(appleMilliseconds:)),
            isInBillingRetry: renewal.isInBillingRetryPeriod ?? false,
            expirationReason: renewal.expirationIntent.map(expirationReason))
    }

    /// Apple's `expirationIntent` in the subscriptions service's words.
    static func expirationReason(_ intent: Int) -> String {
        switch intent {
        case 1: "voluntary"
        case 2: "billing_error"
        case 3: "price_increase"
        case 4: "product_unavailable"
        default: "other"
        }
    }
}
