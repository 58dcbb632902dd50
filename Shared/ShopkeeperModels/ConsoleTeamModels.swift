import Foundation

/// A console user's role, each holding every right of the ones before it (the table: `ConsoleRoles` in the gateway).
package enum ConsoleRole: String, Codable, CaseIterable, Sendable, Comparable {
    /// Charts and reports.
    case viewer
    /// Customers, grants, replays.
    case support
    /// Catalog, offerings, webhooks, content.
    case developer
    /// Keys, users, store credentials.
    case admin

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    package static func < (lhs: ConsoleRole, rhs: ConsoleRole) -> Bool { lhs.rank < rhs.rank }
}

/// One console user of an app (`/v1/admin/users`).
package struct ConsoleUser: Codable, Hashable, Sendable {
    package var userID: String
    /// Normalized: trimmed, lowercase.
    package var email: String
    package var role: ConsoleRole
    /// `invited` until the invitation is accepted (a password set), then `active`.
    package var status: String
    /// Whether a TOTP second factor is enrolled.
    package var totpEnabled: Bool
    package var createdAt: Date

    package init(
        userID: String, email: String, role: ConsoleRole, status: String, totpEnabled: Bool, createdAt: Date
    ) {
        self.userID = userID
        self.email = email
        self.role = role
        self.status = status
        self.totpEnabled = totpEnabled
        self.createdAt = createdAt
    }

    package enum CodingKeys: String, CodingKey {
        case email, role, status
        case userID = "user_id"
        case totpEnabled = "totp_enabled"
        case createdAt = "created_at"
    }
}

/// The app's console users (`GET /v1/admin/users`).
package struct ConsoleUserList: Codable, Hashable, Sendable {
    package var users: [ConsoleUser]

    package init(users: [ConsoleUser]) { self.users = users }
}

/// Body of `POST /v1/admin/users`: the email to invite, and the role it gets.
package struct ConsoleUserInviteRequest: Codable, Sendable {
    package var email: String
    package var role: ConsoleRole

    package init(email: String, role: ConsoleRole) {
        self.email = email
        self.role = role
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case email, role
    }

    /// A request body: a field it does not know is refused, as the document's `additionalProperties: false` says.
    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        email = try container.decode(String.self, forKey: .email)
        role = try container.decode(ConsoleRole.self, forKey: .role)
    }
}

/// Answer of `POST /v1/admin/users`: the user, and the one-time invitation token (shown once) the invitee sets a
/// password with (`POST /console/api/invitation`).
package struct ConsoleUserInvitation: Codable, Hashable, Sendable {
    package var user: ConsoleUser
    package var invitationToken: String
    package var expiresAt: Date

    package init(user: ConsoleUser, invitationToken: String, expiresAt: Date) {
        self.user = user
        self.invitationToken = invitationToken
        self.expiresAt = expiresAt
    }

    package enum CodingKeys: String, CodingKey {
        case user
        case invitationToken = "invitation_token"
        case expiresAt = "expires_at"
    }
}

/// Body of `PUT /v1/admin/users/{user_id}`: the user's new role.
package struct ConsoleUserRoleChange: Codable, Sendable {
    package var role: ConsoleRole

    package init(role: ConsoleRole) { self.role = role }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case role
    }

    /// A request body: a field it does not know is refused, as the document's `additionalProperties: false` says.
    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        role = try decoder.container(keyedBy: CodingKeys.self).decode(ConsoleRole.self, forKey: .role)
    }
}

/// Body of `POST /console/api/invitation`: the invitation token and the password it sets.
package struct ConsoleInvitationAcceptRequest: Codable, Sendable {
    package var token: String
    package var password: String

    package init(token: String, password: String) {
        self.token = token
        self.password = password
    }
}

/// Answer of `POST /console/api/session/totp`: the new secret to enroll (base32), as an `otpauth://` URI for an
/// authenticator app; it takes effect once a code from it is confirmed (`PUT /console/api/session/totp`).
package struct ConsoleTOTPEnrollment: Codable, Hashable, Sendable {
    package var secret: String
    package var otpauthURI: String

    package init(secret: String, otpauthURI: String) {
        self.secret = secret
        self.otpauthURI = otpauthURI
    }

    package enum CodingKeys: String, CodingKey {
        case secret
        case otpauthURI = "otpauth_uri"
    }
}

/// Body of `PUT /console/api/session/totp`: a code of the secret being enrolled.
package struct ConsoleTOTPConfirmRequest: Codable, Sendable {
    package var code: String

    package init(code: String) { self.code = code }
}
