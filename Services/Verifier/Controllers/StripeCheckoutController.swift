import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/customers/{app_user_id}/checkout` (public or secret key; the customer's token in `signed` mode, as the
/// gateway applies the customer boundary): a Stripe Checkout Session for a catalog product. An `Idempotency-Key`
/// header makes a retry return the same session.
struct StripeCheckoutController {
    let checkout: StripeCheckout
    let maxBodyBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/v1/customers/:app_user_id/checkout") { request, context in
            let caller = try context.requireCaller()
            let user = try AppUserID.fromPath(context)
            let body = try await JSONBody.decode(CheckoutRequest.self, from: request, limit: maxBodyBytes)
            let answer = try await checkout.create(
                body, appUserID: user, appID: caller.appID,
                clientKey: request.headers[.idempotencyKey])
            return try JSONBody.response(answer, status: .created, headers: [.cacheControl: "no-store"])
        }
        return routes
    }
}
