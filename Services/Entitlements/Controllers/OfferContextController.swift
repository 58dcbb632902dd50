import Hummingbird
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/offer-context` (signed calls from the verifier): before it signs an App Store offer for a
/// customer, the verifier asks here whether the customer may have it. Entitlements owns customers, so it resolves the
/// app user id (an id no customer has yet is a new customer) and asks the subscriptions service, which owns
/// subscription history, for the eligibility.
struct OfferContextController {
    let customers: any TrialCustomerRepository
    let facts: any OfferFactsRepository
    let subscriptions: SubscriptionsClient
    let maxBodyBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/internal/v1/offer-context") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(OfferContextRequest.self, from: request, limit: maxBodyBytes)
            _ = try AppUserID.validated(body.appUserID, pointer: "/app_user_id")
            if let deviceID = body.deviceID { try TrialController.validate(deviceID: deviceID, pointer: "/device_id") }
            let customer =
                try await customers.resolve(appID: caller.appID, appUserID: body.appUserID, create: false)
                ?? TrialCustomer(customerID: nil, customerIDs: [], purchases: [])
            let eligibility = try await subscriptions.offerEligibility(
                InternalEligibilityRequest(customer: customer, productID: body.productID, deviceID: body.deviceID),
                appID: caller.appID, requestID: context.requestID)
            let answer = OfferContext(
                productID: body.productID,
                appleProductID: try await facts.appleProductID(appID: caller.appID, productID: body.productID),
                eligibility: eligibility,
                appleTransactionID: try await facts.appleTransactionID(
                    appID: caller.appID, customerIDs: customer.customerIDs))
            return try JSONBody.response(answer)
        }
        return routes
    }
}
