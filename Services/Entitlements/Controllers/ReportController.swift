import Hummingbird
import ShopkeeperHTTP
import ShopkeeperReports

/// `/v1/admin/reports/{sales,usage,consumables}` (secret key): the app's own figures over a range of UTC days, as JSON
/// or CSV (``ReportRequest``).
struct ReportController {
    let reports: any ReportRepository

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.report("sales", spec: EntitlementsReports.sales) { try await reports.sales(appID: $0, request: $1) }
        routes.report("usage", spec: EntitlementsReports.usage) { try await reports.usage(appID: $0, request: $1) }
        routes.report("consumables", spec: EntitlementsReports.consumables) {
            try await reports.consumables(appID: $0, request: $1)
        }
        return routes
    }
}
