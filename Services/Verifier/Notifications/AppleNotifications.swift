import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// What a notification says, ready to record and apply.
struct NotificationFacts: Sendable {
    var facts: [VerifiedFact] = []
    var renewals: [SubscriptionRenewalFacts] = []
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
        guard let bundleID = payload.data?.bundleId ?? payload.summary?.bundleId else {
            throw VerifierError.proofRejected(code: "wrong_bundle_id", detail: "The notification names no bundle id.")
        }
        let appAppleID = payload.data?.appAppleId ?? payload.summary?.appAppleId
        let appID = try await apps.apple(bundleID: bundleID, appAppleID: appAppleID, requested: requestedApp)
        guard let credentials = try await credentials.apple(appID: appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        try verifier.check(bundleID: bundleID, environment: payload.environment, credentials: credentials)
        try verifier.checkAppAppleID(appAppleID, environment: payload.environment, credentials: credentials)
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
        let payload: AppleNotificationPayload
        do {
            payload = try await signedData.verify(notification.payload, as: AppleNotificationPayload.self)
        } catch {
            throw .proofRejected(code: error.code, detail: error.description)
        }
        guard let data = payload.data else { return NotificationFacts() }
        guard let credentials = try? await credentials.apple(appID: notification.appID) else {
            throw .storeNotConfigured(.apple)
        }
        var facts = NotificationFacts()
        if let jws = data.signedTransactionInfo {
            var transaction = try await verifier.verifySignedTransaction(jws, credentials: credentials)
            if payload.notificationType == AppleNotificationType.refundReversed.rawValue,
                transaction.revocationDate == nil
            {
                // Apple reversed a refund or revocation: the transaction stands again, as of the notification.
                transaction.revocationReversedAt = payload.signedDate.map(Date.init(appleMilliseconds:)) ?? Date()
            }
            facts.facts.append(VerifiedFact(transaction: transaction, proofKind: .notification, rawProof: jws))
        }
        if let jws = data.signedRenewalInfo {
            let renewal: AppleRenewalInfoPayload
            do {
                renewal = try await signedData.verify(jws, as: AppleRenewalInfoPayload.self)
            } catch {
                throw .proofRejected(code: error.code, detail: error.description)
            }
            if var renewalFacts = Self.renewalFacts(renewal, notification: payload) {
                // Apple's status: 1 active; 2 expired, 3 billing retry, 4 grace period (the period is over).
                renewalFacts.periodEnded = data.status.map { (2...4).contains($0) }
                facts.renewals.append(renewalFacts)
            }
        }
        return facts
    }

    /// Renewal info in the subscriptions service's words, observed when Apple signed it.
    static func renewalFacts(_ renewal: AppleRenewalInfoPayload, notification: AppleNotificationPayload)
        -> SubscriptionRenewalFacts?
    {
        guard let original = renewal.originalTransactionId,
            let signed = renewal.signedDate ?? notification.signedDate
        else { return nil }
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
