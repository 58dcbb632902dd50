import Foundation
import ShopkeeperModels
import ShopkeeperStores

extension AppleNotifications {
    /// What the App Store Server API says now about the subscription of `originalTransactionID` (Get All
    /// Subscription Statuses, in its environment): its latest transaction and renewal info with the status, each
    /// JWS verified like a notification's. `nil` when the app has no App Store Server API key to ask with.
    func currentFacts(of subscription: StaleSubscription) async throws(VerifierError) -> NotificationFacts? {
        try await currentFacts(
            appID: subscription.appID, originalTransactionID: subscription.originalTransactionID,
            environment: subscription.environment)
    }

    /// ``currentFacts(of:)`` for the subscription of `originalTransactionID` of `appID`, in `environment`.
    func currentFacts(appID: String, originalTransactionID: String, environment: StoreEnvironment)
        async throws(VerifierError) -> NotificationFacts?
    {
        guard let credentials = try? await credentials.apple(appID: appID) else {
            throw .storeNotConfigured(.apple)
        }
        guard let key = credentials.apiKey else { return nil }
        let response = try await verifier.api.subscriptionStatuses(
            originalTransactionID, environment: environment, credentials: credentials, key: key)
        let items = (response.data ?? []).flatMap { $0.lastTransactions ?? [] }
        guard let item = items.first(where: { $0.originalTransactionId == originalTransactionID }) else {
            throw .proofRejected(
                code: "transaction_not_found", detail: "Apple reported no status for this subscription.")
        }
        return try await facts(
            signedTransaction: item.signedTransactionInfo, signedRenewal: item.signedRenewalInfo, status: item.status,
            signedAt: Date().appleMilliseconds, credentials: credentials,
            proofKind: .storeStatus)
    }
}

extension GoogleNotifications {
    /// What `purchases.subscriptionsv2` says now about the subscription, asked with the purchase token of its latest
    /// recorded order. `nil` when no token is recorded for it.
    func currentFacts(of subscription: StaleSubscription, token: String?) async throws(VerifierError)
        -> NotificationFacts?
    {
        guard let token else { return nil }
        guard let credentials = try? await credentials.google(appID: subscription.appID) else {
            throw .storeNotConfigured(.google)
        }
        return try await subscriptionFacts(
            token: token, productID: nil, observed: Date(), revoked: nil, credentials: credentials,
            proofKind: .storeStatus)
    }
}

extension StripeEventProcessor {
    /// What Stripe's API says now about the subscription (`sub_...`): its state and its latest invoice's period when
    /// paid, read with the app's secret key. `nil` when the app has no Stripe credentials to ask with.
    func currentFacts(of subscription: StaleSubscription) async throws -> NotificationFacts? {
        guard let stripe = try await credentials.stripe(appID: subscription.appID) else { return nil }
        return try await events.subscriptionFacts(
            subscription.originalTransactionID, observed: Date(), key: stripe.secretKey, proofKind: .storeStatus)
    }
}
