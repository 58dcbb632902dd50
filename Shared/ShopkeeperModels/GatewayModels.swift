import Foundation

/// The two kinds of API key.
package enum APIKeyKind: String, Codable, CaseIterable, Sendable {
    /// `pk_…`: what an app on a phone may do.
    case `public`
    /// `sk_…`: also manages its own app; for the developer's servers and tools.
    case secret

    /// The prefix every key of this kind starts with.
    package var prefix: String {
        switch self {
        case .public: "pk_"
        case .secret: "sk_"
        }
    }
}

/// An app: the unit every key, product and customer belongs to.
package struct AppInfo: Codable, Hashable, Sendable {
    package var appID: String
    package var name: String
    package var createdAt: Date

    package init(appID: String, name: String, createdAt: Date) {
        self.appID = appID
        self.name = name
        self.createdAt = createdAt
    }

    package enum CodingKeys: String, CodingKey {
        case appID = "app_id"
        case name
        case createdAt = "created_at"
    }
}

/// Body of `POST /operator/v1/apps`.
package struct CreateAppRequest: Codable, Sendable {
    package var name: String

    package init(name: String) {
        self.name = name
    }
}

/// Body of the key-creation endpoints.
package struct CreateKeyRequest: Codable, Sendable {
    package var kind: APIKeyKind
    /// A note for humans, such as "iOS app" or "build server".
    package var label: String?

    package init(kind: APIKeyKind, label: String? = nil) {
        self.kind = kind
        self.label = label
    }
}

/// An API key as listed: never the key itself, which exists only in the creation response.
package struct APIKeyInfo: Codable, Hashable, Sendable {
    package var keyID: String
    package var appID: String
    package var kind: APIKeyKind
    /// The first characters of the key, to recognize it.
    package var prefix: String
    package var label: String?
    package var createdAt: Date
    package var revokedAt: Date?

    package init(
        keyID: String,
        appID: String,
        kind: APIKeyKind,
        prefix: String,
        label: String?,
        createdAt: Date,
        revokedAt: Date?
    ) {
        self.keyID = keyID
        self.appID = appID
        self.kind = kind
        self.prefix = prefix
        self.label = label
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    package enum CodingKeys: String, CodingKey {
        case keyID = "key_id"
        case appID = "app_id"
        case kind, prefix, label
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}

/// The response to creating a key: the only time the key is shown.
package struct CreatedAPIKey: Codable, Sendable {
    package var info: APIKeyInfo
    package var key: String

    package init(info: APIKeyInfo, key: String) {
        self.info = info
        self.key = key
    }

    package enum CodingKeys: String, CodingKey {
        case info, key
    }

    package init(from decoder: any Decoder) throws {
        info = try APIKeyInfo(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
    }

    package func encode(to encoder: any Encoder) throws {
        try info.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
    }
}

/// `{"apps": [...]}`.
package struct AppList: Codable, Sendable {
    package var apps: [AppInfo]
    package init(apps: [AppInfo]) { self.apps = apps }
}

/// `{"keys": [...]}`.
package struct APIKeyList: Codable, Sendable {
    package var keys: [APIKeyInfo]
    package init(keys: [APIKeyInfo]) { self.keys = keys }
}
