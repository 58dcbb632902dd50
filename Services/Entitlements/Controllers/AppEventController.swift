import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/app-events`: the verifier hands over app-level facts a store told (consent rescinded, external
/// purchase tokens), which name no customer, to publish as events (signed internal call). Each event is written once
/// per key, so the verifier may send the same facts again after any failure.
struct AppEventController {
    let events: any AppEventRepository
    let maxBodyBytes: Int
    /// Most events one call may publish (one per notification of a batch).
    static let maximumEvents = 1_000

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/internal/v1/app-events") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(AppEventsRequest.self, from: request, limit: maxBodyBytes)
            guard (1...Self.maximumEvents).contains(body.events.count) else {
                throw RequestError.invalid("/events", "must hold 1 to \(Self.maximumEvents) events")
            }
            for (index, event) in body.events.enumerated() where event.key.isEmpty || event.key.count > 512 {
                throw RequestError.invalid("/events/\(index)/key", "must be 1 to 512 characters")
            }
            let published = try await events.publish(body.events, appID: caller.appID)
            return try JSONBody.response(AppEventsResponse(published: published))
        }
        return routes
    }
}
