import HTTPTypes

/// Refusals of the customer boundary: a public-key request of an app in `signed` mode that names a customer without
/// a valid customer token for it. Rendered the same by the gateway (which checks the token) and by the services
/// that compare the customer a request body names with the one the gateway forwarded.
package enum CustomerTokenError: ProblemError, Equatable {
    /// No `Shopkeeper-Customer-Token` header.
    case required
    /// Not a token, not signed with one of the app's secrets, without `exp`, or valid for too long.
    case invalid(String)
    /// The token's `exp` has passed.
    case expired
    /// The token is for another customer than the one the request names.
    case mismatch

    package var status: HTTPResponse.Status {
        switch self {
        case .required, .invalid, .expired: .unauthorized
        case .mismatch: .forbidden
        }
    }

    package var code: String {
        switch self {
        case .required: "customer_token_required"
        case .invalid: "customer_token_invalid"
        case .expired: "customer_token_expired"
        case .mismatch: "customer_token_mismatch"
        }
    }

    package var detail: String {
        switch self {
        case .required:
            "This app's customer boundary is 'signed': send a customer token for the customer this request names in "
                + "'Shopkeeper-Customer-Token'."
        case .invalid(let reason): "The customer token was refused: \(reason)."
        case .expired: "The customer token has expired; ask your server for a new one."
        case .mismatch: "The customer token is for another customer than the one this request names."
        }
    }
}

extension ServiceRequestContext {
    /// Checks that a request may act for `appUserID`, a customer it names in its body or query: when the gateway
    /// forwarded a customer proved by a token (public keys of `signed` apps), it must be this one.
    package func requireCustomer(_ appUserID: String) throws(CustomerTokenError) {
        guard let proved = caller?.customer else { return }
        guard proved == appUserID else { throw .mismatch }
    }
}
