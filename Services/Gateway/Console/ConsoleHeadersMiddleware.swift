import HTTPTypes
import Hummingbird
import ShopkeeperHTTP

/// Puts the console's browser protections on every response under `/console` (pages, files, the session API and
/// their refusals alike): a strict `Content-Security-Policy` (only the gateway's own origin, no inline script or
/// style, no framing, no plugins), `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and
/// `Referrer-Policy: no-referrer`. Other paths pass untouched.
struct ConsoleHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The policy: everything from the gateway's own origin only; no inline scripts (`'self'` without
    /// `'unsafe-inline'`), nothing loaded from elsewhere at run time.
    static var contentSecurityPolicy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard path == "/console" || path.hasPrefix("/console/") else { return try await next(request, context) }
        var response = try await next(request, context)
        Self.protect(&response.headers)
        return response
    }

    static func protect(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[.xFrameOptions] = "DENY"
        headers[.referrerPolicy] = "no-referrer"
        headers[.crossOriginOpenerPolicy] = "same-origin"
    }
}

extension HTTPField.Name {
    static let xFrameOptions = "X-Frame-Options".fieldName
    static let referrerPolicy = "Referrer-Policy".fieldName
    static let crossOriginOpenerPolicy = "Cross-Origin-Opener-Policy".fieldName
}
