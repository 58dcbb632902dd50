import Hummingbird
import Logging

/// Turns every error thrown below it into an `application/problem+json` response.
///
/// Known errors render their own problem; Hummingbird's `HTTPError`s get a stable code by status; a transient
/// database failure (``DatabaseUnavailable``) becomes a 503 to retry; anything else becomes a 500 `internal_error`
/// with no internal detail, logged at `error` with the request id.
package struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any ProblemError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let mapped: RequestError =
                switch error.status {
                case .notFound: .notFound
                case .methodNotAllowed: .methodNotAllowed
                case .contentTooLarge: .bodyTooLarge(limit: context.maxUploadSize)
                default: .badHeader(name: "request", detail: error.body ?? error.status.reasonPhrase)
                }
            if error.status.code >= 500 {
                return internalError(error, request: request, context: context)
            }
            return try mapped.response(from: request, context: context)
        } catch {
            if let unavailable = DatabaseUnavailable(error) {
                context.logger.warning(
                    "database unavailable",
                    metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
                return try unavailable.response(from: request, context: context)
            }
            return internalError(error, request: request, context: context)
        }
    }

    private func internalError(_ error: any Error, request: Request, context: Context) -> Response {
        context.logger.error(
            "request failed",
            metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"]
        )
        let problem = Problem(
            type: Problem.typeURI(code: "internal_error"),
            title: "Internal Server Error",
            status: 500,
            detail: "Something went wrong on the server; it has been logged. Retrying is safe.",
            code: "internal_error",
            requestID: context.requestID,
            errors: nil
        )
        return ProblemRenderer.response(status: .internalServerError, problem: problem)
    }
}
