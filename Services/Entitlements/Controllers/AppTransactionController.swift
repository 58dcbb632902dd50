import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/app-transactions` (signed calls from the verifier): a customer presented a verified StoreKit 2
/// app transaction; answers what became of it and the customer's info, which lists the products it proves.
struct AppTransactionController {
    let repository: any AppTransactionRepository
    let maxBodyBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/internal/v1/app-transactions") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(AppTransactionApplyRequest.self, from: request, limit: maxBodyBytes)
            _ = try AppUserID.validated(body.appUserID, pointer: "/app_user_id")
            let id = body.appTransaction.appTransactionID
            guard (1...128).contains(id.count), !id.contains(where: \.isNewline) else {
                throw RequestError.invalid("/app_transaction/app_transaction_id", "must be 1 to 128 characters")
            }
            let (outcome, customer) = try await repository.apply(body, appID: caller.appID)
            return JSONText.response(
                JSONText.object(["outcome": JSONText.string(outcome.rawValue), "customer": customer]),
                headers: [.cacheControl: "no-store"])
        }
        return routes
    }
}
