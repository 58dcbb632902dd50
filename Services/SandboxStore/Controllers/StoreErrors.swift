import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// An App Store Server API failure, rendered as Apple does: 401 without a body, or an `ErrorPayload`.
enum AppleAPIError: HTTPResponseError, Equatable {
    /// The bearer token is missing or refused, for whatever reason: Apple never says which.
    case unauthorized
    case api(AppStoreErrorCode)
    /// An injected fault with this HTTP status.
    case fault(Int)

    var status: HTTPResponse.Status {
        switch self {
        case .unauthorized: .unauthorized
        case .api(let code): HTTPResponse.Status(code: code.httpStatus)
        case .fault(let status): HTTPResponse.Status(code: status)
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        switch self {
        case .unauthorized:
            return Response(status: .unauthorized, headers: [.contentLength: "0"])
        case .api(let code):
            return try AppleAPIResponse.json(AppStoreErrorPayload(code), status: status)
        case .fault(let status):
            let code: AppStoreErrorCode =
                switch status {
                case 429: .rateLimitExceeded
                case 500: .generalInternal
                default: .generalInternalRetryable
                }
            return try AppleAPIResponse.json(
                AppStoreErrorPayload(errorCode: code.rawValue, errorMessage: code.message), status: self.status)
        }
    }
}

/// A Play Developer API failure, rendered as Google does (`{"error":{"code":...,"message":...,"status":...}}`).
enum GoogleAPIError: HTTPResponseError, Equatable {
    /// No access token, or an unknown or expired one.
    case unauthenticated
    /// The token's service account has no access to this package.
    case permissionDenied
    /// The purchase token (or product id) does not name a purchase.
    case invalidValue
    /// The purchase cannot do this in its current state.
    case invalidPurchaseState
    /// The subscription or base plan named by the path does not exist.
    case notFound
    /// An injected fault with this HTTP status.
    case fault(Int)

    var status: HTTPResponse.Status {
        switch self {
        case .unauthenticated, .permissionDenied: .unauthorized
        case .invalidValue, .invalidPurchaseState: .badRequest
        case .notFound: .notFound
        case .fault(let status): HTTPResponse.Status(code: status)
        }
    }

    var body: GoogleErrorResponse {
        switch self {
        case .unauthenticated:
            GoogleErrorResponse(
                code: 401,
                message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie "
                    + "or other valid authentication credential. See "
                    + "https://developers.google.com/identity/sign-in/web/devconsole-project.",
                status: "UNAUTHENTICATED", reason: "authError")
        case .permissionDenied:
            GoogleErrorResponse(
                code: 401, message: "The current user has insufficient permissions to perform the requested operation.",
                status: "PERMISSION_DENIED", reason: "permissionDenied")
        case .invalidValue:
            GoogleErrorResponse(code: 400, message: "Invalid Value", status: "INVALID_ARGUMENT", reason: "invalid")
        case .notFound:
            GoogleErrorResponse(
                code: 404, message: "Requested entity was not found.", status: "NOT_FOUND", reason: "notFound")
        case .invalidPurchaseState:
            GoogleErrorResponse(
                code: 400, message: "The purchase is not in a valid state to perform the desired operation.",
                status: "FAILED_PRECONDITION", reason: "invalidPurchaseState")
        case .fault(let status):
            status == 429
                ? GoogleErrorResponse(
                    code: 429, message: "Rate Limit Exceeded", status: "RESOURCE_EXHAUSTED", reason: "rateLimitExceeded"
                )
                : GoogleErrorResponse(
                    code: status, message: "Backend Error", status: status == 503 ? "UNAVAILABLE" : "INTERNAL",
                    reason: "backendError")
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [:]
        if self == .unauthenticated {
            headers[.wwwAuthenticate] = #"Bearer realm="https://accounts.google.com/", error="invalid_token""#
        }
        return try JSONBody.response(body, status: status, headers: headers)
    }
}

/// A refused token request at `/google/token`: `{"error":...,"error_description":...}`.
struct GoogleOAuthError: HTTPResponseError, Equatable {
    var status: HTTPResponse.Status
    var error: String
    var errorDescription: String

    static func invalidGrant(_ description: String) -> GoogleOAuthError {
        GoogleOAuthError(status: .badRequest, error: "invalid_grant", errorDescription: description)
    }

    static func fault(_ status: Int) -> GoogleOAuthError {
        GoogleOAuthError(
            status: HTTPResponse.Status(code: status), error: "internal_failure",
            errorDescription: "The server encountered an internal error; please retry the request.")
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONBody.response(
            GoogleOAuthErrorResponse(error: error, errorDescription: errorDescription), status: status)
    }
}

/// A refused control request under `/sandbox`, as problem+json.
struct SandboxControlError: ProblemError, Equatable {
    var status: HTTPResponse.Status
    var code: String
    var detail: String
}

/// An App Store Server API JSON answer as Apple sends it: `Content-Type: application/json` exactly (Apple's App Store
/// Server Library reads an error's `errorCode` only under that exact type).
enum AppleAPIResponse {
    static let contentType = "application/json"

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var response = try JSONBody.response(value, status: status)
        response.headers[.contentType] = contentType
        return response
    }
}
