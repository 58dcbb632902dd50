import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// Console sessions: a secret key (or the operator key for an app) traded for a cookie that acts as the key, the
/// cookie's flags, and every refusal of the session and CSRF rules, through a live gateway and real PostgreSQL.
@Suite struct ConsoleSessionTests {
    @Test func aSessionCookieActsAsItsKeyAndKeepsTheKeyOutOfTheBrowserAndTheDatabase() async throws {
        // Many sign-ins from one address: above the default limit of a burst of 10.
        try await GatewayHarness.run(environment: ["SHOPKEEPER_CONSOLE_SIGN_IN_RATE": "10/100"]) { gateway in
            let app = try await gateway.createApp("Console")
            let answer = try await gateway.signInAnswer(key: app.secretKey.key)
            #expect(answer.status == .created)
            #expect(try answer.violations(.post, GatewayHarness.sessionPath) == [])
            let cookie = try #require(answer.headers[.setCookie])
            #expect(!cookie.contains(app.secretKey.key))
            #expect(!String(buffer: answer.body).contains(app.secretKey.key))
            let info = try TestJSON.decode(ConsoleSessionInfo.self, answer.body.readableBytesView)
            #expect(info.appID == app.info.appID)
            #expect(info.appName == "Console")
            #expect(info.actor == .secretKey)
            #expect(info.keyID == app.secretKey.info.keyID)
            #expect(info.expiresAt > info.idleExpiresAt)

            // The cookie's flags, as a browser that reached the gateway by each name sees them: Secure anywhere but
            // on this machine, where plain http is the norm.
            let body = String(
                decoding: try TestJSON.encode(ConsoleSignInRequest(key: app.secretKey.key)), as: UTF8.self)
            for (host, secure) in [
                ("localhost:8080", false), ("127.0.0.1:8080", false), ("[::1]:8080", false), ("localhost", false),
                ("shop.example.com", true), ("console.example.com:8443", true), ("10.0.0.7", true),
            ] {
                let signedIn = try await gateway.browser(
                    "POST", GatewayHarness.sessionPath, host: host, headers: [("Origin", "https://\(host)")], body: body
                )
                #expect(signedIn.status == 201, "\(host): \(signedIn.body)")
                let flags = (signedIn.headers["set-cookie"] ?? "").split(separator: ";").dropFirst().map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                #expect(flags.first == "Path=/", "\(host)")
                #expect(flags.contains("HttpOnly") && flags.contains("SameSite=Strict"), "\(host)")
                #expect(flags.contains("Max-Age=43200"), "\(host)")
                #expect(flags.contains("Secure") == secure, "\(host)")
            }
            // A sign-in from a page of another site is refused.
            let crossSite = try await gateway.browser(
                "POST", GatewayHarness.sessionPath, host: "shop.example.com",
                headers: [("Origin", "https://evil.example")], body: body)
            #expect(crossSite.status == 403)
            #expect(try crossSite.problemCode == "csrf_token_invalid")

            let login = try await gateway.signIn(key: app.secretKey.key)
            let keys = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie)
            #expect(keys.status == .ok)
            #expect(String(buffer: keys.body).contains(app.secretKey.info.keyID))
            // Forwarded as the key: the services see a secret key of the app (and never the cookie).
            let history = try await gateway.send(
                .get, "/v1/customers/nobody/history", bearer: nil, headers: login.cookie)
            #expect(history.status == .notFound)
            #expect(history.problemCode == "customer_not_found")
            let current = try await gateway.send(.get, GatewayHarness.sessionPath, bearer: nil, headers: login.cookie)
            #expect(current.status == .ok)
            #expect(try current.violations(.get, GatewayHarness.sessionPath) == [])
            #expect(
                try TestJSON.decode(ConsoleSessionInfo.self, current.body.readableBytesView).csrfToken
                    == login.info.csrfToken)

            // The database holds the token's hash and the key's id, never the key or the token.
            let stored = try await TestDatabase.withClient(try TestDatabase.settings()) { client in
                let rows = try await client.query(
                    """
                    SELECT s::text, s.key_id FROM gateway.console_sessions s
                    WHERE s.token_hash = \(ByteBuffer(bytes: ConsoleSessionToken.hash(login.token)))
                    """)
                var found: [(String, String?)] = []
                for try await row in rows.decode((String, String?).self) { found.append(row) }
                return found
            }
            #expect(stored.count == 1)
            #expect(stored.first?.1 == app.secretKey.info.keyID)
            #expect(stored.first.map { !$0.0.contains(app.secretKey.key) && !$0.0.contains(login.token) } == true)
        }
    }

    @Test func noCookieAnUnknownOneAndAnExpiredOneAreRefused() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Refusals")
            let none = try await gateway.send(.get, GatewayHarness.sessionPath, bearer: nil)
            #expect(none.status == .unauthorized)
            #expect(none.problemCode == "session_required")
            #expect(try none.violations(.get, GatewayHarness.sessionPath) == [])
            let noKey = try await gateway.send(.get, "/v1/admin/keys", bearer: nil)
            #expect(noKey.status == .unauthorized)
            #expect(noKey.problemCode == "missing_credentials")

            let unknown: HTTPFields = [.cookie: "shopkeeper_session=\(String(repeating: "a", count: 43))"]
            for path in [GatewayHarness.sessionPath, "/v1/admin/keys", "/v1/customers/x/history"] {
                let refused = try await gateway.send(.get, path, bearer: nil, headers: unknown)
                #expect(refused.status == .unauthorized, "\(path)")
                #expect(refused.problemCode == "session_expired", "\(path)")
            }

            // Past its lifetime, or idle too long: refused on every replica (the database's clock decides).
            let expired = try await gateway.signIn(key: app.secretKey.key)
            try await GatewayHarness.database(
                """
                UPDATE gateway.console_sessions SET expires_at = now() - interval '1 second'
                WHERE session_id = \(expired.info.sessionID)
                """)
            let idle = try await gateway.signIn(key: app.secretKey.key)
            try await GatewayHarness.database(
                """
                UPDATE gateway.console_sessions SET idle_expires_at = now() - interval '1 second'
                WHERE session_id = \(idle.info.sessionID)
                """)
            for login in [expired, idle] {
                let refused = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie)
                #expect(refused.status == .unauthorized)
                #expect(refused.problemCode == "session_expired")
            }

            // Signing in: a public key cannot, an unknown key cannot.
            let publicKey = try await gateway.signInAnswer(key: app.publicKey.key)
            #expect(publicKey.status == .forbidden)
            #expect(publicKey.problemCode == "secret_key_required")
            let wrong = try await gateway.signInAnswer(key: "sk_" + String(repeating: "x", count: 32))
            #expect(wrong.status == .unauthorized)
            #expect(wrong.problemCode == "invalid_api_key")
            #expect(try wrong.violations(.post, GatewayHarness.sessionPath) == [])
            let otherApp = try await gateway.signInAnswer(key: app.secretKey.key, appID: "app_someone_else")
            #expect(otherApp.status == .unprocessableContent)
        }
    }

    @Test func aSessionNeverReachesAnotherApp() async throws {
        try await GatewayHarness.run { gateway in
            let a = try await gateway.createApp("A")
            let b = try await gateway.createApp("B")
            let grant = try await gateway.send(
                .post, "/v1/customers/bob/grants", bearer: b.secretKey.key,
                json: Data(#"{"entitlement_id":"vip","expires_at":"2099-01-01T00:00:00Z"}"#.utf8))
            #expect(grant.status == .created)
            let login = try await gateway.signIn(key: a.secretKey.key)
            // The app is the session's: B's customer does not exist for it.
            let history = try await gateway.send(.get, "/v1/customers/bob/history", bearer: nil, headers: login.cookie)
            #expect(history.status == .notFound)
            let keys = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie)
            #expect(!String(buffer: keys.body).contains(b.secretKey.info.keyID))
            // An app key's session cannot switch apps, nor use the operator API.
            let switched = try await gateway.send(
                .put, GatewayHarness.sessionPath, bearer: nil,
                json: try TestJSON.encode(ConsoleSwitchAppRequest(appID: b.info.appID)), headers: login.change)
            #expect(switched.status == .forbidden)
            #expect(switched.problemCode == "operator_session_required")
            let operatorAPI = try await gateway.send(.get, "/operator/v1/apps", bearer: nil, headers: login.cookie)
            #expect(operatorAPI.status == .unauthorized)
            #expect(operatorAPI.problemCode == "operator_key_required")
            // A key sent with the cookie wins: it is what acts.
            let both = try await gateway.send(
                .get, "/v1/customers/bob/history", bearer: b.secretKey.key, headers: login.cookie)
            #expect(both.status == .ok)
        }
    }

    @Test func aChangeWithoutTheSessionsCSRFTokenIsRefusedAndChangesNothing() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("CSRF")
            let login = try await gateway.signIn(key: app.secretKey.key)
            let grant = Data(#"{"entitlement_id":"vip","expires_at":"2099-01-01T00:00:00Z"}"#.utf8)
            var wrongToken = login.cookie
            wrongToken[ConsoleSessions.csrfHeader] = "not-the-token"
            var crossSite = login.change
            crossSite[ConsoleSessions.fetchSiteHeader] = "cross-site"
            var otherOrigin = login.change
            otherOrigin[.origin] = "https://evil.example"
            for (name, headers) in [
                ("no token", login.cookie), ("wrong token", wrongToken), ("cross-site", crossSite),
                ("another origin", otherOrigin),
            ] {
                let refused = try await gateway.send(
                    .post, "/v1/customers/carol/grants", bearer: nil, json: grant, headers: headers)
                #expect(refused.status == .forbidden, "\(name)")
                #expect(refused.problemCode == "csrf_token_invalid", "\(name)")
            }
            let info = try await gateway.send(.get, "/v1/customers/carol", bearer: app.secretKey.key)
            #expect(try TestJSON.decode(CustomerInfo.self, info.body.readableBytesView).entitlements.isEmpty)
            // Reads need no token.
            #expect(
                try await gateway.send(.get, "/v1/customers/carol", bearer: nil, headers: login.cookie).status == .ok)

            // From the console's own page: the same origin, the token, the cookie.
            let granted = try await gateway.browser(
                "POST", "/v1/customers/carol/grants", host: "localhost:8080", login: login,
                headers: [("Origin", "http://localhost:8080"), ("Sec-Fetch-Site", "same-origin")],
                body: String(decoding: grant, as: UTF8.self))
            #expect(granted.status == 201, "\(granted.body)")

            // Signing out is a change too.
            let noToken = try await gateway.send(
                .delete, GatewayHarness.sessionPath, bearer: nil, headers: login.cookie)
            #expect(noToken.status == .forbidden)
            #expect(try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie).status == .ok)
        }
    }

    @Test func revokingTheKeyOrSigningOutEndsTheSession() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Revoked")
            let login = try await gateway.signIn(key: app.secretKey.key)
            let other = try await gateway.signIn(key: app.secretKey.key)
            #expect(try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie).status == .ok)
            let revoked = try await gateway.send(
                .delete, "/operator/v1/apps/\(app.info.appID)/keys/\(app.secretKey.info.keyID)",
                bearer: GatewayHarness.operatorKey)
            #expect(revoked.status == .ok)
            for session in [login, other] {
                let refused = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: session.cookie)
                #expect(refused.status == .unauthorized)
                #expect(refused.problemCode == "session_expired")
            }
            #expect(try await gateway.signInAnswer(key: app.secretKey.key).status == .unauthorized)

            let fresh = try await gateway.createApp("Signing out")
            let session = try await gateway.signIn(key: fresh.secretKey.key)
            let out = try await gateway.send(.delete, GatewayHarness.sessionPath, bearer: nil, headers: session.change)
            #expect(out.status == .noContent)
            #expect(try out.violations(.delete, GatewayHarness.sessionPath) == [])
            #expect(out.headers[.setCookie]?.hasPrefix("shopkeeper_session=; Path=/; Max-Age=0;") == true)
            let after = try await gateway.send(.get, GatewayHarness.sessionPath, bearer: nil, headers: session.cookie)
            #expect(after.problemCode == "session_expired")
            // Without a cookie there is nothing to end.
            #expect(try await gateway.send(.delete, GatewayHarness.sessionPath, bearer: nil).status == .noContent)
        }
    }

    @Test func aSessionOpenedAtOneReplicaWorksAndEndsAtAnother() async throws {
        try await GatewayHarness.run(replicas: 2) { gateway in
            let app = try await gateway.createApp("Replicas")
            let login = try await gateway.signIn(key: app.secretKey.key)
            let other = gateway.replica
            let keys = try await other.execute(uri: "/v1/admin/keys", method: .get, headers: login.cookie, body: nil)
            #expect(keys.status == .ok)
            var headers = login.change
            headers[.contentType] = "application/json"
            let grant = try await other.execute(
                uri: "/v1/customers/dora/grants", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"entitlement_id":"vip","expires_at":"2099-01-01T00:00:00Z"}"#))
            #expect(grant.status == .created)
            let out = try await other.execute(
                uri: GatewayHarness.sessionPath, method: .delete, headers: login.change, body: nil)
            #expect(out.status == .noContent)
            let after = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie)
            #expect(after.problemCode == "session_expired")
        }
    }

    @Test func theOperatorSignsInForAnAppListsAppsAndSwitches() async throws {
        try await GatewayHarness.run { gateway in
            let a = try await gateway.createApp("Operator A")
            let b = try await gateway.createApp("Operator B")
            let missingApp = try await gateway.signInAnswer(key: GatewayHarness.operatorKey)
            #expect(missingApp.status == .unprocessableContent)
            let unknownApp = try await gateway.signInAnswer(key: GatewayHarness.operatorKey, appID: "app_nowhere")
            #expect(unknownApp.status == .notFound)
            #expect(unknownApp.problemCode == "app_not_found")

            let login = try await gateway.signIn(key: GatewayHarness.operatorKey, appID: a.info.appID)
            #expect(login.info.actor == .operator)
            #expect(login.info.keyID == nil)
            let apps = try await gateway.send(.get, "/operator/v1/apps", bearer: nil, headers: login.cookie)
            #expect(apps.status == .ok)
            let listed = try TestJSON.decode(AppList.self, apps.body.readableBytesView).apps.map(\.appID)
            #expect(listed.contains(a.info.appID) && listed.contains(b.info.appID))
            let keysOfA = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie)
            #expect(String(buffer: keysOfA.body).contains(a.secretKey.info.keyID))

            let noToken = try await gateway.send(
                .put, GatewayHarness.sessionPath, bearer: nil,
                json: try TestJSON.encode(ConsoleSwitchAppRequest(appID: b.info.appID)), headers: login.cookie)
            #expect(noToken.problemCode == "csrf_token_invalid")
            let switched = try await gateway.send(
                .put, GatewayHarness.sessionPath, bearer: nil,
                json: try TestJSON.encode(ConsoleSwitchAppRequest(appID: b.info.appID)), headers: login.change)
            #expect(switched.status == .ok)
            #expect(try switched.violations(.put, GatewayHarness.sessionPath) == [])
            #expect(try TestJSON.decode(ConsoleSessionInfo.self, switched.body.readableBytesView).appID == b.info.appID)
            let keysOfB = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie)
            #expect(String(buffer: keysOfB.body).contains(b.secretKey.info.keyID))
            #expect(!String(buffer: keysOfB.body).contains(a.secretKey.info.keyID))
        }
    }

    @Test func anOperatorSessionEndsWhenTheOperatorKeyChanges() async throws {
        let app = try await ConsoleTestApp.created()
        try await GatewayHarness.run(environment: ["SHOPKEEPER_OPERATOR_KEY": "op_another_operator_key_0123456789"]) {
            gateway in
            // The session was opened under the harness's usual operator key.
            let refused = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: app.operatorLogin.cookie)
            #expect(refused.problemCode == "session_expired")
        }
    }

    @Test func signInAttemptsAreRateLimitedPerClient() async throws {
        try await GatewayHarness.run(environment: ["SHOPKEEPER_CONSOLE_SIGN_IN_RATE": "0.001/3"]) { gateway in
            for _ in 0..<3 {
                #expect(try await gateway.signInAnswer(key: "sk_wrong").status == .unauthorized)
            }
            let limited = try await gateway.signInAnswer(key: "sk_wrong")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
            #expect(try limited.violations(.post, GatewayHarness.sessionPath) == [])
        }
    }
}

/// An app and an operator session of it, made by a gateway that is gone afterwards.
struct ConsoleTestApp {
    var app: GatewayHarness.TestApp
    var operatorLogin: ConsoleLogin

    static func created() async throws -> ConsoleTestApp {
        let made = NIOLockedValueBox<ConsoleTestApp?>(nil)
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Operator key rotation")
            let login = try await gateway.signIn(key: GatewayHarness.operatorKey, appID: app.info.appID)
            #expect(try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie).status == .ok)
            made.withLockedValue { $0 = ConsoleTestApp(app: app, operatorLogin: login) }
        }
        guard let value = made.withLockedValue({ $0 }) else { throw ConsoleTestError("no app was made") }
        return value
    }
}
