import Foundation
import Hummingbird
import ShopkeeperHTTP

/// `/v1/admin/webhook-endpoints`: the app's webhook endpoints (secret key). An endpoint's signing secret is shown in
/// the answer that creates it and in each rotation's, never again.
struct WebhookEndpointController {
    let repository: any WebhookEndpointRepository
    /// Which URLs are acceptable on this server (the same check as the settings' `webhook_url`).
    let urlPolicy: WebhookURLPolicy
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { _, context in
            let caller = try context.requireSecretCaller()
            let list = try await repository.endpoints(appID: caller.appID)
            return try JSONBody.response(EndpointList(endpoints: list), headers: Self.noStore)
        }
        routes.post { request, context in
            let caller = try context.requireSecretCaller()
            let input = try await JSONBody.decode(WebhookEndpointInput.self, from: request, limit: maxBodyBytes)
            let created = try await repository.create(
                try input.validated(policy: urlPolicy, creating: true), appID: caller.appID)
            context.logger.info(
                "webhook endpoint created",
                metadata: [
                    "app_id": "\(caller.appID)", "endpoint_id": "\(created.endpoint.id.uuidString.lowercased())",
                ])
            return try JSONBody.response(created, status: .created, headers: Self.noStore)
        }
        routes.get(":endpoint_id") { _, context in
            let caller = try context.requireSecretCaller()
            let endpoint = try await repository.endpoint(appID: caller.appID, id: try Self.endpointID(context))
            return try JSONBody.response(endpoint, headers: Self.noStore)
        }
        routes.put(":endpoint_id") { request, context in
            let caller = try context.requireSecretCaller()
            let id = try Self.endpointID(context)
            let input = try await JSONBody.decode(WebhookEndpointInput.self, from: request, limit: maxBodyBytes)
            let updated = try await repository.update(
                try input.validated(policy: urlPolicy, creating: false), appID: caller.appID, id: id)
            return try JSONBody.response(updated, headers: Self.noStore)
        }
        routes.delete(":endpoint_id") { _, context in
            let caller = try context.requireSecretCaller()
            try await repository.delete(appID: caller.appID, id: try Self.endpointID(context))
            return Response(status: .noContent)
        }
        routes.post(":endpoint_id/secret") { _, context in
            let caller = try context.requireSecretCaller()
            let id = try Self.endpointID(context)
            let rotated = try await repository.rotateSecret(appID: caller.appID, id: id)
            context.logger.info(
                "webhook endpoint secret rotated",
                metadata: ["app_id": "\(caller.appID)", "endpoint_id": "\(id.uuidString.lowercased())"])
            return try JSONBody.response(rotated, headers: Self.noStore)
        }
        routes.get(":endpoint_id/stats") { _, context in
            let caller = try context.requireSecretCaller()
            let stats = try await repository.stats(appID: caller.appID, id: try Self.endpointID(context))
            return try JSONBody.response(stats, headers: Self.noStore)
        }
        return routes
    }

    /// The path's endpoint id; a malformed one names no endpoint (404 `webhook_endpoint_not_found`).
    private static func endpointID(_ context: ServiceRequestContext) throws -> UUID {
        let text = try context.parameters.require("endpoint_id")
        guard let id = UUID(uuidString: text) else { throw WebhookError.endpointNotFound(text) }
        return id
    }

    /// Answers that may carry a secret are never stored by caches (and the others alike).
    private static let noStore: HTTPFields = [.cacheControl: "no-store"]

    /// The body of `GET /v1/admin/webhook-endpoints`.
    private struct EndpointList: Encodable {
        var endpoints: [WebhookEndpoint]
    }
}
