import Foundation

/// Who acts through a console session or an audited call: an app's secret key, the operator, or a console user.
package enum ConsoleActor: String, Codable, CaseIterable, Sendable {
    case secretKey = "secret_key"
    case `operator`
    case user
}

/// Body of `POST /console/api/session`: an app's secret key, or the operator key with the app to act for, or a
/// console user's email and password (with `app_id`, and `totp_code` once a second factor is enrolled).
package struct ConsoleSignInRequest: Codable, Sendable {
    package var key: String?
    /// Required with the operator key and with an email; with a secret key it may only name the key's own app.
    package var appID: String?
    package var email: String?
    package var password: String?
    package var totpCode: String?

    package init(key: String, appID: String? = nil) {
        self.key = key
        self.appID = appID
    }

    package init(email: String, password: String, appID: String, totpCode: String? = nil) {
        self.email = email
        self.password = password
        self.appID = appID
        self.totpCode = totpCode
    }

    package enum CodingKeys: String, CodingKey {
        case key, email, password
        case appID = "app_id"
        case totpCode = "totp_code"
    }
}

/// Body of `PUT /console/api/session`: the app an operator session acts for from now on.
package struct ConsoleSwitchAppRequest: Codable, Sendable {
    package var appID: String

    package init(appID: String) {
        self.appID = appID
    }

    package enum CodingKeys: String, CodingKey {
        case appID = "app_id"
    }
}

/// A console session as its browser may see it (never its token: that lives in the `HttpOnly` cookie).
package struct ConsoleSessionInfo: Codable, Hashable, Sendable {
    package var sessionID: String
    package var appID: String
    package var appName: String
    package var actor: ConsoleActor
    /// The secret key the session acts with; `nil` for the operator and for a console user.
    package var keyID: String?
    /// The console user signed in; `nil` for a key's session.
    package var userEmail: String?
    /// What the session may do (a key's or the operator's session: `admin`).
    package var role: ConsoleRole
    /// To send as `X-CSRF-Token` with every change.
    package var csrfToken: String
    /// When the session ends whatever happens.
    package var expiresAt: Date
    /// When it ends unless used before.
    package var idleExpiresAt: Date

    package init(
        sessionID: String, appID: String, appName: String, actor: ConsoleActor, keyID: String?, csrfToken: String,
        expiresAt: Date, idleExpiresAt: Date, userEmail: String? = nil, role: ConsoleRole = .admin
    ) {
        self.sessionID = sessionID
        self.appID = appID
        self.appName = appName
        self.actor = actor
        self.keyID = keyID
        self.userEmail = userEmail
        self.role = role
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
        self.idleExpiresAt = idleExpiresAt
    }

    package enum CodingKeys: String, CodingKey {
        case actor, role
        case sessionID = "session_id"
        case appID = "app_id"
        case appName = "app_name"
        case keyID = "key_id"
        case userEmail = "user_email"
        case csrfToken = "csrf_token"
        case expiresAt = "expires_at"
        case idleExpiresAt = "idle_expires_at"
    }
}

/// One recorded admin action (`GET /v1/admin/audit-log`).
package struct AuditLogEntry: Codable, Hashable, Sendable {
    package var entryID: Int64
    package var at: Date
    package var actor: ConsoleActor
    /// The secret key that acted (directly or through a console session); `nil` for the operator.
    package var keyID: String?
    /// The console session it came through; `nil` for a call made with a key.
    package var sessionID: String?
    /// The console user who acted (actor `user`).
    package var userEmail: String?
    package var method: String
    package var path: String
    /// What was done, such as `promotional_grant.create`.
    package var action: String
    /// The ids the path names (`app_user_id`, `grant_id`, ...).
    package var targets: [String: String]
    package var summary: String
    /// The HTTP status the call was answered with.
    package var status: Int
    package var requestID: String?

    package init(
        entryID: Int64, at: Date, actor: ConsoleActor, keyID: String?, sessionID: String?, method: String,
        path: String, action: String, targets: [String: String], summary: String, status: Int, requestID: String?,
        userEmail: String? = nil
    ) {
        self.entryID = entryID
        self.userEmail = userEmail
        self.at = at
        self.actor = actor
        self.keyID = keyID
        self.sessionID = sessionID
        self.method = method
        self.path = path
        self.action = action
        self.targets = targets
        self.summary = summary
        self.status = status
        self.requestID = requestID
    }

    package enum CodingKeys: String, CodingKey {
        case at, actor, method, path, action, targets, summary, status
        case entryID = "entry_id"
        case keyID = "key_id"
        case sessionID = "session_id"
        case userEmail = "user_email"
        case requestID = "request_id"
    }
}

/// A page of the audit log, newest first; `next_before` asks for the page after it.
package struct AuditLogPage: Codable, Hashable, Sendable {
    package var entries: [AuditLogEntry]
    package var nextBefore: Int64?

    package init(entries: [AuditLogEntry], nextBefore: Int64?) {
        self.entries = entries
        self.nextBefore = nextBefore
    }

    package enum CodingKeys: String, CodingKey {
        case entries
        case nextBefore = "next_before"
    }
}
