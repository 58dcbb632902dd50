import HTTPTypes
import ShopkeeperHTTP

/// Refusals of the console team's rules: users, invitations, passwords and second factors.
enum ConsoleTeamError: ProblemError, Equatable {
    /// An active user of the app has this email already.
    case userExists(String)
    case userNotFound(String)
    /// The invitation token is unknown, used or expired.
    case invitationInvalid
    /// The email, password or app is wrong (one answer for all three: it tells nothing of which).
    case invalidCredentials
    /// The user has a second factor: the sign-in needs `totp_code`.
    case totpRequired
    /// The code is wrong, or was used already.
    case totpInvalid
    /// Too many failed sign-ins in a row.
    case locked(retryAfterSeconds: Int)
    /// Too many codes tried in a row while enrolling a second factor.
    case totpLocked(retryAfterSeconds: Int)
    /// Enrolling a second factor is for a console user's own session.
    case userSessionRequired
    /// No secret is being enrolled (`POST /console/api/session/totp` first).
    case totpNotPending
    /// The user has a second factor already: an admin removes it before another is enrolled.
    case totpEnabled

    var status: HTTPResponse.Status {
        switch self {
        case .userExists: .conflict
        case .userNotFound: .notFound
        case .invitationInvalid: .gone
        case .invalidCredentials, .totpRequired, .totpInvalid: .unauthorized
        case .locked, .totpLocked: .tooManyRequests
        case .userSessionRequired: .forbidden
        case .totpNotPending, .totpEnabled: .conflict
        }
    }

    var code: String {
        switch self {
        case .userExists: "user_exists"
        case .userNotFound: "user_not_found"
        case .invitationInvalid: "invitation_invalid"
        case .invalidCredentials: "invalid_credentials"
        case .totpRequired: "totp_required"
        case .totpInvalid: "totp_invalid"
        case .locked: "sign_in_locked"
        case .totpLocked: "totp_locked"
        case .userSessionRequired: "user_session_required"
        case .totpNotPending: "totp_not_pending"
        case .totpEnabled: "totp_enabled"
        }
    }

    var detail: String {
        switch self {
        case .userExists(let email): "A console user of this app already signs in as \(email)."
        case .userNotFound(let id): "The app has no console user \(id)."
        case .invitationInvalid: "The invitation is unknown, used already or expired: ask an admin for a new one."
        case .invalidCredentials: "The email or password is wrong."
        case .totpRequired: "This user signs in with a one-time code as well: send totp_code."
        case .totpInvalid: "The one-time code is wrong or was used already."
        case .locked(let seconds): "Too many failed sign-ins: this user is locked for \(seconds) s."
        case .totpLocked(let seconds):
            "Too many codes tried: enrolling a second factor is locked for \(seconds) s."
        case .userSessionRequired: "Only a console user's own session can enroll a second factor."
        case .totpNotPending: "No second factor is being enrolled: start with POST /console/api/session/totp."
        case .totpEnabled:
            "This user's second factor is on already; to enroll another, an admin removes it first (Team page)."
        }
    }

    var headers: HTTPFields {
        switch self {
        case .locked(let seconds), .totpLocked(let seconds): [.retryAfter: String(seconds)]
        default: [:]
        }
    }
}
