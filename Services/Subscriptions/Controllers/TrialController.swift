import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// The app's own free trials, intro-offer and offer eligibility, for a customer the entitlements service resolved
/// (signed internal calls; the public routes live in entitlements, which owns customers).
struct TrialController {
    let trials: any TrialRepository
    let maxBodyBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/internal/v1/trials/start") { request, context in
            let caller = try context.requireCaller()
            let body = try await decode(request)
            guard let deviceID = body.deviceID else { throw RequestError.invalid("/device_id", "is required") }
            try Self.validate(deviceID: deviceID)
            let answer = try await trials.start(
                appID: caller.appID, customer: body.customer, deviceID: deviceID, productID: body.productID)
            return try JSONBody.response(answer, status: answer.started ? .created : .ok)
        }
        routes.post("/internal/v1/trials/lookup") { request, context in
            let caller = try context.requireCaller()
            let body = try await decode(request)
            return try JSONBody.response(try await trials.trial(appID: caller.appID, customer: body.customer))
        }
        routes.post("/internal/v1/eligibility") { request, context in
            try await answerEligibility(request, context: context, with: trials.eligibility)
        }
        routes.post("/internal/v1/offer-eligibility") { request, context in
            try await answerEligibility(request, context: context, with: trials.offerEligibility)
        }
        return routes
    }

    /// Answers an ``InternalEligibilityRequest`` with `question`, asked with the caller's app id and the request's
    /// customer, product and device: ``TrialRepository/eligibility(appID:customer:productID:deviceID:)`` or
    /// ``TrialRepository/offerEligibility(appID:customer:productID:deviceID:)``.
    private func answerEligibility<Answer: Encodable>(
        _ request: Request,
        context: ServiceRequestContext,
        with question: (_ appID: String, _ customer: TrialCustomer, _ productID: String, _ deviceID: String?)
            async throws -> Answer
    ) async throws -> Response {
        let caller = try context.requireCaller()
        let body = try await JSONBody.decode(InternalEligibilityRequest.self, from: request, limit: maxBodyBytes)
        if let deviceID = body.deviceID { try Self.validate(deviceID: deviceID) }
        return try JSONBody.response(try await question(caller.appID, body.customer, body.productID, body.deviceID))
    }

    private func decode(_ request: Request) async throws -> InternalTrialRequest {
        let body = try await JSONBody.decode(InternalTrialRequest.self, from: request, limit: maxBodyBytes)
        guard body.customer.customerIDs.count <= 1_000 else {
            throw RequestError.invalid("/customer/customer_ids", "must hold at most 1000 ids")
        }
        return body
    }

    /// A device id: 1 to 255 characters.
    static func validate(deviceID: String) throws {
        guard (1...255).contains(deviceID.count) else {
            throw RequestError.invalid("/device_id", "must be 1 to 255 characters")
        }
    }
}
