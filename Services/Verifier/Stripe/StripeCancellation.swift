import Crypto
import Foundation
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// `POST /v1/customers/{app_user_id}/subscriptions/{subscription_id}/cancel`'s answer.
struct CancellationResponse: Codable, Sendable, Equatable {
    var subscriptionID: String
    var cancelAtPeriodEnd: Bool
    /// When the paid period ends (ISO 8601): the customer keeps the subscription until then.
    var currentPeriodEnd: String?

    enum CodingKeys: String, CodingKey {
        case subscriptionID = "subscription_id"
        case cancelAtPeriodEnd = "cancel_at_period_end"
        case currentPeriodEnd = "current_period_end"
    }
}

/// Cancels a customer's web subscription at the end of its period, through Stripe: only a subscription Shopkeeper's
/// checkout created for this app and this customer (its metadata says so, as Stripe has it), or one a redemption
/// moved to this customer (entitlements' record; the buyer, who pays for it, may still cancel it too, as they may
/// at Stripe's portal). The renewal state is applied at once, so the customer's info shows auto-renewal off before
/// Stripe's `customer.subscription.updated` arrives (which applies the same state again).
struct StripeCancellation: Sendable {
    let client: StripeClient
    let credentials: any CredentialsRepository
    let projections: FactProjections
    var now: @Sendable () -> Date = { Date() }

    func cancel(subscriptionID: String, appUserID: String, appID: String, requestID: String?) async throws
        -> CancellationResponse
    {
        guard subscriptionID.hasPrefix("sub_"), (5...255).contains(subscriptionID.utf8.count) else {
            throw RequestError.invalid("subscription_id", "must be a Stripe subscription id (sub_...)")
        }
        guard let stripe = try await credentials.stripe(appID: appID) else {
            throw VerifierError.storeNotConfigured(.stripe)
        }
        let subscription: StripeSubscription
        do {
            subscription = try await client.subscription(subscriptionID, key: stripe.secretKey)
        } catch {
            if Self.isUnknownToStripe(error) { throw RequestError.notFound }
            throw error
        }
        guard subscription.metadata?[StripeFacts.appIDKey] == appID else { throw RequestError.notFound }
        if subscription.metadata?[StripeFacts.appUserIDKey] != appUserID {
            // Not the buyer's id: the customer a redemption moved it to (Shopkeeper's record says who owns it now).
            let owned = try await projections.entitlements.storePurchases(
                StorePurchasesRequest(appUserID: appUserID, store: .stripe), appID: appID, requestID: requestID)
            guard owned.originalTransactionIDs.contains(subscriptionID) else { throw RequestError.notFound }
        }
        var updated = subscription
        if !subscription.cancelAtPeriodEnd && !["canceled", "incomplete_expired"].contains(subscription.status) {
            updated = try await client.setCancelAtPeriodEnd(
                true, subscription: subscriptionID,
                idempotencyKey: idempotencyKey(subscriptionID: subscriptionID, appID: appID), key: stripe.secretKey)
        }
        // Best effort: Stripe has the cancellation; its webhook applies the same state should this not.
        _ = try? await projections.apply(
            ApplyRequest(appUserID: nil, deviceID: nil, source: .notification, transactions: []),
            renewals: [StripeFacts.renewal(of: updated, observedAt: now())], appID: appID, requestID: requestID)
        let end = updated.items.data.first.map { Date(timeIntervalSince1970: TimeInterval($0.currentPeriodEnd)) }
        return CancellationResponse(
            subscriptionID: updated.id, cancelAtPeriodEnd: updated.cancelAtPeriodEnd,
            currentPeriodEnd: end.map { ISO8601DateFormatter().string(from: $0) })
    }

    /// Whether Stripe answered that it has no such object (`404`).
    static func isUnknownToStripe(_ error: any Error) -> Bool {
        guard let error = error as? VerifierError, case .stripeRefused(let status, _) = error else { return false }
        return status == 404
    }

    /// A retry within five minutes is the same call to Stripe; a cancellation after the customer resumed the
    /// subscription (at Stripe's portal) later is a new one.
    func idempotencyKey(subscriptionID: String, appID: String) -> String {
        let window = Int64((now().timeIntervalSince1970 / StripeCheckout.idempotencyWindow).rounded(.down))
        let digest = SHA256.hash(
            data: Data([appID, subscriptionID, "cancel", String(window)].joined(separator: "\u{0}").utf8))
        return "shopkeeper-cancel-" + digest.hexString
    }
}
