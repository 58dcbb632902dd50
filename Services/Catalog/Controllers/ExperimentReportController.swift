import Hummingbird
import NIOCore
import ShopkeeperHTTP
import ShopkeeperReports

/// `GET /v1/admin/reports/experiments/{experiment_id}` (secret key): an experiment's results per variant
/// (``ExperimentResults``), as JSON or, with `?format=csv` or `Accept: text/csv`, as CSV. Never cached: the figures
/// change with every exposure and purchase.
struct ExperimentReportController {
    let experiments: ExperimentPostgresRepository
    let results: ExperimentResultsPostgresReader

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get(":experiment_id") { request, context in
            let caller = try context.requireSecretCaller()
            let experimentID = try context.parameters.require("experiment_id")
            let format = try Self.format(request)
            let experiment = try await experiments.experiment(appID: caller.appID, experimentID: experimentID)
            let customers = try await results.customers(appID: caller.appID, experimentID: experimentID)
            let report = ExperimentResults(experiment: experiment, customers: customers)
            switch format {
            case .json:
                return try JSONBody.response(report, headers: [.cacheControl: "no-store"])
            case .csv:
                let body = report.csv()
                let headers: HTTPFields = [
                    .cacheControl: "no-store", .contentType: "text/csv; charset=utf-8; header=present",
                    .contentDisposition: "attachment; filename=\"experiment-\(experimentID).csv\"",
                    .contentLength: String(body.utf8.count),
                ]
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
            }
        }
        return routes
    }

    /// `?format=` (json or csv), else what `Accept` prefers, as the other reports read it.
    static func format(_ request: Request) throws(RequestError) -> ReportFormat {
        guard let given = request.uri.queryParameters.get("format") else {
            return ReportRequest.format(accept: request.headers[.accept])
        }
        guard let format = ReportFormat(rawValue: given) else {
            throw .invalidQuery([FieldProblem(pointer: "?format", detail: "must be json or csv")])
        }
        return format
    }
}
