import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/customers/{app_user_id}/checkout` (public or secret key; the customer's token in `signed` mode, as the
/// gateway applies the customer boundary): a Stripe Checkout Session for a catalog product. An `Idempotency-Key`
/// header makes a retry return the same session.
///
/// `POST /v1/customers/{app_user_id}/subscriptions/{subscription_id}/cancel`: the customer's web subscription ends
/// with its paid period (Stripe's `cancel_at_period_end`).
///
/// `POST /v1/customers/{app_user_id}/portal`: a link to Stripe's customer portal for the Stripe customer behind the
/// customer's web purchases (`409 no_stripe_customer` when they own none).
struct StripeCheckoutController {
    let checkout: StripeCheckout
    let cancellation: StripeCancellation
    let portal: StripePortal
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
        routes.post("/v1/customers/:app_user_id/subscriptions/:subscription_id/cancel") { _, context in
            let caller = try context.requireCaller()
            let user = try AppUserID.fromPath(context)
            let answer = try await cancellation.cancel(
                subscriptionID: try context.parameters.require("subscription_id"), appUserID: user,
                appID: caller.appID, requestID: context.requestID)
            return try JSONBody.response(answer, headers: [.cacheControl: "no-store"])
        }
        routes.post("/v1/customers/:app_user_id/portal") { request, context in
            let caller = try context.requireCaller()
            let user = try AppUserID.fromPath(context)
            let body = try await JSONBody.decode(PortalRequest.self, from: request, limit: maxBodyBytes)
            let answer = try await portal.create(
                body, appUserID: user, appID: caller.appID, requestID: context.requestID)
            return try JSONBody.response(answer, status: .created, headers: [.cacheControl: "no-store"])
        }
        return routes
    }
}
