import Foundation
import ShopkeeperModels

/// A console session as stored (the token only as its hash).
struct StoredConsoleSession: Sendable, Hashable {
    var sessionID: String
    var appID: String
    var keyID: String?
    var expiresAt: Date
    var idleExpiresAt: Date
    /// The console user of a user's session, with its email and role as they are now.
    var user: SessionUser? = nil
}

/// The console user a session is for.
struct SessionUser: Sendable, Hashable {
    var userID: String
    var email: String
    var role: ConsoleRole
}

/// Console sessions, shared by every gateway replica through the database.
protocol ConsoleSessionRepository: Sendable {
    /// Stores a new session for `appID`, with the secret key `keyID`, the operator's `operatorFingerprint` or the
    /// console user `user`; it ends after `lifetime`, or after `idle` without use. Sessions long over are removed on
    /// the way.
    func create(
        tokenHash: [UInt8], appID: String, keyID: String?, operatorFingerprint: [UInt8]?, user: SessionUser?,
        lifetime: Duration, idle: Duration
    ) async throws -> StoredConsoleSession

    /// The live session with this token hash, its idle end pushed back by this use; `nil` when unknown, over, its
    /// key revoked, its user removed, or (an operator session) opened with another operator key than `operatorFingerprint`.
    func live(tokenHash: [UInt8], idle: Duration, operatorFingerprint: [UInt8]?) async throws -> StoredConsoleSession?

    /// Points an operator session at another app; throws ``GatewayError/appNotFound`` when there is no such app.
    func switchApp(tokenHash: [UInt8], appID: String) async throws -> StoredConsoleSession?

    /// Ends the session (signing out); nothing when there is none.
    func delete(tokenHash: [UInt8]) async throws
}
