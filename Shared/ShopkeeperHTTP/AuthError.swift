import HTTPTypes

/// Authentication and authorization failures, at the gateway and at internal endpoints.
package enum AuthError: ProblemError {
    /// No `Authorization: Bearer` header.
    case missingCredentials
    /// The key is unknown, malformed or revoked.
    case invalidKey
    /// A public key was used where a secret key is required.
    case secretKeyRequired
    /// The operator key is wrong or operator access is disabled.
    case operatorKeyRequired
    /// An internal endpoint was called without a valid signature.
    case invalidSignature(String)
    /// An internal call carried no app identity.
    case missingIdentity
    /// The key's rate limit is used up.
    case rateLimited(retryAfterSeconds: Int)

    package var status: HTTPResponse.Status {
        switch self {
        case .missingCredentials, .invalidKey, .operatorKeyRequired, .invalidSignature, .missingIdentity: .unauthorized
        case .secretKeyRequired: .forbidden
        case .rateLimited: .tooManyRequests
        }
    }

    package var code: String {
        switch self {
        case .missingCredentials: "missing_credentials"
        case .invalidKey: "invalid_api_key"
        case .secretKeyRequired: "secret_key_required"
        case .operatorKeyRequired: "operator_key_required"
        case .invalidSignature: "invalid_internal_signature"
        case .missingIdentity: "missing_identity"
        case .rateLimited: "rate_limited"
        }
    }

    package var detail: String {
        switch self {
        case .missingCredentials: "Send an API key as 'Authorization: Bearer <key>'."
        case .invalidKey: "The API key is not valid (unknown, malformed or revoked)."
        case .secretKeyRequired: "This endpoint needs a secret key (sk_...); public keys may not use it."
        case .operatorKeyRequired: "This endpoint needs the operator key."
        case .invalidSignature(let reason): "The internal call's signature was refused: \(reason)."
        case .missingIdentity: "The internal call does not say which app it acts for."
        case .rateLimited(let seconds): "Too many requests for this key; retry after \(seconds) s."
        }
    }

    package var headers: HTTPFields {
        if case .rateLimited(let seconds) = self {
            return [.retryAfter: String(seconds)]
        }
        return [:]
    }
}
