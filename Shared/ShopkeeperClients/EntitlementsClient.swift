import Foundation
import ShopkeeperCore
import ShopkeeperModels

/// The entitlements service's internal API, for the verifier (and the gateway's customer boundary switch).
package struct EntitlementsClient: Sendable {
    package let client: InternalClient

    package init(client: InternalClient) {
        self.client = client
    }

    /// Applies verified, recorded transactions for `appID` and returns what the presenter owns now.
    package func apply(_ request: ApplyRequest, appID: String, requestID: String?) async throws
        -> CustomerAnswer<ApplyOutcomes>
    {
        try await client.post(
            "/internal/v1/apply", body: request, caller: InternalCaller(appID: appID, keyKind: .secret),
            requestID: requestID, decode: CustomerAnswer<ApplyOutcomes>.init(decoding:))
    }

    /// Records that a customer presented a verified app transaction; answers what became of it and the customer's
    /// info, with the products it proves.
    package func applyAppTransaction(_ request: AppTransactionApplyRequest, appID: String, requestID: String?)
        async throws -> AppTransactionApplyResponse
    {
        try await client.post(
            "/internal/v1/app-transactions", body: request, appID: appID, keyKind: .secret, requestID: requestID)
    }

    /// Publishes app-level facts (facts that name no customer) as events for `appID`, once per event key.
    package func publish(_ request: AppEventsRequest, appID: String, requestID: String?) async throws
        -> AppEventsResponse
    {
        try await client.post(
            "/internal/v1/app-events", body: request, appID: appID, keyKind: .secret, requestID: requestID)
    }

    /// Suspends the ids the public key linked to the app's customers (the app is switching to the `signed` customer
    /// boundary); answers how many this call suspended. Safe to repeat.
    package func suspendPublicLinks(appID: String, requestID: String?) async throws -> AliasSuspension {
        try await client.post(
            "/internal/v1/aliases/suspend", body: EmptyBody(), appID: appID, keyKind: .secret, requestID: requestID)
    }

    /// The body of a call that sends nothing but its identity.
    private struct EmptyBody: Encodable {}

    /// The customer's eligibility for App Store offers of a product, with what signing one needs.
    package func offerContext(_ request: OfferContextRequest, appID: String, requestID: String?) async throws
        -> OfferContext
    {
        try await client.post(
            "/internal/v1/offer-context", body: request, appID: appID, keyKind: .public, requestID: requestID)
    }

    /// The original transaction ids of `request.store` the customer owns now, newest first.
    package func storePurchases(_ request: StorePurchasesRequest, appID: String, requestID: String?) async throws
        -> StorePurchases
    {
        try await client.post(
            "/internal/v1/store-purchases", body: request, appID: appID, keyKind: .secret, requestID: requestID)
    }
}
