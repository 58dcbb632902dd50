import Foundation
import ShopkeeperCore
import ShopkeeperModels

/// The entitlements service's internal API, for the verifier.
package struct EntitlementsClient: Sendable {
    package let client: InternalClient

    package init(client: InternalClient) {
        self.client = client
    }

    /// Applies verified, recorded transactions for `appID` and returns what the presenter owns now.
    package func apply(_ request: ApplyRequest, appID: String, requestID: String?) async throws -> ApplyResponse {
        try await client.post(
            "/internal/v1/apply", body: request, caller: InternalCaller(appID: appID, keyKind: .secret),
            requestID: requestID, as: ApplyResponse.self)
    }

    /// Publishes app-level facts (facts that name no customer) as events for `appID`, once per event key.
    package func publish(_ request: AppEventsRequest, appID: String, requestID: String?) async throws
        -> AppEventsResponse
    {
        try await client.post(
            "/internal/v1/app-events", body: request, caller: InternalCaller(appID: appID, keyKind: .secret),
            requestID: requestID, as: AppEventsResponse.self)
    }
}
