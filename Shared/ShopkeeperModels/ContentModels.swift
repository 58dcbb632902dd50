import Foundation

/// One file of a content pack version: where it lies in the pack, its size and SHA-256 (lowercase hex).
package struct ContentFile: Codable, Sendable, Equatable {
    /// Relative path inside the pack, `/`-separated (`levels/1/map.bin`).
    package var path: String
    package var size: Int64
    package var sha256: String

    package init(path: String, size: Int64, sha256: String) {
        self.path = path
        self.size = size
        self.sha256 = sha256
    }
}

/// An upload of one version of a product's content pack (`/v1/admin/content/{product_id}/uploads`): files are
/// streamed into it one by one, and it becomes visible only when published whole.
package struct ContentUpload: Codable, Sendable, Equatable {
    package var uploadID: String
    package var productID: String
    package var version: String
    package var minAppVersion: AppVersion?
    /// `open`, `published` or `aborted`.
    package var state: String
    package var files: [ContentFile]
    package var createdAt: Date

    package init(
        uploadID: String, productID: String, version: String, minAppVersion: AppVersion?, state: String,
        files: [ContentFile], createdAt: Date
    ) {
        self.uploadID = uploadID
        self.productID = productID
        self.version = version
        self.minAppVersion = minAppVersion
        self.state = state
        self.files = files
        self.createdAt = createdAt
    }

    package enum CodingKeys: String, CodingKey {
        case version, state, files
        case uploadID = "upload_id"
        case productID = "product_id"
        case minAppVersion = "min_app_version"
        case createdAt = "created_at"
    }
}

/// `POST /v1/admin/content/{product_id}/uploads`: starts an upload of a version.
package struct CreateContentUploadRequest: Codable, Sendable, Equatable {
    package var version: String
    package var minAppVersion: AppVersion?

    package init(version: String, minAppVersion: AppVersion? = nil) {
        self.version = version
        self.minAppVersion = minAppVersion
    }

    package enum CodingKeys: String, CodingKey {
        case version
        case minAppVersion = "min_app_version"
    }

    /// `min_app_version` may be left out (no minimum) but not sent as `null`, as the API document types it.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(String.self, forKey: .version)
        minAppVersion = try container.decodeUnlessAbsent(AppVersion.self, forKey: .minAppVersion)
    }
}

/// A published, immutable version of a product's content pack.
package struct ContentVersion: Codable, Sendable, Equatable {
    package var productID: String
    package var version: String
    package var minAppVersion: AppVersion?
    package var publishedAt: Date
    package var totalSize: Int64
    package var files: [ContentFile]

    package init(
        productID: String, version: String, minAppVersion: AppVersion?, publishedAt: Date, totalSize: Int64,
        files: [ContentFile]
    ) {
        self.productID = productID
        self.version = version
        self.minAppVersion = minAppVersion
        self.publishedAt = publishedAt
        self.totalSize = totalSize
        self.files = files
    }

    package enum CodingKeys: String, CodingKey {
        case version, files
        case productID = "product_id"
        case minAppVersion = "min_app_version"
        case publishedAt = "published_at"
        case totalSize = "total_size"
    }
}

/// `GET /v1/admin/content/{product_id}`: the product's published versions, newest first.
package struct ContentVersionList: Codable, Sendable, Equatable {
    package var productID: String
    package var versions: [ContentVersion]

    package init(productID: String, versions: [ContentVersion]) {
        self.productID = productID
        self.versions = versions
    }

    package enum CodingKeys: String, CodingKey {
        case versions
        case productID = "product_id"
    }
}

/// A manifest file: what a `ContentFile` is plus a signed download URL and whether this device fetched it whole.
package struct ManifestFile: Codable, Sendable, Equatable {
    package var path: String
    package var size: Int64
    package var sha256: String
    /// `/v1/downloads/...` (relative to the API's base URL unless the service is configured with a public URL).
    package var url: String
    /// Whether this device completed a download of this file since its last reset.
    package var downloaded: Bool

    package init(path: String, size: Int64, sha256: String, url: String, downloaded: Bool) {
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.url = url
        self.downloaded = downloaded
    }
}

/// `GET /v1/content/{product_id}`: the newest version of the pack this app version may use, with signed URLs.
package struct ContentManifest: Codable, Sendable, Equatable {
    package var productID: String
    package var version: String
    package var minAppVersion: AppVersion?
    package var publishedAt: Date
    package var totalSize: Int64
    /// When the URLs stop working; ask for the manifest again after that.
    package var expiresAt: Date
    /// How the customer is entitled: `purchase`, `subscription`, `promotional`, `free_claim`, `included`,
    /// `grandfathered` or an entitlement's other source.
    package var source: String
    package var files: [ManifestFile]

    package init(
        productID: String, version: String, minAppVersion: AppVersion?, publishedAt: Date, totalSize: Int64,
        expiresAt: Date, source: String, files: [ManifestFile]
    ) {
        self.productID = productID
        self.version = version
        self.minAppVersion = minAppVersion
        self.publishedAt = publishedAt
        self.totalSize = totalSize
        self.expiresAt = expiresAt
        self.source = source
        self.files = files
    }

    package enum CodingKeys: String, CodingKey {
        case version, source, files
        case productID = "product_id"
        case minAppVersion = "min_app_version"
        case publishedAt = "published_at"
        case totalSize = "total_size"
        case expiresAt = "expires_at"
    }
}

/// `POST /v1/customers/{app_user_id}/content/reset`: the device whose downloads are forgotten.
package struct ContentResetRequest: Codable, Sendable, Equatable {
    package var deviceID: String
    package var appVersion: AppVersion?

    package init(deviceID: String, appVersion: AppVersion? = nil) {
        self.deviceID = deviceID
        self.appVersion = appVersion
    }

    package enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case appVersion = "app_version"
    }
}

/// The answer of a reset: how many download records were forgotten, and fresh manifests of everything owned.
package struct ContentResetResponse: Codable, Sendable, Equatable {
    package var appUserID: String
    package var deviceID: String
    package var forgotten: Int
    package var manifests: [ContentManifest]

    package init(appUserID: String, deviceID: String, forgotten: Int, manifests: [ContentManifest]) {
        self.appUserID = appUserID
        self.deviceID = deviceID
        self.forgotten = forgotten
        self.manifests = manifests
    }

    package enum CodingKeys: String, CodingKey {
        case forgotten, manifests
        case appUserID = "app_user_id"
        case deviceID = "device_id"
    }
}

/// `POST /v1/content/{product_id}/claim`: who claims a free product, on which device.
package struct ContentClaimRequest: Codable, Sendable, Equatable {
    package var appUserID: String
    package var deviceID: String
    package var appVersion: AppVersion?

    package init(appUserID: String, deviceID: String, appVersion: AppVersion? = nil) {
        self.appUserID = appUserID
        self.deviceID = deviceID
        self.appVersion = appVersion
    }

    package enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case deviceID = "device_id"
        case appVersion = "app_version"
    }
}
