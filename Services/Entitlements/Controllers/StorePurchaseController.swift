import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/store-purchases` (signed calls from the verifier): the purchases of one store a customer owns
/// now, newest first. The verifier opens Stripe's customer portal for the Stripe customer behind them; entitlements
/// answers because it owns who owns what (a redemption moves web purchases to the app's customer).
struct StorePurchaseController {
    let purchases: any StorePurchaseRepository
    let maxBodyBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/internal/v1/store-purchases") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(StorePurchasesRequest.self, from: request, limit: maxBodyBytes)
            _ = try AppUserID.validated(body.appUserID, pointer: "/app_user_id")
            let ids = try await purchases.originalTransactionIDs(
                appID: caller.appID, appUserID: body.appUserID, store: body.store)
            return try JSONBody.response(StorePurchases(originalTransactionIDs: ids))
        }
        return routes
    }
}
