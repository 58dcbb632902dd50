import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// Redemption codes: a web buyer's purchases attached to the app's customer, once.
///
/// - `POST /v1/customers/{app_user_id}/redemption-codes`: issues a one-time code for the id's web purchases
///   (`201 {"code", "expires_at"}`). With the public key of an `open` app only for an anonymous id (`anon_` and a
///   UUID, the id a web visitor gets), as for links: otherwise anyone could issue a code for another person's id
///   and take their purchases. A customer token (`signed`) proves the id; the secret key may issue for any id.
/// - `POST /v1/customers/{app_user_id}/redeem` `{"code"}`: moves them to the path's customer and answers its info.
struct RedemptionController {
    let redemptions: any RedemptionRepository
    /// How long an issued code is valid.
    let lifetime: Duration
    let maxBodyBytes: Int

    /// The redeem body.
    struct RedeemRequest: Codable {
        var code: String
    }

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post(":app_user_id/redemption-codes", use: issue)
            .post(":app_user_id/redeem", use: redeem)
    }

    @Sendable func issue(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer()
        if caller.keyKind != .secret, caller.customer == nil, !AppUserID.isAnonymous(id) {
            throw EntitlementsError.linkNeedsSecretKey(appUserID: id)
        }
        let issued = try await redemptions.issue(appUserID: id, appID: caller.appID, lifetime: lifetime)
        return try JSONBody.response(issued, status: .created, headers: [.cacheControl: "no-store"])
    }

    @Sendable func redeem(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer()
        let body = try await JSONBody.decode(RedeemRequest.self, from: request, limit: maxBodyBytes)
        guard let code = RedemptionCode(typed: body.code) else { throw EntitlementsError.redemptionCodeNotFound }
        let document = try await redemptions.redeem(code, appUserID: id, appID: caller.appID)
        return JSONText.response(document.json, headers: [.eTag: document.etag, .cacheControl: "private, no-cache"])
    }
}
