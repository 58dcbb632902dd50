import Hummingbird
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// The app's own free trial and intro-offer eligibility of a customer. Entitlements owns customers, so it resolves
/// the app user id here; the subscriptions service owns trials and decides.
///
/// - `POST /v1/customers/{app_user_id}/trial` (`device_id`, optional `product_id`): starts the trial once per
///   customer and once per device; `201` when this call started it, `200` with the trial the customer already has.
/// - `GET /v1/customers/{app_user_id}/trial`: its state (`none`, `active`, `expired`).
/// - `GET /v1/customers/{app_user_id}/eligibility?product_id=&device_id=`: whether an intro offer or trial of the
///   product may be offered, on any store.
struct TrialController {
    let customers: any TrialCustomerRepository
    let subscriptions: SubscriptionsClient
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post(":app_user_id/trial", use: start)
            .get(":app_user_id/trial", use: trial)
            .get(":app_user_id/eligibility", use: eligibility)
    }

    @Sendable func start(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer()
        let body = try await JSONBody.decode(TrialStartRequest.self, from: request, limit: maxBodyBytes)
        try Self.validate(deviceID: body.deviceID, pointer: "/device_id")
        guard let customer = try await customers.resolve(appID: caller.appID, appUserID: id, create: true) else {
            throw EntitlementsError.customerNotFound(id)
        }
        let answer = try await subscriptions.startTrial(
            InternalTrialRequest(customer: customer, deviceID: body.deviceID, productID: body.productID),
            appID: caller.appID, requestID: context.requestID)
        if answer.started, let customerID = customer.customerID {
            try await customers.trialStarted(customerID: customerID)
        }
        return try JSONBody.response(answer.trial, status: answer.started ? .created : .ok)
    }

    @Sendable func trial(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer()
        guard let customer = try await customers.resolve(appID: caller.appID, appUserID: id, create: false) else {
            throw EntitlementsError.customerNotFound(id)
        }
        let trial = try await subscriptions.trial(
            InternalTrialRequest(customer: customer, deviceID: nil, productID: nil), appID: caller.appID,
            requestID: context.requestID)
        return try JSONBody.response(trial)
    }

    @Sendable func eligibility(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer()
        let query = request.uri.queryParameters
        guard let productID = query["product_id"].map(String.init), !productID.isEmpty, productID.count <= 128 else {
            throw RequestError.invalidQuery([FieldProblem(pointer: "?product_id", detail: "is required")])
        }
        let deviceID = query["device_id"].map(String.init)
        if let deviceID { try Self.validate(deviceID: deviceID, pointer: "?device_id") }
        // A new user (no customer yet) is asked about before buying anything: nothing counts against it.
        let customer =
            try await customers.resolve(appID: caller.appID, appUserID: id, create: false)
            ?? TrialCustomer(customerID: nil, customerIDs: [], purchases: [])
        let answer = try await subscriptions.eligibility(
            InternalEligibilityRequest(customer: customer, productID: productID, deviceID: deviceID),
            appID: caller.appID, requestID: context.requestID)
        return try JSONBody.response(answer)
    }

    /// A device id: 1 to 255 characters on one line.
    static func validate(deviceID: String, pointer: String) throws {
        guard (1...255).contains(deviceID.count), !deviceID.contains(where: \.isNewline) else {
            throw RequestError.invalid(pointer, "must be 1 to 255 characters on one line")
        }
    }
}
