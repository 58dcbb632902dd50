import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ShopkeeperHTTP

/// Turns a request's session cookie into its live session, and holds changes made through one to the CSRF rules.
///
/// A session authenticates like its key: the gateway turns it into the same identity (``ConsoleSession/identity``),
/// so the services behind it see no difference. What a cookie adds is the browser's habit of sending it by itself,
/// so every change through a session (any method but `GET` and `HEAD`) must also carry the session's CSRF token in
/// `X-CSRF-Token`, which a page of another site cannot read, and must not come from another site by the browser's own
/// account (`Origin`, `Sec-Fetch-Site`, when sent). The cookie's `SameSite=Strict` is the first line; this is the
/// second.
struct ConsoleSessions: Sendable {
    let repository: any ConsoleSessionRepository
    let settings: ConsoleSettings
    /// The fingerprint of the configured operator key (``ConsoleSessionToken/operatorFingerprint(_:masterKey:)``);
    /// `nil` when the operator API is off, and then no operator session is live.
    let operatorFingerprint: [UInt8]?

    static let csrfHeader = "x-csrf-token".fieldName
    static let fetchSiteHeader = "sec-fetch-site".fieldName

    /// The session token a request's cookie carries, if any.
    static func token(of request: Request) -> String? {
        ConsoleSessionToken.token(inCookies: request.headers[values: .cookie])
    }

    /// The live session of the request's cookie, its CSRF rules checked for a change; `nil` when the request has no
    /// session cookie. Throws ``ConsoleError/sessionExpired`` when the cookie names no live session and
    /// ``ConsoleError/csrfTokenInvalid(_:)`` when a change breaks the rules.
    func authenticate(_ request: Request) async throws -> ConsoleSession? {
        guard let token = Self.token(of: request) else { return nil }
        let session = try await live(token: token)
        if !Self.isSafe(request.method) { try Self.checkChange(request, csrfToken: session.csrfToken) }
        return session
    }

    /// The live session of `token`; throws ``ConsoleError/sessionExpired`` when there is none.
    func live(token: String) async throws -> ConsoleSession {
        guard
            let stored = try await repository.live(
                tokenHash: ConsoleSessionToken.hash(token), idle: settings.idleTimeout,
                operatorFingerprint: operatorFingerprint)
        else { throw ConsoleError.sessionExpired }
        return ConsoleSession(stored, token: token)
    }

    /// `GET` and `HEAD` change nothing (the API keeps to that).
    static func isSafe(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head
    }

    /// A change through a session: the right `X-CSRF-Token`, and not from another site.
    static func checkChange(_ request: Request, csrfToken: String) throws(ConsoleError) {
        try checkSameOrigin(request)
        guard let given = request.headers[csrfHeader] else { throw .csrfTokenInvalid("the header is missing") }
        // Compared as digests: the time taken tells nothing about how much of the token was right.
        guard SHA256.hash(data: Array(given.utf8)) == SHA256.hash(data: Array(csrfToken.utf8)) else {
            throw .csrfTokenInvalid("it is not this session's token")
        }
    }

    /// Refuses a request the browser says comes from another site: an `Origin` whose host and port are not the
    /// request's own `Host`, or a `Sec-Fetch-Site` other than `same-origin`. Either header may be absent (a tool that
    /// is not a browser); the CSRF token still has to be right.
    static func checkSameOrigin(_ request: Request) throws(ConsoleError) {
        if let site = request.headers[fetchSiteHeader], site.lowercased() != "same-origin" {
            throw .csrfTokenInvalid("the request comes from another site (Sec-Fetch-Site: \(site))")
        }
        if let origin = request.headers[.origin] {
            let host = request.head.authority?.lowercased()
            guard let url = URL(string: origin),
                let originHost = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
                let host
            else {
                throw .csrfTokenInvalid("the request's Origin is not this console's")
            }
            let authority =
                (originHost.contains(":") ? "[\(originHost)]" : originHost) + (url.port.map { ":\($0)" } ?? "")
            guard authority == host else { throw .csrfTokenInvalid("the request's Origin is not this console's") }
        }
    }
}

extension ConsoleSession {
    init(_ stored: StoredConsoleSession, token: String) {
        self.init(
            sessionID: stored.sessionID, appID: stored.appID, keyID: stored.keyID, expiresAt: stored.expiresAt,
            idleExpiresAt: stored.idleExpiresAt, csrfToken: ConsoleSessionToken.csrfToken(for: token), user: stored.user
        )
    }
}
