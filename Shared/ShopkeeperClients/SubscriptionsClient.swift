import Foundation
import ShopkeeperCore
import ShopkeeperModels

/// The subscriptions service's internal API, for the verifier (store facts) and entitlements (trials).
package struct SubscriptionsClient: Sendable {
    package let client: InternalClient

    package init(client: InternalClient) {
        self.client = client
    }

    /// Applies verified, recorded subscription facts for `appID`; returns the touched subscriptions.
    package func apply(_ request: SubscriptionApplyRequest, appID: String, requestID: String?) async throws
        -> SubscriptionApplyResponse
    {
        try await client.post(
            "/internal/v1/apply", body: request, appID: appID, keyKind: .secret, requestID: requestID)
    }

    /// Starts the customer's trial on a device, or returns the one it has.
    package func startTrial(_ request: InternalTrialRequest, appID: String, requestID: String?) async throws
        -> InternalTrialResponse
    {
        try await client.post(
            "/internal/v1/trials/start", body: request, appID: appID, keyKind: .public, requestID: requestID)
    }

    /// The customer's trial.
    package func trial(_ request: InternalTrialRequest, appID: String, requestID: String?) async throws -> TrialInfo {
        try await client.post(
            "/internal/v1/trials/lookup", body: request, appID: appID, keyKind: .public, requestID: requestID)
    }

    /// Whether the customer may get an intro offer or trial of a product.
    package func eligibility(_ request: InternalEligibilityRequest, appID: String, requestID: String?) async throws
        -> EligibilityInfo
    {
        try await client.post(
            "/internal/v1/eligibility", body: request, appID: appID, keyKind: .public, requestID: requestID)
    }

    /// Whether the customer may get an intro offer of a product, and whether it had a subscription in its group.
    package func offerEligibility(_ request: InternalEligibilityRequest, appID: String, requestID: String?)
        async throws -> OfferEligibility
    {
        try await client.post(
            "/internal/v1/offer-eligibility", body: request, appID: appID, keyKind: .public, requestID: requestID)
    }
}
