import HTTPTypes
import ShopkeeperHTTP

/// Webhook administration failures with their HTTP rendering.
enum WebhookError: ProblemError, Equatable {
    /// The operation needs a webhook, and the app has none.
    case notConfigured

    var status: HTTPResponse.Status {
        switch self {
        case .notConfigured: .conflict
        }
    }

    var code: String {
        switch self {
        case .notConfigured: "webhook_not_configured"
        }
    }

    var detail: String {
        switch self {
        case .notConfigured:
            "This app has no webhook; set webhook_url with PUT /v1/admin/entitlements/settings first."
        }
    }
}
