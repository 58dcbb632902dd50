import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/customers/{app_user_id}/grants` and `DELETE /v1/customers/{app_user_id}/grants/{grant_id}`: entitlements
/// the developer grants and revokes by hand (secret key).
struct PromotionalGrantController {
    let grants: any PromotionalGrantRepository
    let maxBodyBytes: Int
    /// Longest note kept with a grant.
    static let maximumNoteLength = 1_000
    /// Longest entitlement id (the catalog's identifier rule: letters, digits, `.`, `_`, `-`).
    static let maximumEntitlementIDLength = 100

    /// The body of a grant.
    struct GrantRequest: Codable {
        var entitlementID: String
        /// When the grant ends; must be in the future.
        var expiresAt: Date
        /// Why it was granted, for the developer's own records.
        var note: String?

        enum CodingKeys: String, CodingKey {
            case note
            case entitlementID = "entitlement_id"
            case expiresAt = "expires_at"
        }
    }

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post(":app_user_id/grants", use: grant)
            .delete(":app_user_id/grants/:grant_id", use: revoke)
    }

    @Sendable func grant(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer(secretKey: true)
        let body = try await JSONBody.decode(GrantRequest.self, from: request, limit: maxBodyBytes)
        try Self.validate(body, now: Date())
        let document = try await grants.grant(
            NewPromotionalGrant(entitlementID: body.entitlementID, expiresAt: body.expiresAt, note: body.note),
            appUserID: id, appID: caller.appID)
        return JSONText.response(
            JSONText.object(["grant": document.grant, "customer": document.customer]), status: .created,
            headers: [.cacheControl: "no-store"])
    }

    @Sendable func revoke(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer(secretKey: true)
        let raw = try context.parameters.require("grant_id")
        // A grant id that is not a UUID names no grant: 404 like any other unknown id.
        guard let grantID = UUID(uuidString: raw) else { throw EntitlementsError.grantNotFound(raw) }
        let document = try await grants.revoke(grantID: grantID, appUserID: id, appID: caller.appID)
        return JSONText.response(document.json, headers: [.cacheControl: "no-store"])
    }

    /// Every problem of a grant's body at once.
    static func validate(_ body: GrantRequest, now: Date) throws {
        var problems: [FieldProblem] = []
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        if body.entitlementID.isEmpty || body.entitlementID.count > maximumEntitlementIDLength
            || !body.entitlementID.allSatisfy(allowed.contains)
        {
            problems.append(
                FieldProblem(
                    pointer: "/entitlement_id",
                    detail: "must be 1 to \(maximumEntitlementIDLength) letters, digits, '.', '_' or '-'"))
        }
        if body.expiresAt <= now {
            problems.append(FieldProblem(pointer: "/expires_at", detail: "must be in the future"))
        }
        if let note = body.note, note.count > maximumNoteLength {
            problems.append(FieldProblem(pointer: "/note", detail: "must be at most \(maximumNoteLength) characters"))
        }
        guard problems.isEmpty else { throw RequestError.validationFailed(problems) }
    }
}
