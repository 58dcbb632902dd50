import Foundation
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperReports

/// The content service's settings: the common ones plus
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_PORT` | `8085` | |
/// | `SHOPKEEPER_CONTENT_DIR` | `.shopkeeper/content` | where packs are stored (a volume shared by every replica); uploads are staged under it too, so publishing is a rename |
/// | `SHOPKEEPER_CONTENT_URL_SECRET` | a development value | HMAC-SHA256 key of download URLs, 32+ characters (required in production); changing it invalidates every URL handed out |
/// | `SHOPKEEPER_CONTENT_URL_TTL_SECONDS` | `900` | how long a manifest's download URLs work (30 s to 7 days) |
/// | `SHOPKEEPER_CONTENT_PUBLIC_URL` | unset | absolute base of the URLs in manifests (`https://api.example.com`); relative `/v1/downloads/...` when unset |
/// | `SHOPKEEPER_CONTENT_MAX_FILE_BYTES` | `4294967296` | largest file of a pack |
/// | `SHOPKEEPER_CONTENT_MAX_VERSION_BYTES` | `17179869184` | largest version (all its files) |
/// | `SHOPKEEPER_CONTENT_MAX_FILES` | `10000` | most files in a version |
/// | `SHOPKEEPER_CONTENT_RESERVE_BYTES` | `268435456` | free space an upload must leave on the storage volume; an upload that would eat into it is refused with `507 storage_full` |
/// | `SHOPKEEPER_CONTENT_READ_CHUNK_BYTES` | `262144` | how much of a file is read from disk at a time while downloading |
/// | `SHOPKEEPER_ENTITLEMENTS_URL` | `http://127.0.0.1:8083` | the entitlements service (who owns what) |
/// | `SHOPKEEPER_ENTITLEMENTS_TIMEOUT_SECONDS` | `10` | one call to the entitlements service |
/// | `SHOPKEEPER_REPORT_REFRESH_SECONDS` | `300` | how often the report summaries of every app are brought up to date in the background, so a report request never builds them; `0`: only report requests do |
struct ContentSettings: Sendable {
    /// The development-only URL signing key; production must set its own.
    static let developmentURLSecret = "shopkeeper-development-content-url-secret-not-for-production"

    var service: ServiceSettings
    var storageDirectory: String
    var urlSecret: String
    var urlLifetime: Duration
    var publicBaseURL: String?
    var limits: ContentLimits
    var readChunkBytes: Int
    var entitlementsURL: URL
    var entitlementsTimeout: Duration
    /// ``ReportSummaryRefresher``'s interval; nil: off.
    var reportRefresh: Duration? = .seconds(300)

    static func read(from environment: EnvironmentReader = EnvironmentReader()) throws(ConfigurationError)
        -> ContentSettings
    {
        let service = try ServiceSettings.read(service: "content", defaultPort: 8085, from: environment)
        var publicBase = environment.raw("SHOPKEEPER_CONTENT_PUBLIC_URL")
        if let base = publicBase {
            _ = try EnvironmentReader.parseHTTPURL(base, variable: "SHOPKEEPER_CONTENT_PUBLIC_URL")
            publicBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        }
        let directory = environment.string("SHOPKEEPER_CONTENT_DIR", default: ".shopkeeper/content")
        guard !directory.isEmpty else {
            throw ConfigurationError(variable: "SHOPKEEPER_CONTENT_DIR", reason: "must name a directory")
        }
        return ContentSettings(
            service: service,
            storageDirectory: directory,
            urlSecret: try environment.secret(
                "SHOPKEEPER_CONTENT_URL_SECRET", developmentDefault: developmentURLSecret,
                environment: service.environment),
            urlLifetime: .seconds(
                try environment.int("SHOPKEEPER_CONTENT_URL_TTL_SECONDS", default: 900, in: 30...604_800)),
            publicBaseURL: publicBase,
            limits: ContentLimits(
                maxFileBytes: Int64(
                    try environment.int("SHOPKEEPER_CONTENT_MAX_FILE_BYTES", default: 4 << 30, in: 1...(1 << 40))),
                maxVersionBytes: Int64(
                    try environment.int("SHOPKEEPER_CONTENT_MAX_VERSION_BYTES", default: 16 << 30, in: 1...(1 << 44))),
                maxFiles: try environment.int("SHOPKEEPER_CONTENT_MAX_FILES", default: 10_000, in: 1...1_000_000),
                reserveBytes: Int64(
                    try environment.int("SHOPKEEPER_CONTENT_RESERVE_BYTES", default: 256 << 20, in: 0...(1 << 44)))
            ),
            readChunkBytes: try environment.int(
                "SHOPKEEPER_CONTENT_READ_CHUNK_BYTES", default: 256 << 10, in: 4096...(16 << 20)),
            entitlementsURL: try environment.httpURL("SHOPKEEPER_ENTITLEMENTS_URL", default: "http://127.0.0.1:8083"),
            entitlementsTimeout: try environment.seconds(
                "SHOPKEEPER_ENTITLEMENTS_TIMEOUT_SECONDS", default: .seconds(10), in: 0.1...120),
            reportRefresh: try ReportRefreshSetting.read(from: environment)
        )
    }
}

/// Size limits of uploads.
struct ContentLimits: Sendable, Equatable {
    var maxFileBytes: Int64
    var maxVersionBytes: Int64
    var maxFiles: Int
    /// Free space an upload must leave on the storage volume.
    var reserveBytes: Int64
}
