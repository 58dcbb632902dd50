import Foundation
import HTTPTypes
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// Console users through a live gateway and real PostgreSQL: invitations, passwords, the lockout, the second factor,
/// sessions ended by a role change or a removal, and the audit log naming the user.
@Suite struct ConsoleTeamTests {
    @Test func anInvitedUserSetsAPasswordOnceAndSignsInWithItsRole() async throws {
        try await GatewayHarness.run(environment: GatewayHarness.teamEnvironment) { gateway in
            let app = try await gateway.createApp("Team")
            let invitation = try await gateway.invite("  Sam@Example.com ", as: .support, app: app)
            #expect(invitation.user.email == "sam@example.com")
            #expect(invitation.user.status == "invited")
            // Not active yet: no sign-in.
            let early = try await gateway.signInAnswer(email: "sam@example.com", appID: app.info.appID)
            #expect(early.status == .unauthorized)
            #expect(early.problemCode == "invalid_credentials")
            // Too short a password is refused, and the invitation stays usable.
            let short = try await gateway.accept(invitation.invitationToken, password: "short")
            #expect(short.status == .unprocessableContent)
            #expect(try await gateway.accept(invitation.invitationToken).status == .noContent)
            // Once only.
            let again = try await gateway.accept(invitation.invitationToken, password: "another long password")
            #expect(again.status == .gone)
            #expect(again.problemCode == "invitation_invalid")

            // The email in any case and spacing signs in; the app must be named.
            let login = try await gateway.login(
                try await gateway.signInAnswer(email: "SAM@example.com ", appID: app.info.appID))
            #expect(login.info.actor == .user)
            #expect(login.info.userEmail == "sam@example.com")
            #expect(login.info.role == .support)
            #expect(login.info.keyID == nil)
            let other = try await gateway.createApp("Other")
            let elsewhere = try await gateway.signInAnswer(email: "sam@example.com", appID: other.info.appID)
            #expect(elsewhere.problemCode == "invalid_credentials")
            let wrong = try await gateway.signInAnswer(
                email: "sam@example.com", password: "not the password", appID: app.info.appID)
            #expect(wrong.status == .unauthorized)
            #expect(wrong.problemCode == "invalid_credentials")
            let unknown = try await gateway.signInAnswer(email: "nobody@example.com", appID: app.info.appID)
            #expect(unknown.problemCode == "invalid_credentials")

            // The database keeps scrypt's parameters with the hash, never the password or the invitation token.
            let stored = try await TestDatabase.withClient(try TestDatabase.settings()) { client in
                var texts: [String] = []
                let rows = try await client.query(
                    """
                    SELECT u::text, u.password_hash FROM gateway.console_users u WHERE u.email = 'sam@example.com'
                    UNION ALL SELECT i::text, '' FROM gateway.console_invitations i
                    """)
                for try await (row, hash) in rows.decode((String, String).self) { texts += [row, hash] }
                return texts
            }
            #expect(stored.contains { $0.hasPrefix("$scrypt$ln=10,r=8,p=1$") })
            #expect(!stored.contains { $0.contains(GatewayHarness.teamPassword) })
            #expect(!stored.contains { $0.contains(invitation.invitationToken) })

            // A support user reaches customers, not keys; the session answers as the user.
            let customers = try await gateway.send(
                .get, "/v1/admin/customers?query=x", bearer: nil, headers: login.cookie)
            #expect(customers.status == .ok)
            let keys = try await gateway.send(.get, "/v1/admin/keys", bearer: nil, headers: login.cookie)
            #expect(keys.status == .forbidden)
            #expect(keys.problemCode == "role_insufficient")
            #expect(try keys.violations(.get, "/v1/admin/keys") == [])
            let current = try await gateway.send(.get, GatewayHarness.sessionPath, bearer: nil, headers: login.cookie)
            #expect(try current.violations(.get, GatewayHarness.sessionPath) == [])
            // A user cannot switch apps, nor reach the operator API.
            let switched = try await gateway.send(
                .put, GatewayHarness.sessionPath, bearer: nil,
                json: try TestJSON.encode(ConsoleSwitchAppRequest(appID: other.info.appID)), headers: login.change)
            #expect(switched.problemCode == "operator_session_required")
            let apps = try await gateway.send(.get, "/operator/v1/apps", bearer: nil, headers: login.cookie)
            #expect(apps.status == .unauthorized || apps.status == .forbidden)

            // The audit log names the user of a change made through its session.
            let grant = try await gateway.send(
                .post, "/v1/customers/ann/grants", bearer: nil,
                json: Data(#"{"entitlement_id":"pro","duration":"P1W"}"#.utf8), headers: login.change)
            #expect(grant.status != .forbidden)
            let log = try await gateway.send(.get, "/v1/admin/audit-log", bearer: app.secretKey.key)
            let page = try TestJSON.decode(AuditLogPage.self, log.body.readableBytesView)
            let byUser = page.entries.filter { $0.actor == .user }
            #expect(byUser.contains { $0.action == "promotional_grant.create" && $0.userEmail == "sam@example.com" })
            #expect(byUser.contains { $0.action == "console.sign_in" && $0.userEmail == "sam@example.com" })
            #expect(page.entries.contains { $0.action == "console_user.invite" && $0.actor == .secretKey })
            #expect(try log.violations(.get, "/v1/admin/audit-log") == [])
        }
    }

    @Test func repeatedFailuresLockTheUserAndAnotherUserIsNotLocked() async throws {
        try await GatewayHarness.run(environment: GatewayHarness.teamEnvironment) { gateway in
            let app = try await gateway.createApp("Lockout")
            _ = try await gateway.teamLogin("lee@example.com", as: .viewer, app: app)
            _ = try await gateway.teamLogin("kim@example.com", as: .viewer, app: app)
            // Three failures in a row (the test's limit) lock lee; even the right password is refused then.
            for _ in 0..<3 {
                let wrong = try await gateway.signInAnswer(
                    email: "lee@example.com", password: "wrong password!", appID: app.info.appID)
                #expect(wrong.problemCode == "invalid_credentials")
            }
            let locked = try await gateway.signInAnswer(email: "lee@example.com", appID: app.info.appID)
            #expect(locked.status == .tooManyRequests)
            #expect(locked.problemCode == "sign_in_locked")
            let retryAfter = Int(locked.headers[.retryAfter] ?? "") ?? 0
            #expect(retryAfter > 800 && retryAfter <= 900)
            #expect(try await gateway.signInAnswer(email: "kim@example.com", appID: app.info.appID).status == .created)
            // Once the lock is over (moved into the past here), the right password signs in and clears the count.
            try await GatewayHarness.database(
                "UPDATE gateway.console_users SET locked_until = now() - interval '1 second'")
            #expect(try await gateway.signInAnswer(email: "lee@example.com", appID: app.info.appID).status == .created)
            // Two failures, a success, two failures: never three in a row, never locked.
            for round in 0..<2 {
                for _ in 0..<2 {
                    _ = try await gateway.signInAnswer(
                        email: "lee@example.com", password: "wrong password!", appID: app.info.appID)
                }
                let right = try await gateway.signInAnswer(email: "lee@example.com", appID: app.info.appID)
                #expect(right.status == .created, "round \(round)")
            }
        }
    }

    @Test func aSecondFactorIsEnrolledWithACodeAndEachCodeWorksOnce() async throws {
        try await GatewayHarness.run(environment: GatewayHarness.teamEnvironment) { gateway in
            let app = try await gateway.createApp("TOTP")
            let (login, user) = try await gateway.teamLogin("ada@example.com", as: .developer, app: app)
            // A key's session has no user to enroll.
            let keySession = try await gateway.signIn(key: app.secretKey.key)
            let notUser = try await gateway.send(
                .post, "/console/api/session/totp", bearer: nil, headers: keySession.change)
            #expect(notUser.problemCode == "user_session_required")
            // Without the CSRF token: refused.
            let noCSRF = try await gateway.send(.post, "/console/api/session/totp", bearer: nil, headers: login.cookie)
            #expect(noCSRF.problemCode == "csrf_token_invalid")

            let begun = try await gateway.send(.post, "/console/api/session/totp", bearer: nil, headers: login.change)
            #expect(begun.status == .created)
            #expect(try begun.violations(.post, "/console/api/session/totp") == [])
            let enrollment = try TestJSON.decode(ConsoleTOTPEnrollment.self, begun.body.readableBytesView)
            #expect(enrollment.otpauthURI.contains("secret=\(enrollment.secret)"))
            let secret = try #require(Self.base32Decode(enrollment.secret))
            let wrongCode = try await gateway.send(
                .put, "/console/api/session/totp", bearer: nil,
                json: try TestJSON.encode(ConsoleTOTPConfirmRequest(code: "000000")), headers: login.change)
            #expect(wrongCode.problemCode == "totp_invalid" || wrongCode.status == .noContent)
            let step = TOTP.step(at: Date())
            // Until it is confirmed, signing in needs no code.
            #expect(try await gateway.signInAnswer(email: "ada@example.com", appID: app.info.appID).status == .created)
            let confirmed = try await gateway.send(
                .put, "/console/api/session/totp", bearer: nil,
                json: try TestJSON.encode(ConsoleTOTPConfirmRequest(code: TOTP.code(secret: secret, step: step))),
                headers: login.change)
            #expect(confirmed.status == .noContent)

            let withoutCode = try await gateway.signInAnswer(email: "ada@example.com", appID: app.info.appID)
            #expect(withoutCode.status == .unauthorized)
            #expect(withoutCode.problemCode == "totp_required")
            // The code that confirmed the enrollment was used; the next step's code signs in, once.
            let used = try await gateway.signInAnswer(
                email: "ada@example.com", appID: app.info.appID, totpCode: TOTP.code(secret: secret, step: step))
            #expect(used.problemCode == "totp_invalid")
            let next = TOTP.code(secret: secret, step: step + 1)
            let signedIn = try await gateway.signInAnswer(
                email: "ada@example.com", appID: app.info.appID, totpCode: next)
            #expect(signedIn.status == .created)
            let replayed = try await gateway.signInAnswer(
                email: "ada@example.com", appID: app.info.appID, totpCode: next)
            #expect(replayed.problemCode == "totp_invalid")
            let list = try await gateway.send(.get, "/v1/admin/users", bearer: app.secretKey.key)
            #expect(try list.violations(.get, "/v1/admin/users") == [])
            #expect(
                try TestJSON.decode(ConsoleUserList.self, list.body.readableBytesView).users.first?.totpEnabled == true)

            // An admin removes the factor: the user's sessions end, and the password alone signs in again.
            let reset = try await gateway.send(
                .delete, "/v1/admin/users/\(user.userID)/totp", bearer: app.secretKey.key)
            #expect(reset.status == .ok)
            #expect(try reset.violations(.delete, "/v1/admin/users/{user_id}/totp") == [])
            let ended = try await gateway.send(.get, GatewayHarness.sessionPath, bearer: nil, headers: login.cookie)
            #expect(ended.problemCode == "session_expired")
            #expect(try await gateway.signInAnswer(email: "ada@example.com", appID: app.info.appID).status == .created)
        }
    }

    @Test func changingARoleOrRemovingAUserEndsItsSessions() async throws {
        try await GatewayHarness.run(environment: GatewayHarness.teamEnvironment) { gateway in
            let app = try await gateway.createApp("Ends")
            let (admin, _) = try await gateway.teamLogin("boss@example.com", as: .admin, app: app)
            let (login, user) = try await gateway.teamLogin("dev@example.com", as: .developer, app: app)
            #expect(
                try await gateway.send(.get, "/v1/admin/products", bearer: nil, headers: login.cookie).status == .ok)

            // An admin user invites and changes roles through its session (with the CSRF token).
            let changed = try await gateway.send(
                .put, "/v1/admin/users/\(user.userID)", bearer: nil,
                json: try TestJSON.encode(ConsoleUserRoleChange(role: .viewer)), headers: admin.change)
            #expect(changed.status == .ok)
            #expect(try changed.violations(.put, "/v1/admin/users/{user_id}") == [])
            #expect(try TestJSON.decode(ConsoleUser.self, changed.body.readableBytesView).role == .viewer)
            let ended = try await gateway.send(.get, "/v1/admin/products", bearer: nil, headers: login.cookie)
            #expect(ended.problemCode == "session_expired")
            // Signed in again, as a viewer now: reading yes, changing no.
            let viewer = try await gateway.login(
                try await gateway.signInAnswer(email: "dev@example.com", appID: app.info.appID))
            #expect(viewer.info.role == .viewer)
            let create = try await gateway.send(
                .post, "/v1/admin/products", bearer: nil, json: Data("{}".utf8), headers: viewer.change)
            #expect(create.problemCode == "role_insufficient")
            // A viewer cannot manage users either.
            let invite = try await gateway.send(
                .post, "/v1/admin/users", bearer: nil,
                json: try TestJSON.encode(ConsoleUserInviteRequest(email: "x@example.com", role: .admin)),
                headers: viewer.change)
            #expect(invite.problemCode == "role_insufficient")

            // Inviting an active user's email again is a conflict; an invited one is invited again.
            let taken = try await gateway.send(
                .post, "/v1/admin/users", bearer: app.secretKey.key,
                json: try TestJSON.encode(ConsoleUserInviteRequest(email: "dev@example.com", role: .admin)))
            #expect(taken.status == .conflict)
            #expect(taken.problemCode == "user_exists")
            let first = try await gateway.invite("new@example.com", as: .viewer, app: app)
            let second = try await gateway.invite("new@example.com", as: .support, app: app)
            #expect(first.user.userID == second.user.userID)
            #expect(second.user.role == .support)
            #expect(try await gateway.accept(first.invitationToken).status == .gone)

            let removed = try await gateway.send(
                .delete, "/v1/admin/users/\(user.userID)", bearer: nil, headers: admin.change)
            #expect(removed.status == .noContent)
            let gone = try await gateway.send(.get, "/v1/admin/products", bearer: nil, headers: viewer.cookie)
            #expect(gone.problemCode == "session_expired")
            let signIn = try await gateway.signInAnswer(email: "dev@example.com", appID: app.info.appID)
            #expect(signIn.problemCode == "invalid_credentials")
            let missing = try await gateway.send(.delete, "/v1/admin/users/\(user.userID)", bearer: app.secretKey.key)
            #expect(missing.status == .notFound)
            #expect(missing.problemCode == "user_not_found")
        }
    }

    /// RFC 4648 base32 (no padding) back to bytes.
    static func base32Decode(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return bytes
    }
}
