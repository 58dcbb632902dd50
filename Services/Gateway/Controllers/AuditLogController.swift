import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/admin/audit-log?limit=&before=`: the app's recorded admin actions, newest first (secret key, or a
/// console session).
struct AuditLogController {
    let log: any AuditLogRepository
    /// Most entries one page may hold.
    static let maximumLimit = 200
    /// Entries per page when `limit` is not given.
    static let defaultLimit = 50

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .get { request, context in
                let appID = try context.secretKeyApp()
                let (limit, before) = try Self.page(from: request.uri.queryParameters)
                let page = try await log.entries(appID: appID, limit: limit, before: before)
                return try JSONBody.response(page, headers: [.cacheControl: "no-store"])
            }
    }

    /// Reads `limit` and `before`; every problem is reported at once (400 `invalid_query`).
    static func page(from parameters: Parameters) throws(RequestError) -> (limit: Int, before: Int64?) {
        var problems: [FieldProblem] = []
        var limit = defaultLimit
        var before: Int64?
        if let text = parameters.get("limit") {
            if let value = Int(text), (1...maximumLimit).contains(value) {
                limit = value
            } else {
                problems.append(FieldProblem(pointer: "?limit", detail: "must be an integer from 1 to \(maximumLimit)"))
            }
        }
        if let text = parameters.get("before") {
            if let value = Int64(text), value > 0 {
                before = value
            } else {
                problems.append(FieldProblem(pointer: "?before", detail: "must be the entry_id of an entry"))
            }
        }
        guard problems.isEmpty else { throw .invalidQuery(problems) }
        return (limit, before)
    }
}
