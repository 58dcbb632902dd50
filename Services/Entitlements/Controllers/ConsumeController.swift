import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/customers/{app_user_id}/consumables/{product_id}/consume`: spends units of a consumable, once per
/// `Idempotency-Key`.
struct ConsumeController {
    let consumables: any ConsumableRepository
    let maxBodyBytes: Int
    /// How many units one request may spend.
    static let quantities: ClosedRange<Int64> = 1...1_000_000

    /// The body: how many units to spend.
    struct ConsumeBody: Codable {
        var quantity: Int64
    }

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post(":app_user_id/consumables/:product_id/consume", use: consume)
    }

    @Sendable func consume(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer()
        let productID = try context.parameters.require("product_id")
        let key = try IdempotencyKey.from(request.headers)
        let body = try await JSONBody.decode(ConsumeBody.self, from: request, limit: maxBodyBytes)
        guard Self.quantities.contains(body.quantity) else {
            throw RequestError.invalid(
                "/quantity", "must be \(Self.quantities.lowerBound) to \(Self.quantities.upperBound)")
        }
        let answer = try await consumables.consume(
            ConsumeRequest(
                appID: caller.appID, appUserID: id, productID: productID, quantity: body.quantity,
                idempotencyKey: key, requestID: context.requestID))
        var headers: HTTPFields = [.cacheControl: "no-store"]
        if answer.replayed { headers[.idempotentReplayed] = "true" }
        return JSONText.response(answer.body, status: HTTPResponse.Status(code: answer.status), headers: headers)
    }
}
