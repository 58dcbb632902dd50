import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// Authenticates `Authorization: Bearer <key>`, or (without an `Authorization` header) a console session's cookie
/// as the same identity as its key (``ConsoleSessions``, which also holds changes to the CSRF rules), and applies
/// the key's rate limits (a public key's per client too).
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let authenticator: APIKeyAuthenticator
    let sessions: ConsoleSessions
    let rateLimiter: TokenBucketRateLimiter
    let limits: RateLimits
    let clients: ClientAddressResolver

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let identity: KeyIdentity
        if let key = Self.bearerToken(request.headers[.authorization]) {
            guard let known = try await authenticator.identity(of: key) else { throw AuthError.invalidKey }
            identity = known
        } else if request.headers[.authorization] == nil, let session = try await sessions.authenticate(request) {
            identity = session.identity
            context.session = session
            context.logger[metadataKey: "console_session"] = .string(session.sessionID)
        } else {
            throw AuthError.missingCredentials
        }
        let client = clients.client(
            of: identity, peer: context.peer,
            forwardedFor: request.headers[values: ClientAddressResolver.forwardedFor])
        if let retryAfter = rateLimiter.acquire(for: identity, client: client, limits: limits) {
            throw AuthError.rateLimited(retryAfterSeconds: retryAfter)
        }
        context.identity = identity
        context.logger[metadataKey: "app_id"] = .string(identity.appID)
        return try await next(request, context)
    }

    /// The token of a `Bearer` authorization header.
    /// Runs on every request, so it avoids Foundation's string machinery.
    static func bearerToken(_ header: String?) -> String? {
        guard let header, header.utf8.count > 7 else { return nil }
        let scheme = header.utf8.prefix(7)
        let expected = "bearer ".utf8
        // ASCII case-insensitive comparison of the scheme and its separating space.
        guard zip(scheme, expected).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        let token = header.utf8.dropFirst(7).drop(while: { $0 == 0x20 })
        let trimmed = token.reversed().drop(while: { $0 == 0x20 }).count
        guard trimmed > 0 else { return nil }
        return String(Substring(token.prefix(trimmed)))
    }
}

/// Rate limits per key kind.
struct RateLimits: Sendable, Equatable {
    /// Each public key's ceiling: all its clients together (`SHOPKEEPER_RATE_LIMIT_PUBLIC`).
    var publicKeys: RateLimit
    /// Each client of a public key (`SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT`, see ``ClientAddressResolver``).
    var publicClients: RateLimit
    /// Each secret key (`SHOPKEEPER_RATE_LIMIT_SECRET`).
    var secretKeys: RateLimit
}
