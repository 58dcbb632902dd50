import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// The content service's internal API (signed calls; calls go content -> entitlements, never back):
///
/// - `POST /internal/v1/content/access`: whether a customer may have products' content now, optionally counting the
///   device against the granting purchase's device limit;
/// - `POST /internal/v1/content/claims`: records a claim of a product the catalog marks free.
struct ContentAccessController {
    let repository: any ContentAccessRepository
    let grants: any ProductGrantRepository
    let maxBodyBytes: Int
    /// Most products one access call may ask about (a reset asks about every product with content).
    static let maximumProducts = 1_000

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/internal/v1/content/access") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(ContentAccessRequest.self, from: request, limit: maxBodyBytes)
            _ = try AppUserID.validated(body.appUserID, pointer: "/app_user_id")
            guard body.productIDs.count <= Self.maximumProducts else {
                throw RequestError.invalid("/product_ids", "must hold at most \(Self.maximumProducts) products")
            }
            if body.bindDevice && (body.deviceID ?? "").isEmpty {
                throw RequestError.invalid("/device_id", "is required to bind a device")
            }
            let products = try await repository.access(body, appID: caller.appID)
            return try JSONBody.response(
                ContentAccessResponse(products: products), headers: [.cacheControl: "no-store"])
        }
        routes.post("/internal/v1/content/claims") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(ContentClaimGrantRequest.self, from: request, limit: maxBodyBytes)
            _ = try AppUserID.validated(body.appUserID, pointer: "/app_user_id")
            let (grant, _) = try await grants.claimFree(
                productID: body.productID, appUserID: body.appUserID, appID: caller.appID, renderCustomer: false)
            return try JSONBody.response(
                ContentClaimGrantResponse(
                    productID: grant.productID, claimedAt: grant.grantedAt, created: grant.created),
                headers: [.cacheControl: "no-store"])
        }
        return routes
    }
}
