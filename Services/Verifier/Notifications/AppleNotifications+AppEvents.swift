import Foundation
import ShopkeeperModels
import ShopkeeperStores

extension AppleNotifications {
    /// The facts of a notification without `data`: `RESCIND_CONSENT` (its `appData`, whose signed app transaction is
    /// verified and checked against the app like any Apple JWS) and `EXTERNAL_PURCHASE_TOKEN` become app events keyed
    /// on the notification, so that a redelivery publishes nothing new; a summary (`RENEWAL_EXTENSION` `SUMMARY`)
    /// and any other type carry nothing to apply.
    func appFacts(of payload: AppleNotificationPayload, notification: ReceivedNotification)
        async throws(VerifierError) -> NotificationFacts
    {
        let key = "\(notification.store):\(notification.id)"
        if payload.type == .rescindConsent, let appData = payload.appData {
            var appTransactionID: String?
            if let jws = appData.signedAppTransactionInfo {
                guard let credentials = try? await credentials.apple(appID: notification.appID) else {
                    throw .storeNotConfigured(.apple)
                }
                let appTransaction = try await verifier.verifySignedAppTransaction(jws, credentials: credentials)
                appTransactionID = appTransaction.appTransactionId
            }
            let event = AppEvent(
                kind: .consentRescinded, key: key, store: .appStore,
                environment: try Self.storeEnvironment(appData.environment), appTransactionID: appTransactionID,
                subtype: payload.subtype)
            return NotificationFacts(appEvents: [event])
        }
        if payload.type == .externalPurchaseToken, let token = payload.externalPurchaseToken {
            let event = AppEvent(
                kind: .externalPurchaseToken, key: key, store: .appStore,
                environment: try Self.storeEnvironment(token.environment), externalPurchaseID: token.externalPurchaseId,
                tokenCreationDate: token.tokenCreationDate.map(Date.init(storeMilliseconds:)), subtype: payload.subtype)
            return NotificationFacts(appEvents: [event])
        }
        return NotificationFacts()
    }

    /// The environment of an app-level fact in Shopkeeper's words.
    static func storeEnvironment(_ raw: String?) throws(VerifierError) -> StoreEnvironment {
        guard let raw, let environment = AppleEnvironment(rawValue: raw) else {
            throw .proofRejected(code: "wrong_environment", detail: "The notification names no known environment.")
        }
        return AppleTransactionNormalizer.storeEnvironment(environment)
    }
}
