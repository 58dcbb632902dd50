import Foundation
import ShopkeeperModels

/// What signing in needs of a console user.
struct StoredUserCredentials: Sendable {
    var userID: String
    var role: ConsoleRole
    /// `nil` until the invitation is accepted.
    var passwordHash: String?
    /// The sealed TOTP secret and the key it was sealed under, when a second factor is enrolled.
    var totp: SealedTOTP?
    var totpLastStep: Int64?
    /// Seconds until the lockout ends; `nil` when not locked.
    var lockedForSeconds: Int?
}

/// A TOTP secret as stored: sealed, with the fingerprint of the key that sealed it.
struct SealedTOTP: Sendable {
    var sealed: [UInt8]
    var keyID: String
}

/// Console users and their invitations (`gateway.console_users`, `gateway.console_invitations`). Changing a user's
/// role, resetting its TOTP or removing it ends its sessions in the same statement.
protocol ConsoleUserRepository: Sendable {
    /// Invites `email` (normalized) with `role`: a new user, or one invited before and not yet active (its role set,
    /// a new invitation); throws ``ConsoleTeamError/userExists`` when an active user has the email.
    func invite(appID: String, email: String, role: ConsoleRole, tokenHash: [UInt8], lifetime: Duration)
        async throws -> (ConsoleUser, expiresAt: Date)
    func list(appID: String) async throws -> [ConsoleUser]
    /// `nil` when the app has no such user.
    func setRole(appID: String, userID: String, role: ConsoleRole) async throws -> ConsoleUser?
    /// Whether there was such a user.
    func remove(appID: String, userID: String) async throws -> Bool
    /// Removes the user's second factor; `nil` when the app has no such user.
    func resetTOTP(appID: String, userID: String) async throws -> ConsoleUser?
    /// Uses a live invitation once: sets the password; the user's app and email, or `nil` when the token is unknown,
    /// used or expired.
    func acceptInvitation(tokenHash: [UInt8], passwordHash: String) async throws -> (appID: String, email: String)?
    func credentials(appID: String, email: String) async throws -> StoredUserCredentials?
    /// Counts a failed sign-in; the `limit`-th in a row locks the user for `lockout` (and starts the count again).
    func recordFailure(userID: String, limit: Int, lockout: Duration) async throws
    /// A successful sign-in: the count of failures cleared, the TOTP step used remembered (`false`, and nothing
    /// changed, when that step or a later one was used already), the password's new hash stored when given.
    func recordSuccess(userID: String, totpStep: Int64?, passwordHash: String?) async throws -> Bool
    /// Keeps a secret being enrolled, until ``confirmTOTP(userID:step:)``; keeps nothing and throws
    /// ``ConsoleTeamError/totpLocked(retryAfterSeconds:)`` while enrolling is locked
    /// (``reserveTOTPAttempt(userID:limit:lockout:)``), ``ConsoleTeamError/totpEnabled`` when a factor is on already.
    func beginTOTP(userID: String, sealed: SealedTOTP) async throws
    func pendingTOTP(userID: String) async throws -> SealedTOTP?
    /// Counts one try of a code being enrolled, before it is checked, in one statement (concurrent tries, from any
    /// replica, queue on the user's row): `nil` when it may be checked, or the seconds the lock has to run. The
    /// `limit`-th try in a row locks enrolling for `lockout` (that try is still checked); a confirmed code clears the
    /// count.
    func reserveTOTPAttempt(userID: String, limit: Int, lockout: Duration) async throws -> Int?
    /// Makes the pending secret the user's second factor, `step` used; clears the count of tries.
    func confirmTOTP(userID: String, step: Int64) async throws -> Bool
}
