import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/customers/{app_user_id}/claims` (`product_id`): the customer claims a product the catalog marks free
/// and owns it from then on (`product_grants` in customer info, `source: free`), with or without a content pack.
/// Once per customer: a second claim answers the first and changes nothing. Public or secret key.
struct ProductClaimController {
    let grants: any ProductGrantRepository
    let maxBodyBytes: Int

    /// The body of a claim.
    struct ClaimRequest: Codable {
        var productID: String

        enum CodingKeys: String, CodingKey {
            case productID = "product_id"
        }
    }

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post(":app_user_id/claims", use: claim)
    }

    @Sendable func claim(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer()
        let body = try await JSONBody.decode(ClaimRequest.self, from: request, limit: maxBodyBytes)
        guard (1...128).contains(body.productID.count), !body.productID.contains(where: \.isNewline) else {
            throw RequestError.invalid("/product_id", "must be 1 to 128 characters on one line")
        }
        let (grant, customer) = try await grants.claimFree(
            productID: body.productID, appUserID: id, appID: caller.appID, renderCustomer: true)
        let document = JSONText.object([
            "product_id": JSONText.string(grant.productID),
            "source": JSONText.string(grant.source.rawValue),
            "granted_at": JSONText.string(grant.grantedAt.formatted(.iso8601)),
            "created": grant.created ? "true" : "false",
            "customer": customer ?? "null",
        ])
        return JSONText.response(
            document, status: grant.created ? .created : .ok, headers: [.cacheControl: "no-store"])
    }
}
