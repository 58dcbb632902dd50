import Hummingbird
import ShopkeeperHTTP

/// Answers a method the API does not document on a path it does (`TRACE /v1/catalog`, `DELETE /health/live`) with
/// `405 method_not_allowed` and an `Allow` header, before authentication or forwarding. Paths the table does not know
/// go on to the router (and its 404).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: PublicRoutes

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let allowed = routes.allowedMethods(for: request.uri.path), !allowed.contains(request.method) {
            throw MethodNotAllowed(allowed: allowed)
        }
        return try await next(request, context)
    }
}

/// `405 method_not_allowed`, naming the methods the path accepts in `Allow`.
struct MethodNotAllowed: ProblemError {
    let allowed: [HTTPRequest.Method]

    var status: HTTPResponse.Status { .methodNotAllowed }
    var code: String { RequestError.methodNotAllowed.code }
    var detail: String { "This path accepts only \(allowed.map(\.rawValue).joined(separator: ", "))." }
    var headers: HTTPFields { [.allow: allowed.map(\.rawValue).joined(separator: ", ")] }
}
