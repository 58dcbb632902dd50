import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/purchases`, `POST /v1/customers/{app_user_id}/restore` and `POST /v1/receipts/validate`, for an app's
/// public or secret key.
struct PurchaseController {
    let service: PurchaseService
    let maxBodyBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/v1/purchases") { request, context in
            let caller = try context.requireCaller()
            var body = try await JSONBody.decode(PurchaseRequest.self, from: request, limit: maxBodyBytes)
            body.appUserID = try AppUserID.validated(body.appUserID, pointer: "/app_user_id")
            if let version = body.appVersion {
                guard (1...64).contains(version.count), !version.contains(where: \.isNewline) else {
                    throw RequestError.invalid("/app_version", "must be 1 to 64 characters on one line")
                }
            }
            // In `signed` mode the gateway forwards the customer the token proved; the body must name that one.
            try context.requireCustomer(body.appUserID)
            let response = try await service.logging(to: context.logger).purchase(
                body, appID: caller.appID, requestID: context.requestID)
            return try JSONBody.response(response)
        }
        routes.post("/v1/customers/:app_user_id/restore") { request, context in
            let (caller, user) = try context.requireCallerAndCustomer()
            let body = try await JSONBody.decode(RestoreRequest.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(
                try await service.logging(to: context.logger).restore(
                    body, appUserID: user, appID: caller.appID, requestID: context.requestID))
        }
        routes.post("/v1/receipts/validate") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(StoreProofFields.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(
                try await service.logging(to: context.logger).validate(
                    body, appID: caller.appID, requestID: context.requestID))
        }
        return routes
    }
}
