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
        routes.report("/v1/admin/reports/content", spec: ContentReports.content) {
            try await reports.downloads(appID: $0, request: $1)
        }
        return routes
    }
}
