import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/customers/{app_user_id}/aliases`: makes another id (typically the anonymous install id) address the
/// same customer.
struct AliasController {
    let aliases: any AliasRepository
    let maxBodyBytes: Int

    /// The body: the id to link.
    struct LinkRequest: Codable {
        var alias: String
    }

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post(":app_user_id/aliases", use: link)
    }

    @Sendable func link(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        // Under the `signed` customer boundary the token proves the path's id only: the alias in the body is
        // unproved, and linking it (even an id nobody has yet) would let one customer claim another's future id.
        // Linking is then for the developer's server, which knows both ids, with the secret key.
        if caller.customer != nil { throw AuthError.secretKeyRequired }
        let id = try AppUserID.fromPath(context)
        // In `open` mode the public key may link only as a log-in does, from an install's anonymous id: linking an
        // unused id to an identified customer would let anyone claim another person's future id.
        if caller.keyKind != .secret, !AppUserID.isAnonymous(id) {
            throw EntitlementsError.linkNeedsSecretKey(appUserID: id)
        }
        let body = try await JSONBody.decode(LinkRequest.self, from: request, limit: maxBodyBytes)
        let alias = try AppUserID.validated(body.alias, pointer: "/alias")
        let document = try await aliases.link(
            alias: alias, to: id, appID: caller.appID, keyKind: caller.keyKind)
        return JSONText.response(document.json, headers: [.eTag: document.etag, .cacheControl: "private, no-cache"])
    }
}
