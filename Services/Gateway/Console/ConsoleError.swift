import HTTPTypes
import ShopkeeperHTTP

/// Refusals of the console's session rules.
enum ConsoleError: ProblemError, Equatable {
    /// No session cookie where the console's API needs one.
    case sessionRequired
    /// The cookie names no live session: unknown, signed out, past its lifetime or idle timeout, or its key revoked.
    case sessionExpired
    /// A change through a session without the session's `X-CSRF-Token`, or from another site.
    case csrfTokenInvalid(String)
    /// Switching apps is for operator sessions; an app key's session acts for its own app only.
    case operatorSessionRequired

    var status: HTTPResponse.Status {
        switch self {
        case .sessionRequired, .sessionExpired: .unauthorized
        case .csrfTokenInvalid, .operatorSessionRequired: .forbidden
        }
    }

    var code: String {
        switch self {
        case .sessionRequired: "session_required"
        case .sessionExpired: "session_expired"
        case .csrfTokenInvalid: "csrf_token_invalid"
        case .operatorSessionRequired: "operator_session_required"
        }
    }

    var detail: String {
        switch self {
        case .sessionRequired: "Sign in to the console first (POST /console/api/session)."
        case .sessionExpired: "The console session has ended (signed out, expired or its key revoked): sign in again."
        case .csrfTokenInvalid(let reason): "Changes through a console session need its X-CSRF-Token: \(reason)."
        case .operatorSessionRequired: "Only a session opened with the operator key can switch apps."
        }
    }
}
