import Crypto
import Foundation
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// The rules of an app's console users: invitations, passwords, the lockout and the second factor. Storage is
/// ``ConsoleUserRepository``'s; the routes are ``ConsoleSessionController``'s (signing in, accepting an invitation,
/// enrolling a code) and ``ConsoleUserController``'s (the admin's `/v1/admin/users`).
struct ConsoleTeam: Sendable {
    let repository: any ConsoleUserRepository
    let settings: ConsoleSettings
    let hasher: PasswordHasher
    /// Seals TOTP secrets (purpose "console TOTP secrets", the app and user id as associated data).
    let totpBox: SecretBox

    init(repository: any ConsoleUserRepository, settings: ConsoleSettings, masterKey: String) {
        self.repository = repository
        self.settings = settings
        self.hasher = PasswordHasher(parameters: settings.passwordCost)
        self.totpBox = SecretBox(masterKey: masterKey, purpose: "console TOTP secrets")
    }

    /// The issuer an authenticator app shows beside the code.
    static let issuer = "Shopkeeper"

    /// An email as it is stored and compared: trimmed and lowercase; throws when it cannot be an address.
    static func normalize(email: String, pointer: String = "/email") throws(RequestError) -> String {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7f })
        else { throw .invalid(pointer, "is not an email address") }
        return email
    }

    /// Invites `email` with `role`: the user, and the invitation token (shown this once; only its hash is kept).
    func invite(appID: String, email: String, role: ConsoleRole) async throws -> ConsoleUserInvitation {
        let email = try Self.normalize(email: email)
        let token = ConsoleSessionToken.generate()
        let (user, expiresAt) = try await repository.invite(
            appID: appID, email: email, role: role, tokenHash: ConsoleSessionToken.hash(token),
            lifetime: settings.invitationLifetime)
        return ConsoleUserInvitation(user: user, invitationToken: token, expiresAt: expiresAt)
    }

    /// Sets the password of the invitation's user (once); the user's app and email.
    func accept(token: String, password: String) async throws -> (appID: String, email: String) {
        try Self.checkPassword(password)
        let hash = try await hasher.hash(password)
        guard
            let accepted = try await repository.acceptInvitation(
                tokenHash: ConsoleSessionToken.hash(token), passwordHash: hash)
        else { throw ConsoleTeamError.invitationInvalid }
        return accepted
    }

    static func checkPassword(_ password: String) throws(RequestError) {
        guard PasswordHasher.passwordLength.contains(password.utf8.count) else {
            throw .invalid(
                "/password",
                "must be \(PasswordHasher.passwordLength.lowerBound) to \(PasswordHasher.passwordLength.upperBound) bytes"
            )
        }
    }

    /// The user `email` and `password` (and `totpCode`, when a second factor is enrolled) sign in as. A wrong
    /// password or code counts towards the lockout; an unknown email costs as much time as a known one.
    func signIn(appID: String, email: String, password: String, totpCode: String?) async throws -> SessionUser {
        guard let email = try? Self.normalize(email: email),
            let stored = try await repository.credentials(appID: appID, email: email)
        else {
            try await hasher.verifyNothing(password)
            throw ConsoleTeamError.invalidCredentials
        }
        if let seconds = stored.lockedForSeconds { throw ConsoleTeamError.locked(retryAfterSeconds: seconds) }
        guard let hash = stored.passwordHash, try await hasher.verify(password, against: hash) else {
            if stored.passwordHash == nil { try await hasher.verifyNothing(password) }
            try await failed(stored.userID)
            throw ConsoleTeamError.invalidCredentials
        }
        var step: Int64?
        if let totp = stored.totp {
            guard let totpCode else { throw ConsoleTeamError.totpRequired }
            guard let secret = openTOTP(totp, appID: appID, userID: stored.userID),
                let accepted = TOTP.acceptedStep(code: totpCode, secret: secret, at: Date(), after: stored.totpLastStep)
            else {
                try await failed(stored.userID)
                throw ConsoleTeamError.totpInvalid
            }
            step = accepted
        }
        let rehash = hasher.needsRehash(hash) ? try await hasher.hash(password) : nil
        // The step is taken once: a second sign-in racing with the same code finds it used.
        guard try await repository.recordSuccess(userID: stored.userID, totpStep: step, passwordHash: rehash) else {
            throw ConsoleTeamError.totpInvalid
        }
        return SessionUser(userID: stored.userID, email: email, role: stored.role)
    }

    private func failed(_ userID: String) async throws {
        try await repository.recordFailure(
            userID: userID, limit: settings.lockoutAttempts, lockout: settings.lockoutDuration)
    }

    /// Starts enrolling a second factor for the session's user: a new secret, kept until a code of it is confirmed
    /// (refused while enrolling is locked, or when a factor is on already: an admin removes it first).
    func beginTOTP(appID: String, user: SessionUser) async throws -> ConsoleTOTPEnrollment {
        let secret = TOTP.generateSecret()
        let sealed = try totpBox.seal(Data(secret), context: Self.context(appID: appID, userID: user.userID))
        try await repository.beginTOTP(
            userID: user.userID, sealed: SealedTOTP(sealed: Array(sealed), keyID: totpBox.keyID))
        return ConsoleTOTPEnrollment(
            secret: TOTP.base32(secret), otpauthURI: TOTP.uri(secret: secret, account: user.email, issuer: Self.issuer))
    }

    /// Turns the secret being enrolled on with one of its codes. Each try counts towards the lockout's limit before
    /// its code is checked (as failed sign-ins do, with the same limit and duration): a stolen session cannot try
    /// codes without end.
    func confirmTOTP(appID: String, user: SessionUser, code: String) async throws {
        if let seconds = try await repository.reserveTOTPAttempt(
            userID: user.userID, limit: settings.lockoutAttempts, lockout: settings.lockoutDuration)
        {
            throw ConsoleTeamError.totpLocked(retryAfterSeconds: seconds)
        }
        guard let pending = try await repository.pendingTOTP(userID: user.userID),
            let secret = openTOTP(pending, appID: appID, userID: user.userID)
        else { throw ConsoleTeamError.totpNotPending }
        guard let step = TOTP.acceptedStep(code: code, secret: secret, at: Date(), after: nil) else {
            throw ConsoleTeamError.totpInvalid
        }
        guard try await repository.confirmTOTP(userID: user.userID, step: step) else {
            throw ConsoleTeamError.totpNotPending
        }
    }

    private func openTOTP(_ totp: SealedTOTP, appID: String, userID: String) -> [UInt8]? {
        (try? totpBox.open(Data(totp.sealed), context: Self.context(appID: appID, userID: userID), keyID: totp.keyID))
            .map { Array($0) }
    }

    private static func context(appID: String, userID: String) -> String { "\(appID)\n\(userID)" }
}
