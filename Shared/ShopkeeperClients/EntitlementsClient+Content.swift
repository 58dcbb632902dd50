import Foundation
import ShopkeeperCore
import ShopkeeperModels

extension EntitlementsClient {
    /// Whether the customer may have these products' content now; with `bindDevice`, the device is counted against
    /// the limit of the purchase that grants each product (for the content service).
    package func contentAccess(_ request: ContentAccessRequest, appID: String, requestID: String?) async throws
        -> ContentAccessResponse
    {
        try await client.post(
            "/internal/v1/content/access", body: request, appID: appID, keyKind: .public, requestID: requestID)
    }

    /// Records the customer's claim of a product the catalog marks free (checked again by entitlements).
    package func claimFreeContent(_ request: ContentClaimGrantRequest, appID: String, requestID: String?)
        async throws -> ContentClaimGrantResponse
    {
        try await client.post(
            "/internal/v1/content/claims", body: request, appID: appID, keyKind: .public, requestID: requestID)
    }
}
