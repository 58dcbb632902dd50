import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/apply`: the verifier hands over verified, recorded transactions (signed internal call).
struct ApplyController {
    let purchases: any PurchaseRepository
    let maxBodyBytes: Int
    /// Most transactions one call may apply (a receipt of a long-lived subscriber holds many).
    static let maximumTransactions = 2_000

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/internal/v1/apply") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(ApplyRequest.self, from: request, limit: maxBodyBytes)
            // No transactions is allowed with a presenter: a restore that found nothing still answers with the
            // customer's info.
            guard body.transactions.count <= Self.maximumTransactions,
                !body.transactions.isEmpty || body.appUserID != nil
            else {
                throw RequestError.invalid(
                    "/transactions", "must hold 1 to \(Self.maximumTransactions) transactions (0 with app_user_id)")
            }
            if let user = body.appUserID { _ = try AppUserID.validated(user, pointer: "/app_user_id") }
            return try JSONBody.response(try await purchases.apply(body, appID: caller.appID))
        }
        return routes
    }
}
