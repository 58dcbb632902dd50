import Foundation

/// What to download for a product, and where (schema `ContentManifest`).
public struct ContentManifest: Codable, Hashable, Sendable {
    /// The product.
    public var productID: String
    /// The pack's version.
    public var version: String
    /// The oldest app version that may use it.
    public var minAppVersion: String?
    /// When the version was published.
    public var publishedAt: Date
    /// Bytes of all files.
    public var totalSize: Int64
    /// When the URLs stop working.
    public var expiresAt: Date
    /// What entitles the customer (`purchase`, `subscription`, `promotional`, `free_claim`, `trial`).
    public var source: ServerValue
    /// The files.
    public var files: [ManifestFile]

    enum CodingKeys: String, CodingKey {
        case version, source, files
        case productID = "product_id"
        case minAppVersion = "min_app_version"
        case publishedAt = "published_at"
        case totalSize = "total_size"
        case expiresAt = "expires_at"
    }
}

/// One file of a manifest (schema `ManifestFile`).
public struct ManifestFile: Codable, Hashable, Sendable {
    /// The file's path in the pack.
    public var path: String
    /// Its size in bytes.
    public var size: Int64
    /// Its SHA-256, lowercase hex.
    public var sha256: String
    /// The signed download URL (relative to the API's base URL unless absolute).
    public var url: String
    /// Whether this device completed a download of it since its last reset.
    public var downloaded: Bool
}

/// The answer to `POST /v1/customers/{app_user_id}/content/reset` (schema `ContentResetResponse`).
public struct ContentResetResponse: Codable, Hashable, Sendable {
    /// The customer.
    public var appUserID: String
    /// The device.
    public var deviceID: String
    /// How many download records were forgotten.
    public var forgotten: Int
    /// A fresh manifest of every product with content the customer is entitled to now.
    public var manifests: [ContentManifest]

    enum CodingKeys: String, CodingKey {
        case forgotten, manifests
        case appUserID = "app_user_id"
        case deviceID = "device_id"
    }
}
