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
}
