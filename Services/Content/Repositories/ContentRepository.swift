import Foundation
import ShopkeeperHTTP
import ShopkeeperModels

/// Packs, versions, uploads and the download log of the content service (schema `content`), and what it reads of
/// the catalog (`catalog.products_v1`).
protocol ContentRepository: Sendable, RequestLogging {
    /// Whether the catalog has the product, and whether it marks it free; `nil` when it has no such product.
    func catalogProduct(appID: String, productID: String) async throws -> CatalogContentProduct?

    /// Starts an upload; throws ``ContentError/versionExists(product:version:)`` when the version is published.
    func createUpload(appID: String, productID: String, request: CreateContentUploadRequest) async throws
        -> ContentUpload
    /// The upload with its files; throws ``ContentError/uploadNotFound(_:)``.
    func upload(appID: String, productID: String, uploadID: String) async throws -> ContentUpload
    /// Lists a completely received file in an open upload (replacing an earlier file of that path).
    func addFile(_ file: ContentFile, appID: String, productID: String, uploadID: String) async throws
    /// Marks an open upload aborted.
    func abort(appID: String, productID: String, uploadID: String) async throws -> ContentUpload

    /// Claims the version for the upload: the first of two uploads of one version wins, the other gets
    /// ``ContentError/versionExists(product:version:)``. Checks the upload's limits. Safe to call again for the same
    /// upload after a failure.
    func beginPublish(appID: String, productID: String, uploadID: String, limits: ContentLimits) async throws
        -> ContentUpload
    /// Releases the claim after the files could not be put in place; the upload is open again.
    func abandonPublish(_ upload: ContentUpload, appID: String) async
    /// Makes the claimed version visible with its files.
    func finishPublish(_ upload: ContentUpload, appID: String) async throws -> ContentVersion

    /// Published versions of the product, newest first, each with its files.
    func versions(appID: String, productID: String) async throws -> [ContentVersion]
    /// A published file; `nil` when the version is not published or has no such file.
    func file(_ pack: PackVersion, path: String) async throws -> ContentFile?
    /// The products of the app that have a published version.
    func productsWithContent(appID: String) async throws -> [String]

    /// Files of the version this device has downloaded to their end since its last reset.
    func downloadedPaths(_ pack: PackVersion, appUserID: String, deviceID: String) async throws -> Set<String>
    /// Adds a download that starts now to the log, unfinished (no bytes sent yet); its id.
    func startDownload(_ download: DownloadRecord) async throws -> Int64
    /// Finishes a download of the log with what was sent; `false` when it was already finished (nothing changes).
    /// Throws ``ContentError/downloadNotFound(_:)`` when the log has no such download.
    func finishDownload(_ downloadID: Int64, bytesSent: Int64, completed: Bool) async throws -> Bool
    /// Forgets the device's downloads of the customer's content; how many were forgotten.
    func reset(appID: String, appUserID: String, deviceID: String) async throws -> Int
}

/// A catalog product as content needs it.
struct CatalogContentProduct: Sendable, Equatable {
    var productID: String
    var free: Bool
}

/// One download, as logged when it starts.
struct DownloadRecord: Sendable {
    var pack: PackVersion
    var path: String
    var appUserID: String
    var deviceID: String
    /// The bytes asked for; `nil` for an empty file.
    var range: ClosedRange<Int64>?
    var fileSize: Int64
    var requestID: String?
    var startedAt: Date
}
