import Hummingbird
import ShopkeeperHTTP
import ShopkeeperReports

/// `/v1/admin/reports/{sales,usage,consumables,mrr}` (secret key): the app's own figures over a range of UTC days, as
/// JSON or CSV (``ReportRequest``); MRR in one reporting currency when `currency` is given.
struct ReportController {
    let reports: any ReportRepository

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.report("sales", spec: EntitlementsReports.sales) { try await reports.sales(appID: $0, request: $1) }
        routes.report("usage", spec: EntitlementsReports.usage) { try await reports.usage(appID: $0, request: $1) }
        routes.report("consumables", spec: EntitlementsReports.consumables) {
            try await reports.consumables(appID: $0, request: $1)
        }
        routes.get("mrr") { request, context in
            let caller = try context.requireSecretCaller()
            let query = request.uri.queryParameters
            let report = try ReportRequest.read(query, accept: request.headers[.accept], spec: EntitlementsReports.mrr)
            let currency = try Self.reportingCurrency(query.getAll("currency"))
            return try await reports.mrr(appID: caller.appID, request: report, currency: currency).response()
        }
        return routes
    }

    /// `?currency=`: the one ISO 4217 code figures are converted to, or none (each figure in its own currency).
    static func reportingCurrency(_ values: [String]) throws(RequestError) -> String? {
        guard let first = values.first else { return nil }
        guard values.count == 1, ExchangeRateFile.isCurrency(first) else {
            throw .invalidQuery([
                FieldProblem(pointer: "?currency", detail: "must be given once, an ISO 4217 code such as USD")
            ])
        }
        return first
    }
}
