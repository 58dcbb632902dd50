import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport

@testable import Gateway

extension GatewayHarness {
    /// What team tests run with: a cheap scrypt cost (the parameters are stored with each hash), room for many
    /// sign-ins from the test's one address, and a lockout after three failures.
    static let teamEnvironment = [
        "SHOPKEEPER_CONSOLE_PASSWORD_COST": "10",
        "SHOPKEEPER_CONSOLE_SIGN_IN_RATE": "100/1000",
        "SHOPKEEPER_CONSOLE_LOCKOUT_ATTEMPTS": "3",
        "SHOPKEEPER_RATE_LIMIT_SECRET": "1000/10000",
    ]

    static let teamPassword = "correct horse battery staple"

    /// Invites `email` as `role` with the app's secret key, requiring `201`.
    func invite(_ email: String, as role: ConsoleRole, app: TestApp) async throws -> ConsoleUserInvitation {
        let answer = try await send(
            .post, "/v1/admin/users", bearer: app.secretKey.key,
            json: try TestJSON.encode(ConsoleUserInviteRequest(email: email, role: role)))
        guard answer.status == .created else {
            throw ConsoleTestError("invite answered \(answer.status): \(String(buffer: answer.body))")
        }
        return try TestJSON.decode(ConsoleUserInvitation.self, answer.body.readableBytesView)
    }

    /// `POST /console/api/invitation`.
    func accept(_ token: String, password: String = GatewayHarness.teamPassword) async throws -> TestResponse {
        try await send(
            .post, "/console/api/invitation", bearer: nil,
            json: try TestJSON.encode(ConsoleInvitationAcceptRequest(token: token, password: password)))
    }

    /// `POST /console/api/session` with an email and password.
    func signInAnswer(
        email: String, password: String = GatewayHarness.teamPassword, appID: String, totpCode: String? = nil
    ) async throws -> TestResponse {
        try await send(
            .post, Self.sessionPath, bearer: nil,
            json: try TestJSON.encode(
                ConsoleSignInRequest(email: email, password: password, appID: appID, totpCode: totpCode)))
    }

    /// A signed-in console user of `app` with `role`: invited, its invitation accepted, signed in.
    func teamLogin(_ email: String, as role: ConsoleRole, app: TestApp) async throws -> (ConsoleLogin, ConsoleUser) {
        let invitation = try await invite(email, as: role, app: app)
        let accepted = try await accept(invitation.invitationToken)
        guard accepted.status == .noContent else {
            throw ConsoleTestError("accepting answered \(accepted.status): \(String(buffer: accepted.body))")
        }
        return (try await login(try await signInAnswer(email: email, appID: app.info.appID)), invitation.user)
    }

    /// The session a `201` sign-in answer opened.
    func login(_ answer: TestResponse) async throws -> ConsoleLogin {
        guard answer.status == .created, let cookie = answer.headers[.setCookie],
            let token = cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last
        else { throw ConsoleTestError("sign-in answered \(answer.status): \(String(buffer: answer.body))") }
        return ConsoleLogin(
            token: String(token), info: try TestJSON.decode(ConsoleSessionInfo.self, answer.body.readableBytesView))
    }
}
