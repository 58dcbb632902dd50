import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// Authenticates `Authorization: Bearer <key>` and applies the key's rate limit.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let authenticator: APIKeyAuthenticator
    let rateLimiter: TokenBucketRateLimiter
    let limits: RateLimits

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let key = Self.bearerToken(request.headers[.authorization]) else { throw AuthError.missingCredentials }
        guard let identity = try await authenticator.identity(of: key) else { throw AuthError.invalidKey }
        if let retryAfter = rateLimiter.acquire(key: identity.keyID, limit: limits.limit(for: identity.kind)) {
            throw AuthError.rateLimited(retryAfterSeconds: retryAfter)
        }
        var context = context
        context.identity = identity
        context.logger[metadataKey: "app_id"] = .string(identity.appID)
        return try await next(request, context)
    }

    /// The token of a `Bearer` authorization header.
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}

/// Rate limits per key kind.
struct RateLimits: Sendable, Equatable {
    var publicKeys: RateLimit
    var secretKeys: RateLimit

    func limit(for kind: APIKeyKind) -> RateLimit {
        kind == .public ? publicKeys : secretKeys
    }
}
