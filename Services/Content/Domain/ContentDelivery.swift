import Foundation
import Logging
import ShopkeeperClients
import ShopkeeperModels

/// Decides what a customer gets: asks entitlements whether they own a product now (counting the device against
/// the purchase's limit), picks the version their app may use, and signs its download URLs.
struct ContentDelivery: Sendable {
    let repository: any ContentRepository
    let entitlements: EntitlementsClient
    let signature: DownloadSignature
    let urlLifetime: Duration
    let publicBaseURL: String?

    /// The access of each product for the customer on the device, counted against each purchase's device limit.
    func access(appID: String, appUserID: String, deviceID: String, products: [String], requestID: String?)
        async throws -> [ContentAccess]
    {
        guard !products.isEmpty else { return [] }
        let request = ContentAccessRequest(
            appUserID: appUserID, deviceID: deviceID, productIDs: products, bindDevice: true)
        do {
            return try await entitlements.contentAccess(request, appID: appID, requestID: requestID).products
        } catch is InternalCallError {
            throw ContentError.entitlementsUnavailable
        }
    }

    /// How the customer is entitled to `product` now; throws the refusal otherwise.
    func requireAccess(appID: String, appUserID: String, deviceID: String, product: String, requestID: String?)
        async throws -> String
    {
        let answers = try await access(
            appID: appID, appUserID: appUserID, deviceID: deviceID, products: [product], requestID: requestID)
        guard let answer = answers.first else { throw ContentError.notEntitled(product) }
        return try Self.source(of: answer)
    }

    /// The source of a granted access; the refusal of any other.
    static func source(of access: ContentAccess) throws(ContentError) -> String {
        switch access.state {
        case .granted: return access.source ?? "purchase"
        case .revoked: throw .revoked(access.productID)
        case .deviceLimitReached: throw .deviceLimitReached(product: access.productID, limit: access.deviceLimit ?? 0)
        case .none: throw .notEntitled(access.productID)
        }
    }

    /// The newest version an app of `appVersion` may use (one without a minimum when the version is unknown).
    static func choose(_ versions: [ContentVersion], appVersion: AppVersion?, product: String) throws(ContentError)
        -> ContentVersion
    {
        guard !versions.isEmpty else { throw .contentNotFound(product) }
        for version in versions {
            guard let minimum = version.minAppVersion else { return version }
            if let appVersion, minimum <= appVersion { return version }
        }
        let lowest = versions.compactMap(\.minAppVersion).min()
        throw .appUpdateRequired(product: product, minimum: lowest?.description ?? "?")
    }

    /// The manifest of `version` for the customer's device, with URLs signed until now + the URL lifetime.
    func manifest(
        _ version: ContentVersion, appID: String, appUserID: String, deviceID: String, source: String,
        now: Date = Date()
    ) async throws -> ContentManifest {
        let pack = PackVersion(appID: appID, productID: version.productID, version: version.version)
        let downloaded = try await repository.downloadedPaths(pack, appUserID: appUserID, deviceID: deviceID)
        let expires = Int64(now.timeIntervalSince1970) + urlLifetime.components.seconds
        var files: [ManifestFile] = []
        files.reserveCapacity(version.files.count)
        for file in version.files {
            // Stored paths were checked on upload.
            guard let path = try? ContentPath(file.path) else { continue }
            let grant = DownloadGrant(
                pack: pack, path: path, appUserID: appUserID, deviceID: deviceID, expires: expires)
            files.append(
                ManifestFile(
                    path: file.path, size: file.size, sha256: file.sha256,
                    url: (publicBaseURL ?? "") + signature.url(for: grant), downloaded: downloaded.contains(file.path)))
        }
        return ContentManifest(
            productID: version.productID, version: version.version, minAppVersion: version.minAppVersion,
            publishedAt: version.publishedAt, totalSize: version.totalSize,
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)), source: source, files: files)
    }
}
