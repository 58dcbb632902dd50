import Hummingbird
import ShopkeeperHTTP

/// `/v1/admin/entitlements`: the app's entitlement rules and webhook (secret key).
///
/// The webhook signing secret is shown twice at most: in the `PUT` answer that first gives the app a webhook URL,
/// and in the answer of each rotation. `GET` never shows it.
struct SettingsController {
    let repository: any SettingsRepository
    /// Which webhook URLs are acceptable on this server.
    let urlPolicy: WebhookURLPolicy
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("settings") { _, context in
            let caller = try context.requireSecretCaller()
            let settings = try await repository.settings(appID: caller.appID)
            return try JSONBody.response(SettingsResponse(settings: settings), headers: Self.noStore)
        }
        routes.put("settings") { request, context in
            let caller = try context.requireSecretCaller()
            let input = try await JSONBody.decode(SettingsInput.self, from: request, limit: maxBodyBytes)
            let change = try input.validated(policy: urlPolicy)
            let saved = try await repository.save(change, appID: caller.appID)
            if saved.createdWebhookSecret != nil {
                context.logger.info("webhook secret created", metadata: ["app_id": "\(caller.appID)"])
            }
            return try JSONBody.response(
                SettingsResponse(settings: saved.settings, webhookSecret: saved.createdWebhookSecret),
                headers: Self.noStore)
        }
        routes.post("webhook-secret") { _, context in
            let caller = try context.requireSecretCaller()
            let secret = try await repository.rotateWebhookSecret(appID: caller.appID)
            context.logger.info("webhook secret rotated", metadata: ["app_id": "\(caller.appID)"])
            return try JSONBody.response(WebhookSecretResponse(webhookSecret: secret), headers: Self.noStore)
        }
        return routes
    }

    /// Answers that may carry a secret are never stored by caches.
    private static let noStore: HTTPFields = [.cacheControl: "no-store"]
}
