import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/customers/{app_user_id}/history`: everything that happened to a customer, newest first (secret key).
struct HistoryController {
    let history: any HistoryRepository

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get(":app_user_id/history", use: read)
    }

    @Sendable func read(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer(secretKey: true)
        let json = try await history.history(appID: caller.appID, appUserID: id)
        return JSONText.response(json, headers: [.cacheControl: "no-store"])
    }
}
