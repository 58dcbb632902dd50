import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/admin/customers/{app_user_id}/ltv?environment=&currency=` (secret key): one customer's realized LTV,
/// what they paid with refunds taken off, per currency as paid and, with `currency`, in that reporting currency
/// (``CustomerLTVQuery``).
struct CustomerLTVController {
    let customers: any CustomerLTVRepository

    /// Mounted at `/v1/admin/customers`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get(":app_user_id/ltv") { request, context in
                let (caller, id) = try context.requireCallerAndCustomer(secretKey: true)
                let query = request.uri.queryParameters
                let environment = try Self.environment(query.getAll("environment"))
                let currency = try ReportController.reportingCurrency(query.getAll("currency"))
                return JSONText.response(
                    try await customers.ltv(
                        appID: caller.appID, appUserID: id, environment: environment, currency: currency),
                    headers: [.cacheControl: "no-store"])
            }
    }

    /// `?environment=`: the purchases' environment, `production` when not given.
    static func environment(_ values: [String]) throws(RequestError) -> StoreEnvironment {
        guard let first = values.first else { return .production }
        guard values.count == 1, let environment = StoreEnvironment(rawValue: first) else {
            let allowed = StoreEnvironment.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidQuery([FieldProblem(pointer: "?environment", detail: "must be given once, one of \(allowed)")]
            )
        }
        return environment
    }
}
