import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// The ids the public key linked, suspended when an app switches to the `signed` customer boundary:
/// `POST /internal/v1/aliases/suspend` (the gateway, as it switches), `GET /v1/admin/aliases/suspended` and
/// `POST /v1/admin/aliases/suspended/confirm` (the secret key, reviewing them one by one).
struct SuspendedAliasController {
    let aliases: any AliasRepository
    let maxBodyBytes: Int

    /// The body of a confirmation: the suspended id.
    struct ConfirmRequest: Codable {
        var appUserID: String

        enum CodingKeys: String, CodingKey {
            case appUserID = "app_user_id"
        }
    }

    /// Mounted at `/internal/v1/aliases`.
    var internalEndpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("suspend") { _, context in
                let caller = try context.requireSecretCaller()
                let suspended = try await aliases.suspendPublicLinks(appID: caller.appID)
                return try JSONBody.response(AliasSuspension(suspended: suspended))
            }
    }

    /// Mounted at `/v1/admin/aliases/suspended`.
    var adminEndpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get { _, context in
                let caller = try context.requireSecretCaller()
                return try JSONBody.response(
                    SuspendedAliasList(aliases: try await aliases.suspended(appID: caller.appID)),
                    headers: [.cacheControl: "no-store"])
            }
            .post("confirm") { request, context in
                let caller = try context.requireSecretCaller()
                let body = try await JSONBody.decode(ConfirmRequest.self, from: request, limit: maxBodyBytes)
                let id = try AppUserID.validated(body.appUserID, pointer: "/app_user_id")
                let document = try await aliases.confirmSuspended(id, appID: caller.appID)
                return JSONText.response(
                    document.json, headers: [.eTag: document.etag, .cacheControl: "private, no-cache"])
            }
    }
}
