import Foundation

/// How a public-key caller of an app proves which customer it acts for.
package enum CustomerBoundaryMode: String, Codable, Hashable, Sendable, CaseIterable {
    /// Naming the customer (`app_user_id`) is enough: anyone holding the app's public key can act for any customer.
    case open
    /// Every public-key request that names a customer carries a customer token for it (`Shopkeeper-Customer-Token`),
    /// minted by the developer's own server with one of the app's customer token secrets.
    case signed
}

/// An app's customer boundary: its mode, its live customer token secrets (never their text) and its live
/// registered public keys.
package struct CustomerBoundary: Codable, Hashable, Sendable {
    package var mode: CustomerBoundaryMode
    package var secrets: [CustomerTokenSecretInfo]
    package var publicKeys: [CustomerTokenPublicKeyInfo]

    package init(
        mode: CustomerBoundaryMode, secrets: [CustomerTokenSecretInfo], publicKeys: [CustomerTokenPublicKeyInfo] = []
    ) {
        self.mode = mode
        self.secrets = secrets
        self.publicKeys = publicKeys
    }

    package enum CodingKeys: String, CodingKey {
        case mode, secrets
        case publicKeys = "public_keys"
    }
}

/// `POST .../customer-boundary/public-keys`: a P-256 public key in PEM, whose private key signs ES256 tokens.
package struct RegisterCustomerTokenPublicKeyRequest: Codable, Sendable {
    package var publicKey: String

    package init(publicKey: String) { self.publicKey = publicKey }

    package enum CodingKeys: String, CodingKey {
        case publicKey = "public_key"
    }
}

/// A registered public key of customer tokens (ES256).
package struct CustomerTokenPublicKeyInfo: Codable, Hashable, Sendable {
    package var keyID: String
    package var publicKey: String
    package var createdAt: Date
    package var revokedAt: Date?

    package init(keyID: String, publicKey: String, createdAt: Date, revokedAt: Date?) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    package enum CodingKeys: String, CodingKey {
        case keyID = "key_id"
        case publicKey = "public_key"
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}

/// `PUT .../customer-boundary`: `{"mode": "signed"}`.
package struct SetCustomerBoundaryRequest: Codable, Sendable {
    package var mode: CustomerBoundaryMode

    package init(mode: CustomerBoundaryMode) { self.mode = mode }
}

/// A customer token secret as listed: its id (the tokens' `kid`) and dates, never the secret itself.
package struct CustomerTokenSecretInfo: Codable, Hashable, Sendable {
    package var secretID: String
    package var createdAt: Date
    package var revokedAt: Date?

    package init(secretID: String, createdAt: Date, revokedAt: Date?) {
        self.secretID = secretID
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    package enum CodingKeys: String, CodingKey {
        case secretID = "secret_id"
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}

/// A new customer token secret: the only answer that ever holds its text.
package struct CreatedCustomerTokenSecret: Codable, Hashable, Sendable {
    package var secretID: String
    package var secret: String
    package var createdAt: Date

    package init(secretID: String, secret: String, createdAt: Date) {
        self.secretID = secretID
        self.secret = secret
        self.createdAt = createdAt
    }

    package enum CodingKeys: String, CodingKey {
        case secretID = "secret_id"
        case secret
        case createdAt = "created_at"
    }
}

/// An id the public key linked to a customer, suspended when the app switched to the `signed` customer boundary: it
/// names no customer until the secret key confirms it (`GET /v1/admin/aliases/suspended`).
package struct SuspendedAlias: Codable, Hashable, Sendable {
    /// The suspended id.
    package var appUserID: String
    /// `public` (linked with the public key) or `unknown` (linked before links recorded their key).
    package var linkedBy: String
    package var suspendedAt: Date
    /// An id of the customer it addressed, when that customer still has one.
    package var customerAppUserID: String?

    package init(appUserID: String, linkedBy: String, suspendedAt: Date, customerAppUserID: String?) {
        self.appUserID = appUserID
        self.linkedBy = linkedBy
        self.suspendedAt = suspendedAt
        self.customerAppUserID = customerAppUserID
    }

    package enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case linkedBy = "linked_by"
        case suspendedAt = "suspended_at"
        case customerAppUserID = "customer_app_user_id"
    }
}

/// The answer of `GET /v1/admin/aliases/suspended`.
package struct SuspendedAliasList: Codable, Hashable, Sendable {
    package var aliases: [SuspendedAlias]

    package init(aliases: [SuspendedAlias]) { self.aliases = aliases }
}

/// The answer of the internal call that suspends an app's public-key links.
package struct AliasSuspension: Codable, Hashable, Sendable {
    /// How many ids this call suspended.
    package var suspended: Int

    package init(suspended: Int) { self.suspended = suspended }
}
