import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/customers/{app_user_id}/offer-signatures` (public or secret key; the customer's token in `signed`
/// mode): signs an App Store promotional offer or introductory offer eligibility for the customer, when the server
/// deems the customer eligible. Nothing is written: each call signs afresh, with a new nonce.
struct OfferSignatureController {
    let service: OfferSigningService
    let maxBodyBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/v1/customers/:app_user_id/offer-signatures") { request, context in
            let (caller, user) = try context.requireCallerAndCustomer()
            let body = try await JSONBody.decode(OfferSignatureRequest.self, from: request, limit: maxBodyBytes)
            try Self.validate(body)
            let answer = try await service.sign(
                body, appUserID: user, appID: caller.appID, requestID: context.requestID)
            return try JSONBody.response(answer, headers: [.cacheControl: "no-store"])
        }
        return routes
    }

    /// Every problem of the body at once.
    static func validate(_ body: OfferSignatureRequest) throws(RequestError) {
        var problems: [FieldProblem] = []
        if !(1...128).contains(body.productID.count) || body.productID.contains(where: \.isNewline) {
            problems.append(FieldProblem(pointer: "/product_id", detail: "must be 1 to 128 characters on one line"))
        }
        switch (body.offer, body.offerID) {
        case (.promotional, nil):
            problems.append(FieldProblem(pointer: "/offer_id", detail: "is required for a promotional offer"))
        case (.promotional, let id?) where !isOfferIdentifier(id):
            problems.append(
                FieldProblem(pointer: "/offer_id", detail: "must be 1 to 64 letters, digits, '.', '_' or '-'"))
        case (.introductory, _?):
            problems.append(FieldProblem(pointer: "/offer_id", detail: "is only for a promotional offer"))
        default:
            break
        }
        if let device = body.deviceID, !(1...255).contains(device.count) || device.contains(where: \.isNewline) {
            problems.append(FieldProblem(pointer: "/device_id", detail: "must be 1 to 255 characters on one line"))
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
    }

    /// A promotional offer identifier as App Store Connect takes it.
    static func isOfferIdentifier(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || byte == 0x2e || byte == 0x5f || byte == 0x2d
            }
    }
}
