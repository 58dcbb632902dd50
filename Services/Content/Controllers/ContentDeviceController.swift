import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/customers/{app_user_id}/content/devices` (secret key): the devices that downloaded content under an app
/// user id, with what each holds since its last reset: the list support picks a device to reset from
/// (`POST /v1/customers/{app_user_id}/content/reset`).
struct ContentDeviceController {
    let devices: any ContentDeviceRepository

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("/v1/customers/:app_user_id/content/devices", use: list)
        return routes
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, user) = try context.requireCallerAndCustomer(secretKey: true)
        let found = try await devices.devices(appID: caller.appID, appUserID: user)
        return try JSONBody.response(
            ContentDeviceList(appUserID: user, devices: found), headers: [.cacheControl: "no-store"])
    }
}
