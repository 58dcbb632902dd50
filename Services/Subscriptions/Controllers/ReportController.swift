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
        routes.report("/v1/admin/reports/subscriptions", spec: SubscriptionsReports.subscriptions) {
            try await reports.subscriptions(appID: $0, request: $1)
        }
        return routes
    }
}
