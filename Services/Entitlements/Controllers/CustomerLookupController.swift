import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// Support's look-ups (secret key): `GET /v1/admin/customers?query=&limit=` finds customers, and
/// `GET /v1/customers/{app_user_id}/explain` says why each of a customer's entitlements is active or not.
struct CustomerLookupController {
    let customers: any CustomerLookupRepository
    /// Most matches one answer may hold.
    static let maximumLimit = 100
    /// Matches when `limit` is not given.
    static let defaultLimit = 20

    /// Mounted at `/v1/admin/customers`.
    var searchEndpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get { request, context in
                let caller = try context.requireSecretCaller()
                let (query, limit) = try Self.search(from: request.uri.queryParameters)
                return JSONText.response(
                    try await customers.search(appID: caller.appID, query: query, limit: limit),
                    headers: [.cacheControl: "no-store"])
            }
    }

    /// Mounted at `/v1/customers`.
    var explainEndpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get(":app_user_id/explain") { _, context in
                let (caller, id) = try context.requireCallerAndCustomer(secretKey: true)
                return JSONText.response(
                    try await customers.explanation(appID: caller.appID, appUserID: id),
                    headers: [.cacheControl: "no-store"])
            }
    }

    /// Reads `query` (required, one line of 1 to 256 characters) and `limit`; every problem is reported at once.
    static func search(from parameters: Parameters) throws(RequestError) -> (query: String, limit: Int) {
        var problems: [FieldProblem] = []
        let query = parameters.get("query")?.trimmingCharacters(in: .whitespaces) ?? ""
        if query.isEmpty || query.unicodeScalars.count > AppUserID.maximumLength || query.contains(where: \.isNewline) {
            problems.append(
                FieldProblem(
                    pointer: "?query", detail: "is required: 1 to \(AppUserID.maximumLength) characters on one line"))
        }
        var limit = defaultLimit
        if let text = parameters.get("limit") {
            if let value = Int(text), (1...maximumLimit).contains(value) {
                limit = value
            } else {
                problems.append(FieldProblem(pointer: "?limit", detail: "must be an integer from 1 to \(maximumLimit)"))
            }
        }
        guard problems.isEmpty else { throw .invalidQuery(problems) }
        return (query, limit)
    }
}
