import Hummingbird
import ShopkeeperHTTP
import ShopkeeperReports

/// `/v1/admin/reports/{sales,usage,consumables}` (secret key): the app's own figures over a range of UTC days, as JSON
/// or CSV (``ReportRequest``).
struct ReportController {
    let reports: any ReportRepository

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("sales") { request, context in
            let caller = try context.requireSecretCaller()
            let report = try ReportRequest.read(
                request.uri.queryParameters, accept: request.headers[.accept], spec: EntitlementsReports.sales)
            return try await reports.sales(appID: caller.appID, request: report).response()
        }
        routes.get("usage") { request, context in
            let caller = try context.requireSecretCaller()
            let report = try ReportRequest.read(
                request.uri.queryParameters, accept: request.headers[.accept], spec: EntitlementsReports.usage)
            return try await reports.usage(appID: caller.appID, request: report).response()
        }
        routes.get("consumables") { request, context in
            let caller = try context.requireSecretCaller()
            let report = try ReportRequest.read(
                request.uri.queryParameters, accept: request.headers[.accept], spec: EntitlementsReports.consumables)
            return try await reports.consumables(appID: caller.appID, request: report).response()
        }
        return routes
    }
}
