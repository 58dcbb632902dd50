import Foundation
import HTTPTypes
import ShopkeeperModels

/// One kind of admin action the audit log records: a method on a documented path, its name, and a short summary
/// whose `{parameter}`s are filled in from the path.
struct AuditedAction: Sendable {
    let method: HTTPRequest.Method
    let template: PublicRoutes.Template
    /// Stable, such as `promotional_grant.create`.
    let action: String
    let summary: String
    /// The names of the path's `{parameter}` segments, in order.
    let parameterNames: [String]

    init(_ method: HTTPRequest.Method, _ path: String, _ action: String, _ summary: String) {
        self.method = method
        self.template = PublicRoutes.Template(path, [method])
        self.action = action
        self.summary = summary
        self.parameterNames = path.split(separator: "/").filter { $0.hasPrefix("{") }.map {
            String($0.dropFirst().dropLast())
        }
    }

    /// The path's parameters, percent-decoded, when `segments` (the path's non-empty segments) match; `nil`
    /// otherwise.
    func parameters(of segments: [Substring]) -> [String: String]? {
        guard template.matches(segments) else { return nil }
        let values = zip(segments, template.segments).filter { $0.1 == nil }.map { $0.0 }
        return Dictionary(
            zip(parameterNames, values).map { name, value in
                // A customer id is decoded as the proxy decodes it (``CustomerPath``), so the log names the customer
                // the service acted on.
                let decoded =
                    name == "app_user_id"
                    ? try? AppUserID.decode(segment: value) : String(value).removingPercentEncoding
                return (name, decoded ?? String(value))
            }
        ) { first, _ in first }
    }

    /// ``summary`` with the parameters filled in.
    func summary(with parameters: [String: String]) -> String {
        parameters.reduce(summary) { text, parameter in
            text.replacingOccurrences(of: "{\(parameter.key)}", with: parameter.value)
        }
    }
}

/// Every admin action the gateway records: the changes an app's secret key (or its console session) and the
/// operator make to an app. What an app does for its customers (purchases, restores, consumption) is not in it.
enum AuditedActions {
    static let all: [AuditedAction] = [
        .init(.post, "/v1/admin/products", "product.create", "Created a product"),
        .init(.put, "/v1/admin/products/{product_id}", "product.update", "Edited product {product_id}"),
        .init(.delete, "/v1/admin/products/{product_id}", "product.delete", "Deleted product {product_id}"),
        .init(.put, "/v1/admin/catalog", "catalog.import", "Imported a catalog document"),
        .init(.put, "/v1/admin/offerings", "offerings.import", "Replaced the offerings and targeting rules"),
        .init(.post, "/v1/admin/offerings", "offering.create", "Created an offering"),
        .init(.put, "/v1/admin/offerings/{offering_id}", "offering.update", "Edited offering {offering_id}"),
        .init(.delete, "/v1/admin/offerings/{offering_id}", "offering.delete", "Deleted offering {offering_id}"),
        .init(.put, "/v1/admin/offering-rules", "offering_rules.update", "Replaced the targeting rules"),
        .init(.post, "/v1/admin/experiments", "experiment.create", "Created an experiment"),
        .init(
            .put, "/v1/admin/experiments/{experiment_id}", "experiment.update", "Edited experiment {experiment_id}"),
        .init(
            .post, "/v1/admin/experiments/{experiment_id}/start", "experiment.start",
            "Started experiment {experiment_id}"),
        .init(
            .post, "/v1/admin/experiments/{experiment_id}/stop", "experiment.stop",
            "Stopped experiment {experiment_id}"),
        .init(
            .post, "/v1/customers/{app_user_id}/grants", "promotional_grant.create",
            "Granted a promotional entitlement to {app_user_id}"),
        .init(
            .delete, "/v1/customers/{app_user_id}/grants/{grant_id}", "promotional_grant.revoke",
            "Revoked promotional grant {grant_id} of {app_user_id}"),
        .init(
            .post, "/v1/customers/{app_user_id}/content/reset", "content.reset",
            "Reset the content downloads of {app_user_id}"),
        .init(
            .post, "/v1/admin/aliases/suspended/confirm", "alias.confirm",
            "Confirmed an id the public key linked before the customer boundary became signed"),
        .init(
            .delete, "/v1/admin/purchases/{store}/{original_transaction_id}/devices", "purchase_devices.clear",
            "Cleared the devices of {store} purchase {original_transaction_id}"),
        .init(.put, "/v1/admin/stores/{store}", "store_credentials.set", "Set the {store} credentials"),
        .init(.delete, "/v1/admin/stores/{store}", "store_credentials.delete", "Removed the {store} credentials"),
        .init(.post, "/v1/admin/keys", "key.create", "Created an API key"),
        .init(.post, "/v1/admin/users", "console_user.invite", "Invited a console user"),
        .init(
            .put, "/v1/admin/users/{user_id}", "console_user.role_change", "Changed the role of console user {user_id}"),
        .init(.delete, "/v1/admin/users/{user_id}", "console_user.remove", "Removed console user {user_id}"),
        .init(
            .delete, "/v1/admin/users/{user_id}/totp", "console_user.totp_reset",
            "Reset the second factor of console user {user_id}"),
        .init(.delete, "/v1/admin/keys/{key_id}", "key.revoke", "Revoked API key {key_id}"),
        .init(.put, "/v1/admin/customer-boundary", "customer_boundary.set", "Set the customer boundary"),
        .init(
            .post, "/v1/admin/customer-boundary/secrets", "customer_token_secret.create",
            "Created a customer token secret"),
        .init(
            .delete, "/v1/admin/customer-boundary/secrets/{secret_id}", "customer_token_secret.revoke",
            "Revoked customer token secret {secret_id}"),
        .init(
            .post, "/v1/admin/customer-boundary/public-keys", "customer_token_public_key.register",
            "Registered a customer token public key"),
        .init(
            .delete, "/v1/admin/customer-boundary/public-keys/{key_id}", "customer_token_public_key.revoke",
            "Revoked customer token public key {key_id}"),
        .init(.post, "/v1/admin/answer-signing/keys", "answer_signing_key.create", "Created an answer signing key"),
        .init(
            .post, "/v1/admin/answer-signing/keys/{key_id}/activate", "answer_signing_key.activate",
            "Activated answer signing key {key_id}"),
        .init(
            .delete, "/v1/admin/answer-signing/keys/{key_id}", "answer_signing_key.retire",
            "Retired answer signing key {key_id}"),
        .init(.put, "/v1/admin/entitlements/settings", "settings.update", "Changed the app's settings"),
        .init(.post, "/v1/admin/entitlements/webhook-secret", "webhook_secret.rotate", "Rotated the webhook secret"),
        .init(.post, "/v1/admin/events/{event_id}/replay", "event.replay", "Replayed the webhook of event {event_id}"),
        .init(.post, "/v1/admin/webhook-endpoints", "webhook_endpoint.create", "Created a webhook endpoint"),
        .init(
            .put, "/v1/admin/webhook-endpoints/{endpoint_id}", "webhook_endpoint.update",
            "Changed webhook endpoint {endpoint_id}"),
        .init(
            .delete, "/v1/admin/webhook-endpoints/{endpoint_id}", "webhook_endpoint.delete",
            "Deleted webhook endpoint {endpoint_id}"),
        .init(
            .post, "/v1/admin/webhook-endpoints/{endpoint_id}/secret", "webhook_endpoint_secret.rotate",
            "Rotated the secret of webhook endpoint {endpoint_id}"),
        .init(
            .post, "/v1/admin/content/{product_id}/uploads", "content_upload.start",
            "Started a content upload for {product_id}"),
        .init(
            .delete, "/v1/admin/content/{product_id}/uploads/{upload_id}", "content_upload.cancel",
            "Cancelled content upload {upload_id} of {product_id}"),
        .init(
            .put, "/v1/admin/content/{product_id}/uploads/{upload_id}/files", "content_upload.file",
            "Uploaded a file to content upload {upload_id} of {product_id}"),
        .init(
            .post, "/v1/admin/content/{product_id}/uploads/{upload_id}/publish", "content.publish",
            "Published content upload {upload_id} of {product_id}"),
        .init(.post, "/operator/v1/apps", "app.create", "Created an app"),
        .init(.post, "/operator/v1/apps/{app_id}/keys", "key.create", "Created an API key"),
        .init(.delete, "/operator/v1/apps/{app_id}/keys/{key_id}", "key.revoke", "Revoked API key {key_id}"),
        .init(
            .put, "/operator/v1/apps/{app_id}/customer-boundary", "customer_boundary.set", "Set the customer boundary"),
        .init(
            .post, "/operator/v1/apps/{app_id}/customer-boundary/secrets", "customer_token_secret.create",
            "Created a customer token secret"),
        .init(
            .delete, "/operator/v1/apps/{app_id}/customer-boundary/secrets/{secret_id}",
            "customer_token_secret.revoke", "Revoked customer token secret {secret_id}"),
        .init(
            .post, "/operator/v1/apps/{app_id}/customer-boundary/public-keys", "customer_token_public_key.register",
            "Registered a customer token public key"),
        .init(
            .delete, "/operator/v1/apps/{app_id}/customer-boundary/public-keys/{key_id}",
            "customer_token_public_key.revoke", "Revoked customer token public key {key_id}"),
    ]

    /// The action `method` on `path` is, with the path's parameters; `nil` when it is not audited.
    static func match(method: HTTPRequest.Method, path: String) -> (AuditedAction, [String: String])? {
        // Empty segments skipped, as the router does: `//v1//admin/keys` is the route it reaches.
        let segments = path.split(separator: "/")
        for action in all where action.method == method {
            if let parameters = action.parameters(of: segments) { return (action, parameters) }
        }
        return nil
    }
}
