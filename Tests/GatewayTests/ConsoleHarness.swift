import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport

@testable import Gateway

/// A console session as a test holds it: its cookie's token and what the gateway said about it.
struct ConsoleLogin {
    var token: String
    var info: ConsoleSessionInfo

    /// The `Cookie` header a browser would send.
    var cookie: HTTPFields { [.cookie: "\(ConsoleSessionToken.cookieName)=\(token)"] }

    /// The cookie with the session's CSRF token, as the console's pages send changes.
    var change: HTTPFields {
        var fields = cookie
        fields[ConsoleSessions.csrfHeader] = info.csrfToken
        return fields
    }
}

extension GatewayHarness {
    static let sessionPath = "/console/api/session"

    /// `POST /console/api/session` with `key` (and `appID`), from the test client (whose `Host` is `localhost`).
    func signInAnswer(key: String, appID: String? = nil) async throws -> TestResponse {
        try await send(
            .post, Self.sessionPath, bearer: nil,
            json: try TestJSON.encode(ConsoleSignInRequest(key: key, appID: appID)))
    }

    /// `method path` as a browser that reached the gateway as `host` sends it (its own `Host` header), with the
    /// cookie and CSRF token of `login` when given.
    func browser(
        _ method: String, _ path: String, host: String, login: ConsoleLogin? = nil, headers: [(String, String)] = [],
        body: String = ""
    ) async throws -> LoopbackClient.Answer {
        var fields = headers
        if let login {
            fields.append(("Cookie", "\(ConsoleSessionToken.cookieName)=\(login.token)"))
            fields.append(("X-CSRF-Token", login.info.csrfToken))
        }
        if !body.isEmpty { fields.append(("Content-Type", "application/json")) }
        return try await LoopbackClient(address: "127.0.0.1").send(
            port: client.port ?? 0, method, path, host: host, headers: fields, body: body)
    }

    /// Signs in, requiring `201`.
    func signIn(key: String, appID: String? = nil) async throws -> ConsoleLogin {
        try await login(try await signInAnswer(key: key, appID: appID))
    }

    /// Runs `statement` on the test database (a test moves a session's clock by editing its row).
    static func database(_ statement: PostgresQuery) async throws {
        try await TestDatabase.withClient(try TestDatabase.settings()) { client in
            try await client.query(statement)
        }
    }
}

struct ConsoleTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
