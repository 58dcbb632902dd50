import Crypto
import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `/console/api/session`: signing in to the console, who is signed in, switching app (operator), signing out.
///
/// Signing in trades an app's secret key, or the operator key and an app id, or a console user's email and password
/// (and one-time code, ``ConsoleTeam``) with the app id, for a session cookie (`HttpOnly`,
/// `SameSite=Strict`, `Path=/`, `Secure` unless the host is `localhost`); the key goes no further than this request:
/// the browser keeps only the cookie, the database only the token's hash and the key's id. Attempts are rate limited
/// per client address, whether they succeed or not. Signing in, switching app and signing out are written to the
/// app's audit log (`console.sign_in`, `console.switch_app`, `console.sign_out`), with the session's id.
struct ConsoleSessionController: Sendable {
    let sessions: ConsoleSessions
    let apps: any AppRepository
    let auditLog: any AuditLogRepository
    let authenticator: APIKeyAuthenticator
    let team: ConsoleTeam
    let rateLimiter: TokenBucketRateLimiter
    let clients: ClientAddressResolver
    let operatorKey: String?
    let maxBodyBytes: Int

    /// All clients' sign-in attempts together, on one replica: a ceiling above any one client's limit.
    static let signInCeiling = RateLimit(perSecond: 20, burst: 100)

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        routes.post("/console/api/session", use: signIn)
        routes.get("/console/api/session", use: current)
        routes.put("/console/api/session", use: switchApp)
        routes.delete("/console/api/session", use: signOut)
        return routes
    }

    @Sendable func signIn(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        try ConsoleSessions.checkSameOrigin(request)
        try checkSignInRate(request, context: context)
        let body = try await JSONBody.decode(ConsoleSignInRequest.self, from: request, limit: maxBodyBytes)
        if let email = body.email {
            guard body.key == nil else { throw RequestError.invalid("/key", "send a key or an email, not both") }
            guard let password = body.password else {
                throw RequestError.invalid("/password", "is required with an email")
            }
            guard let appID = body.appID else { throw RequestError.invalid("/app_id", "is required with an email") }
            let user = try await team.signIn(appID: appID, email: email, password: password, totpCode: body.totpCode)
            return try await openSession(
                appID: appID, keyID: nil, fingerprint: nil, user: user, request, context: context)
        }
        guard let key = body.key else { throw RequestError.invalid("/key", "is required (or email and password)") }
        if let operatorKey, Self.same(key, operatorKey) {
            guard let requested = body.appID else {
                throw RequestError.invalid("/app_id", "is required when signing in with the operator key")
            }
            return try await openSession(
                appID: requested, keyID: nil, fingerprint: sessions.operatorFingerprint, user: nil, request,
                context: context)
        }
        guard let identity = try await authenticator.identity(of: key) else { throw AuthError.invalidKey }
        guard identity.kind == .secret else { throw AuthError.secretKeyRequired }
        if let requested = body.appID, requested != identity.appID {
            throw RequestError.invalid("/app_id", "a secret key signs in to its own app only")
        }
        return try await openSession(
            appID: identity.appID, keyID: identity.keyID, fingerprint: nil, user: nil, request, context: context)
    }

    /// Takes a sign-in attempt from the client's bucket (whether it succeeds or not): sign-ins, and accepting an
    /// invitation, which sets a password.
    func checkSignInRate(_ request: Request, context: GatewayRequestContext) throws(AuthError) {
        let client = clients.client(
            peer: context.peer, forwardedFor: request.headers[values: ClientAddressResolver.forwardedFor])
        if let retryAfter = rateLimiter.acquire(
            key: "console-sign-in", client: client, clientLimit: sessions.settings.signInLimit,
            ceiling: Self.signInCeiling)
        {
            throw .rateLimited(retryAfterSeconds: retryAfter)
        }
    }

    /// Opens a session for `appID` with one of the key `keyID`, the operator key (`fingerprint`) or `user`, and
    /// answers with its cookie.
    private func openSession(
        appID: String, keyID: String?, fingerprint: [UInt8]?, user: SessionUser?, _ request: Request,
        context: GatewayRequestContext
    ) async throws -> Response {
        let app = try await apps.app(appID: appID)
        let token = ConsoleSessionToken.generate()
        let stored = try await sessions.repository.create(
            tokenHash: ConsoleSessionToken.hash(token), appID: appID, keyID: keyID, operatorFingerprint: fingerprint,
            user: user, lifetime: sessions.settings.sessionLifetime, idle: sessions.settings.idleTimeout)
        context.logger.info(
            "console session opened",
            metadata: [
                "app_id": "\(appID)", "session_id": "\(stored.sessionID)",
                "key_id": "\(keyID ?? user.map { "user \($0.userID)" } ?? "operator")",
            ])
        let session = ConsoleSession(stored, token: token)
        await audit(
            session, action: "console.sign_in", summary: "Signed in to the console", method: "POST", status: 201,
            context: context)
        let cookie = ConsoleSessionToken.setCookie(
            token, maxAge: sessions.settings.sessionLifetime, secure: Self.secure(request))
        return try JSONBody.response(
            Self.info(session, appName: app.name), status: .created,
            headers: [.setCookie: cookie, .cacheControl: "no-store"])
    }

    @Sendable func current(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        guard let token = ConsoleSessions.token(of: request) else { throw ConsoleError.sessionRequired }
        let session = try await sessions.live(token: token)
        let app = try await apps.app(appID: session.appID)
        return try JSONBody.response(Self.info(session, appName: app.name), headers: [.cacheControl: "no-store"])
    }

    @Sendable func switchApp(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        guard let token = ConsoleSessions.token(of: request) else { throw ConsoleError.sessionRequired }
        guard let session = try await sessions.authenticate(request) else { throw ConsoleError.sessionRequired }
        guard session.actor == .operator else { throw ConsoleError.operatorSessionRequired }
        let body = try await JSONBody.decode(ConsoleSwitchAppRequest.self, from: request, limit: maxBodyBytes)
        let app = try await apps.app(appID: body.appID)
        guard
            let stored = try await sessions.repository.switchApp(
                tokenHash: ConsoleSessionToken.hash(token), appID: app.appID)
        else { throw ConsoleError.sessionExpired }
        let switched = ConsoleSession(stored, token: token)
        // In the log of the app it left and of the one it went to.
        for appID in Set([session.appID, app.appID]) {
            var entry = switched
            entry.appID = appID
            await audit(
                entry, action: "console.switch_app",
                summary: "Switched the console from \(session.appID) to \(app.appID)",
                method: "PUT", status: 200, context: context)
        }
        return try JSONBody.response(Self.info(switched, appName: app.name), headers: [.cacheControl: "no-store"])
    }

    /// Ends the session and removes the cookie. Without a cookie there is nothing to end: `204` all the same. The
    /// CSRF token is checked even for a session already over (it derives from the cookie, not from the database).
    @Sendable func signOut(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        if let token = ConsoleSessions.token(of: request) {
            try ConsoleSessions.checkChange(request, csrfToken: ConsoleSessionToken.csrfToken(for: token))
            let session = try? await sessions.live(token: token)
            try await sessions.repository.delete(tokenHash: ConsoleSessionToken.hash(token))
            if let session {
                await audit(
                    session, action: "console.sign_out", summary: "Signed out of the console", method: "DELETE",
                    status: 204, context: context)
            }
        }
        return Response(
            status: .noContent,
            headers: [
                .setCookie: ConsoleSessionToken.clearCookie(secure: Self.secure(request)), .cacheControl: "no-store",
            ])
    }

    /// Writes a session's sign-in, switch or sign-out to its app's audit log. As for every audited action, a record
    /// that cannot be written is logged at `error` and the answer goes out all the same.
    func audit(
        _ session: ConsoleSession, action: String, summary: String, method: String, status: Int,
        path: String = "/console/api/session", context: GatewayRequestContext
    ) async {
        let record = AuditRecord(
            appID: session.appID, actor: session.actor, keyID: session.keyID, sessionID: session.sessionID,
            userEmail: session.user?.email, method: method, path: path, action: action, targets: [:], summary: summary,
            status: status, requestID: context.requestID, idempotencyKey: nil)
        await write(record, context: context)
    }

    /// Writes `record` to the audit log; a record that cannot be written is logged at `error`.
    func write(_ record: AuditRecord, context: GatewayRequestContext) async {
        do {
            try await auditLog.record(record)
        } catch {
            context.logger.error(
                "could not write the audit log",
                metadata: ["action": "\(record.action)", "error": "\(String(reflecting: error))"])
        }
    }

    /// Whether the cookie gets `Secure`: always, unless the browser reached the gateway as `localhost`.
    static func secure(_ request: Request) -> Bool {
        !ConsoleSessionToken.isLocal(host: request.head.authority)
    }

    static func info(_ session: ConsoleSession, appName: String) -> ConsoleSessionInfo {
        ConsoleSessionInfo(
            sessionID: session.sessionID, appID: session.appID, appName: appName, actor: session.actor,
            keyID: session.keyID, csrfToken: session.csrfToken, expiresAt: session.expiresAt,
            idleExpiresAt: session.idleExpiresAt, userEmail: session.user?.email, role: session.role)
    }

    /// Compares two keys in time that does not depend on where they differ.
    private static func same(_ given: String, _ expected: String) -> Bool {
        SHA256.hash(data: Array(given.utf8)) == SHA256.hash(data: Array(expected.utf8))
    }
}
