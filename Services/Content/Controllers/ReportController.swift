import Hummingbird
import ShopkeeperHTTP
import ShopkeeperReports

/// `GET /v1/admin/reports/content` (secret key): the app's content downloads per UTC day and pack version, as JSON
/// or CSV (``ReportRequest``). The gateway routes it here: the content service keeps the download log.
struct ReportController {
    let reports: any ReportRepository

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("/v1/admin/reports/content") { request, context in
            let caller = try context.requireSecretCaller()
            let report = try ReportRequest.read(
                request.uri.queryParameters, accept: request.headers[.accept], spec: ContentReports.content)
            return try await reports.downloads(appID: caller.appID, request: report).response()
        }
        return routes
    }
}
