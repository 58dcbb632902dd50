import Hummingbird
import ShopkeeperHTTP

extension RouteCollection where Context == ServiceRequestContext {
    /// `GET path` (secret key): one report of the caller's own app, read from the query by `spec`
    /// (``ReportRequest/read(_:accept:spec:)``) and answered as JSON or CSV (``ReportTable/response()``).
    @discardableResult
    package func report(
        _ path: RouterPath, spec: ReportSpec,
        _ table: @escaping @Sendable (_ appID: String, _ request: ReportRequest) async throws -> ReportTable
    ) -> Self {
        get(path) { request, context in
            let caller = try context.requireSecretCaller()
            let report = try ReportRequest.read(
                request.uri.queryParameters, accept: request.headers[.accept], spec: spec)
            return try await table(caller.appID, report).response()
        }
        return self
    }
}
