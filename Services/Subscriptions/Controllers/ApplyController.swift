import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/apply`: the verifier hands over verified, recorded subscription facts (signed internal call).
struct ApplyController {
    let subscriptions: any SubscriptionRepository
    let maxBodyBytes: Int
    /// Most transactions plus renewal facts one call may apply (a receipt of a long-lived subscriber holds many).
    static let maximumFacts = 2_000

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/internal/v1/apply") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(SubscriptionApplyRequest.self, from: request, limit: maxBodyBytes)
            let count = body.transactions.count + body.renewals.count
            guard (1...Self.maximumFacts).contains(count) else {
                throw RequestError.invalid(
                    "/transactions", "must hold 1 to \(Self.maximumFacts) transactions and renewals together")
            }
            let touched = try await subscriptions.apply(body, appID: caller.appID)
            return try JSONBody.response(SubscriptionApplyResponse(subscriptions: touched))
        }
        return routes
    }
}
