import Foundation
import Hummingbird
import NIOCore
import ShopkeeperHTTP
import ShopkeeperModels

/// `/v1/admin/events`: the app's events with their webhook deliveries (one per endpoint), and replays (secret key).
struct EventController {
    let events: any EventRepository
    /// Most events one page may hold.
    static let maximumLimit = 200
    /// Events per page when `limit` is not given.
    static let defaultLimit = 50

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { request, context in
            let caller = try context.requireSecretCaller()
            let filter = try Self.filter(from: request.uri.queryParameters)
            let page = try await events.events(appID: caller.appID, filter: filter)
            var document = "{\"events\":[" + page.events.joined(separator: ",") + "]"
            if let next = page.nextBefore { document += ",\"next_before\":\"\(next.uuidString.lowercased())\"" }
            return Self.json(document + "}")
        }
        routes.get(":event_id") { _, context in
            let caller = try context.requireSecretCaller()
            return Self.json(try await events.event(appID: caller.appID, id: try Self.eventID(context)))
        }
        routes.post(":event_id/replay") { request, context in
            let caller = try context.requireSecretCaller()
            let id = try Self.eventID(context)
            let endpoint = try Self.replayEndpoint(from: request.uri.queryParameters)
            let event = try await events.replay(appID: caller.appID, id: id, endpointID: endpoint)
            context.logger.info(
                "webhook delivery replayed",
                metadata: ["app_id": "\(caller.appID)", "event_id": "\(id.uuidString.lowercased())"])
            return Self.json(event, status: .accepted)
        }
        return routes
    }

    /// The path's event id; a malformed one names no event (404 `event_not_found`).
    private static func eventID(_ context: ServiceRequestContext) throws -> UUID {
        let text = try context.parameters.require("event_id")
        guard let id = UUID(uuidString: text) else { throw EntitlementsError.eventNotFound(text) }
        return id
    }

    /// The replay's `endpoint_id` (only that endpoint), or `nil` (every endpoint that matches); 400 `invalid_query`
    /// when it is no id.
    static func replayEndpoint(from parameters: Parameters) throws(RequestError) -> UUID? {
        guard let text = parameters.get("endpoint_id") else { return nil }
        guard let id = UUID(uuidString: text) else {
            throw .invalidQuery([FieldProblem(pointer: "?endpoint_id", detail: "must be a webhook endpoint id")])
        }
        return id
    }

    /// Reads and checks the query; every problem is reported at once (400 `invalid_query`).
    static func filter(from parameters: Parameters) throws(RequestError) -> EventFilter {
        var problems: [FieldProblem] = []
        var filter = EventFilter(limit: defaultLimit)
        if let text = parameters.get("limit") {
            if let limit = Int(text), (1...maximumLimit).contains(limit) {
                filter.limit = limit
            } else {
                problems.append(FieldProblem(pointer: "?limit", detail: "must be an integer from 1 to \(maximumLimit)"))
            }
        }
        if let text = parameters.get("type"), !text.isEmpty {
            filter.type = EventType(rawValue: text)
            if filter.type == nil {
                let allowed = EventType.allCases.map(\.rawValue).joined(separator: ", ")
                problems.append(FieldProblem(pointer: "?type", detail: "must be one of \(allowed)"))
            }
        }
        if let text = parameters.get("app_user_id"), !text.isEmpty {
            filter.appUserID = AppUserID.validated(text, pointer: "?app_user_id", problems: &problems)
        }
        if let text = parameters.get("before") {
            filter.before = UUID(uuidString: text)
            if filter.before == nil {
                problems.append(FieldProblem(pointer: "?before", detail: "must be the id of one of this app's events"))
            }
        }
        guard problems.isEmpty else { throw .invalidQuery(problems) }
        return filter
    }

    /// A response whose body is JSON rendered by the database.
    private static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        let headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .contentLength: String(text.utf8.count),
            .cacheControl: "no-store",
        ]
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
