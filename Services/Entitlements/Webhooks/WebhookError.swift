import HTTPTypes
import ShopkeeperHTTP

/// Webhook administration failures with their HTTP rendering.
enum WebhookError: ProblemError, Equatable {
    /// The operation needs a webhook endpoint (enabled), and the app has none.
    case notConfigured
    /// No webhook endpoint with this id for this app.
    case endpointNotFound(String)
    /// The app has as many endpoints as one app may have.
    case tooManyEndpoints(limit: Int)

    var status: HTTPResponse.Status {
        switch self {
        case .notConfigured: .conflict
        case .endpointNotFound: .notFound
        case .tooManyEndpoints: .conflict
        }
    }

    var code: String {
        switch self {
        case .notConfigured: "webhook_not_configured"
        case .endpointNotFound: "webhook_endpoint_not_found"
        case .tooManyEndpoints: "too_many_webhook_endpoints"
        }
    }

    var detail: String {
        switch self {
        case .notConfigured:
            "This app has no enabled webhook endpoint for this; create one with POST /v1/admin/webhook-endpoints (or set "
                + "webhook_url with PUT /v1/admin/entitlements/settings) first."
        case .endpointNotFound(let id):
            "This app has no webhook endpoint \(id)."
        case .tooManyEndpoints(let limit):
            "An app has at most \(limit) webhook endpoints; delete one first."
        }
    }
}
