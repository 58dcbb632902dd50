import HTTPTypes
import NIOCore
import ShopkeeperHTTP

/// Gateway failures with their HTTP rendering.
enum GatewayError: ProblemError {
    case appNotFound(String)
    case keyNotFound(String)
    /// `signed` mode without a live customer token secret: no request could prove a customer.
    case customerTokenSecretRequired
    case customerTokenSecretNotFound(String)
    case customerTokenPublicKeyNotFound(String)
    case answerSigningKeyNotFound(String)
    /// The active answer signing key cannot be retired while another live key could take its place.
    case answerSigningKeyActive(String)
    /// The upstream service could not be reached or broke the connection.
    case upstreamUnavailable(service: String)
    /// The upstream service did not answer in time.
    case upstreamTimeout(service: String)

    var status: HTTPResponse.Status {
        switch self {
        case .appNotFound, .keyNotFound, .customerTokenSecretNotFound, .customerTokenPublicKeyNotFound,
            .answerSigningKeyNotFound:
            .notFound
        case .customerTokenSecretRequired, .answerSigningKeyActive: .conflict
        case .upstreamUnavailable: .badGateway
        case .upstreamTimeout: .gatewayTimeout
        }
    }

    var code: String {
        switch self {
        case .appNotFound: "app_not_found"
        case .keyNotFound: "key_not_found"
        case .customerTokenSecretRequired: "customer_token_secret_required"
        case .customerTokenSecretNotFound: "customer_token_secret_not_found"
        case .customerTokenPublicKeyNotFound: "customer_token_public_key_not_found"
        case .answerSigningKeyNotFound: "answer_signing_key_not_found"
        case .answerSigningKeyActive: "answer_signing_key_active"
        case .upstreamUnavailable: "upstream_unavailable"
        case .upstreamTimeout: "upstream_timeout"
        }
    }

    var detail: String {
        switch self {
        case .appNotFound(let id): "No app '\(id)' exists."
        case .keyNotFound(let id): "No key '\(id)' exists for this app."
        case .customerTokenSecretRequired:
            "The 'signed' customer boundary needs a customer token secret or public key: create one first (POST "
                + "/v1/admin/customer-boundary/secrets or /v1/admin/customer-boundary/public-keys)."
        case .customerTokenSecretNotFound(let id): "No customer token secret '\(id)' exists for this app."
        case .customerTokenPublicKeyNotFound(let id): "No customer token public key '\(id)' exists for this app."
        case .answerSigningKeyNotFound(let id): "No live answer signing key '\(id)' exists for this app."
        case .answerSigningKeyActive(let id):
            "Key '\(id)' signs the app's answers now: activate another key first (POST "
                + "/v1/admin/answer-signing/keys/{key_id}/activate), then retire this one."
        case .upstreamUnavailable(let service): "The \(service) service is unavailable; retry shortly."
        case .upstreamTimeout(let service): "The \(service) service did not answer in time; retry shortly."
        }
    }
}

extension GatewayError {
    /// What a failed call to `service` tells the client: a timeout (504) or an unavailable service (502).
    static func upstream(_ error: any Error, service: String) -> GatewayError {
        if error is UpstreamReadTimeout { return .upstreamTimeout(service: service) }
        if let channelError = error as? ChannelError, case .connectTimeout = channelError {
            return .upstreamTimeout(service: service)
        }
        return .upstreamUnavailable(service: service)
    }
}
