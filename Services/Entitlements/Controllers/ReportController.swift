import Hummingbird
import ShopkeeperHTTP
import ShopkeeperReports

/// `/v1/admin/reports/{sales,usage,consumables,mrr,activity,trial-conversion,retention,churn,refunds,ltv}` (secret
/// key): the app's own figures over a range of UTC days, as JSON or CSV (``ReportRequest``); amounts in one reporting
/// currency when `currency` is given.
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
        routes.report("activity", spec: EntitlementsReports.activity) {
            try await reports.activity(appID: $0, request: $1)
        }
        routes.get("trial-conversion") { request, context in
            let caller = try context.requireSecretCaller()
            let report = try Self.chartRequest(request, spec: EntitlementsReports.trialConversion)
            return try await reports.trialConversion(appID: caller.appID, request: report).response()
        }
        routes.get("retention") { request, context in
            let caller = try context.requireSecretCaller()
            let report = try Self.chartRequest(request, spec: EntitlementsReports.retention)
            return try await reports.retention(appID: caller.appID, request: report).response()
        }
        for (chart, spec) in [
            (RevenueChart.churn, EntitlementsReports.churn), (.refunds, EntitlementsReports.refunds),
            (.ltv, EntitlementsReports.ltv),
        ] {
            routes.get(RouterPath(chart.report)) { request, context in
                let caller = try context.requireSecretCaller()
                let report = try Self.chartRequest(request, spec: spec)
                let currency = try Self.reportingCurrency(request.uri.queryParameters.getAll("currency"))
                return try await reports.revenueChart(chart, appID: caller.appID, request: report, currency: currency)
                    .response()
            }
        }
        return routes
    }

    /// A chart's request (``EntitlementsReports/chart(_:)``): rows by month or by day, not both.
    static func chartRequest(_ request: Request, spec: ReportSpec) throws(RequestError) -> ReportRequest {
        let report = try ReportRequest.read(request.uri.queryParameters, accept: request.headers[.accept], spec: spec)
        guard !(report.groups(by: "month") && report.groups(by: "day")) else {
            throw .invalidQuery([FieldProblem(pointer: "?group_by", detail: "names month or day, not both")])
        }
        return report
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
