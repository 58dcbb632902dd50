import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `/v1/admin/users`: an app's console users, managed by its admins (a secret key, or a console session of a key,
/// the operator or an admin user; ``ConsoleRoles`` holds the others off): invite, list, change a role, remove, reset
/// a second factor. Changing a role, resetting the factor and removing end the user's sessions.
struct ConsoleUserController {
    let team: ConsoleTeam
    let maxBodyBytes: Int

    var endpoints: RouteCollection<AuthenticatedContext> {
        let routes = RouteCollection(context: AuthenticatedContext.self)
        routes.get { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(ConsoleUserList(users: try await team.repository.list(appID: appID)))
        }
        routes.post { request, context in
            let appID = try context.secretKeyApp()
            let body = try await JSONBody.decode(ConsoleUserInviteRequest.self, from: request, limit: maxBodyBytes)
            let invitation = try await team.invite(appID: appID, email: body.email, role: body.role)
            return try JSONBody.response(invitation, status: .created, headers: [.cacheControl: "no-store"])
        }
        routes.put(":user_id") { request, context in
            let appID = try context.secretKeyApp()
            let userID = try context.parameters.require("user_id")
            let body = try await JSONBody.decode(ConsoleUserRoleChange.self, from: request, limit: maxBodyBytes)
            guard let user = try await team.repository.setRole(appID: appID, userID: userID, role: body.role) else {
                throw ConsoleTeamError.userNotFound(userID)
            }
            return try JSONBody.response(user)
        }
        routes.delete(":user_id") { _, context in
            let appID = try context.secretKeyApp()
            let userID = try context.parameters.require("user_id")
            guard try await team.repository.remove(appID: appID, userID: userID) else {
                throw ConsoleTeamError.userNotFound(userID)
            }
            return Response(status: .noContent)
        }
        routes.delete(":user_id/totp") { _, context in
            let appID = try context.secretKeyApp()
            let userID = try context.parameters.require("user_id")
            guard let user = try await team.repository.resetTOTP(appID: appID, userID: userID) else {
                throw ConsoleTeamError.userNotFound(userID)
            }
            return try JSONBody.response(user)
        }
        return routes
    }
}
