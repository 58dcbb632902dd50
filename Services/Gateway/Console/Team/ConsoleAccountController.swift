import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// A console user's own account: accepting an invitation (`POST /console/api/invitation`, no session: the token
/// is the proof; rate limited as sign-ins are) and enrolling a TOTP second factor from the user's own session
/// (`POST /console/api/session/totp` for a new secret, `PUT` with a code of it to turn it on). Each is written to the
/// app's audit log.
struct ConsoleAccountController: Sendable {
    let signIns: ConsoleSessionController
    let team: ConsoleTeam

    var endpoints: RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        routes.post("/console/api/invitation", use: accept)
        routes.post("/console/api/session/totp", use: beginTOTP)
        routes.put("/console/api/session/totp", use: confirmTOTP)
        return routes
    }

    @Sendable func accept(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        try ConsoleSessions.checkSameOrigin(request)
        try signIns.checkSignInRate(request, context: context)
        let body = try await JSONBody.decode(
            ConsoleInvitationAcceptRequest.self, from: request, limit: signIns.maxBodyBytes)
        let accepted = try await team.accept(token: body.token, password: body.password)
        let record = AuditRecord(
            appID: accepted.appID, actor: .user, userEmail: accepted.email, method: "POST",
            path: "/console/api/invitation", action: "console_user.accept_invitation",
            targets: [:], summary: "Accepted the invitation to the console", status: 204,
            requestID: context.requestID)
        await signIns.write(record, context: context)
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    @Sendable func beginTOTP(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let (session, user) = try await userSession(request)
        let enrollment = try await team.beginTOTP(appID: session.appID, user: user)
        return try JSONBody.response(enrollment, status: .created, headers: [.cacheControl: "no-store"])
    }

    @Sendable func confirmTOTP(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let (session, user) = try await userSession(request)
        let body = try await JSONBody.decode(ConsoleTOTPConfirmRequest.self, from: request, limit: signIns.maxBodyBytes)
        try await team.confirmTOTP(appID: session.appID, user: user, code: body.code)
        await signIns.audit(
            session, action: "console_user.totp_enroll", summary: "Turned on a second factor", method: "PUT",
            status: 204, path: "/console/api/session/totp", context: context)
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// The request's live session (its CSRF rules checked), which must be a console user's.
    private func userSession(_ request: Request) async throws -> (ConsoleSession, SessionUser) {
        guard let session = try await signIns.sessions.authenticate(request) else {
            throw ConsoleError.sessionRequired
        }
        guard let user = session.user else { throw ConsoleTeamError.userSessionRequired }
        return (session, user)
    }
}
