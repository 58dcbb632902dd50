import Hummingbird

/// CORS for a configured list of browser origins (web clients of the public API).
///
/// Preflights from an allowed origin are answered here, before authentication (browsers send no credentials on
/// them); other origins get no CORS headers, so browsers refuse the response.
struct AllowedOriginsCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: Set<String>

    static var allowedHeaders: String {
        "Authorization, Content-Type, Idempotency-Key, If-None-Match, Shopkeeper-Customer-Token, X-Request-ID, "
            + "X-Shopkeeper-Nonce"
    }
    /// What a page may read of an answer: a web client checks signed answers (`X-Shopkeeper-Signature`).
    static var exposedHeaders: String { "ETag, Retry-After, X-Request-ID, X-Shopkeeper-Signature" }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let origin = request.headers[.origin], allowedOrigins.contains(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin,
                    .accessControlAllowMethods: "GET, HEAD, POST, PUT, PATCH, DELETE",
                    .accessControlAllowHeaders: Self.allowedHeaders,
                    .accessControlMaxAge: "600",
                    .vary: "Origin",
                ]
            )
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        response.headers[.vary] = "Origin"
        return response
    }
}
