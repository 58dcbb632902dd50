import Hummingbird
import ShopkeeperHTTP
import ShopkeeperReports

/// `GET /v1/admin/reports/subscriptions` (secret key): the app's subscriptions per UTC day, as JSON or CSV
/// (``ReportRequest``). The gateway routes it here: the subscriptions service owns periods and trials.
struct ReportController {
    let reports: any ReportRepository

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("/v1/admin/reports/subscriptions") { request, context in
            let caller = try context.requireSecretCaller()
            let report = try ReportRequest.read(
                request.uri.queryParameters, accept: request.headers[.accept],
                spec: SubscriptionsReports.subscriptions)
            return try await reports.subscriptions(appID: caller.appID, request: report).response()
        }
        return routes
    }
}
