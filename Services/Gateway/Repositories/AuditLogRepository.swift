import ShopkeeperModels

/// One admin action to record.
struct AuditRecord: Sendable, Hashable {
    /// `nil` for operator actions that concern no app yet.
    var appID: String?
    var actor: ConsoleActor
    var keyID: String?
    var sessionID: String?
    /// The console user who acted (actor `user`), as its email was then.
    var userEmail: String? = nil
    var method: String
    var path: String
    var action: String
    var targets: [String: String]
    var summary: String
    var status: Int
    var requestID: String?
    /// An `Idempotency-Key` sent with the call: a retry under the same key is the same entry.
    var idempotencyKey: String?
}

/// The audit log of admin actions (`gateway.audit_log`).
protocol AuditLogRepository: Sendable {
    /// Records an action; a retry with the same idempotency key updates its entry's outcome instead.
    func record(_ record: AuditRecord) async throws
    /// The app's entries older than `before` (all when `nil`), newest first, at most `limit`.
    func entries(appID: String, limit: Int, before: Int64?) async throws -> AuditLogPage
}
