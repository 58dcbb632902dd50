import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// Authenticates `Authorization: Bearer <key>`, or (without an `Authorization` header) a console session's cookie
/// as the same identity as its key (``ConsoleSessions``, which also holds changes to the CSRF rules; a console user's
/// session held to its role, ``ConsoleRoles``), and applies
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
            // A console user's role, checked here for every route a session reaches: the gateway's own and those it
            // forwards.
            try ConsoleRoles.authorize(session.role, request.method, path: request.uri.path)
            identity = session.identity
            context.session = session
            context.logger[metadataKey: "console_session"] = .string(session.sessionID)
        } else {
            throw AuthError.missingCredentials
        }
        let client = clients.client(
            of: identity, peer: context.peer,
            forwardedFor: request.headers[values: ClientAddressResolver.forwardedFor])
        if let retryAfter = rateLimiter.acquire(
            for: identity, client: client, customer: Self.rateLimitedCustomer(request.uri.path[...]), limits: limits)
        {
            throw AuthError.rateLimited(retryAfterSeconds: retryAfter)
        }
        context.identity = identity
        context.logger[metadataKey: "app_id"] = .string(identity.appID)
        return try await next(request, context)
    }

    /// The customer a request's path names (`/v1/customers/{app_user_id}/...`), decoded when it can be, for its own
    /// bucket behind its client's address (``RateLimits/publicClients``).
    static func rateLimitedCustomer(_ path: Substring) -> String? {
        guard let segment = CustomerPath.idSegment(of: path) else { return nil }
        return (try? AppUserID.decode(segment: segment)) ?? String(segment)
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
///
/// A public key's request takes a token from the key's ceiling (all its clients together), from its client
/// address's bucket (an IPv4 address, an IPv6 /64: ``ClientAddressResolver``), and, when its path names a customer
/// (`/v1/customers/{app_user_id}/...`), from the bucket of that customer behind that address. Behind carrier NAT many
/// phones share one address, each with its own customer: they share the address's (coarse) limit, not the
/// per-customer one. One client hammering one customer is held to ``publicClients``; one client rotating customer ids,
/// or calling routes that name none (the catalog, purchases), to ``publicAddresses``; everyone to ``publicKeys``.
struct RateLimits: Sendable, Equatable {
    /// Each public key's ceiling: all its clients together (`SHOPKEEPER_RATE_LIMIT_PUBLIC`).
    var publicKeys: RateLimit
    /// Each customer behind one client address of a public key (`SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT`).
    var publicClients: RateLimit
    /// Each client address of a public key, all its customers together (`SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS`).
    var publicAddresses: RateLimit
    /// Each secret key (`SHOPKEEPER_RATE_LIMIT_SECRET`).
    var secretKeys: RateLimit
}
