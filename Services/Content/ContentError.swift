import HTTPTypes
import ShopkeeperHTTP

/// Content failures with their HTTP rendering. Every case but ``entitlementsUnavailable`` and ``storageFull`` is a
/// verdict on the request: retrying it unchanged gives the same answer.
enum ContentError: ProblemError, Equatable {
    /// The app's catalog has no product with this id.
    case productNotFound(String)
    /// The product has no published content pack.
    case contentNotFound(String)
    /// Every published version needs a newer app.
    case appUpdateRequired(product: String, minimum: String)
    /// Nothing grants the customer this product now.
    case notEntitled(String)
    /// The purchase was refunded or revoked.
    case revoked(String)
    /// The purchase has been used on as many devices as the app allows; this one is new.
    case deviceLimitReached(product: String, limit: Int)
    /// A free claim of a product the catalog does not mark free.
    case productNotFree(String)
    case uploadNotFound(String)
    /// The upload was published or aborted.
    case uploadNotOpen(id: String, state: String)
    /// The version is already published (versions are immutable).
    case versionExists(product: String, version: String)
    case invalidVersion(String)
    case invalidPath(path: String, reason: String)
    /// A file and a directory of the same name in one upload.
    case pathConflict(String)
    case fileTooLarge(limit: Int64)
    case versionTooLarge(limit: Int64)
    case tooManyFiles(limit: Int)
    case emptyUpload
    /// The bytes received do not have the SHA-256 the uploader declared.
    case checksumMismatch(path: String, expected: String, actual: String)
    /// The storage volume has no room for the upload (nothing was published).
    case storageFull
    /// The download URL's signature does not match (tampered, or signed with another key).
    case invalidSignature
    /// The download URL's time is up; ask for the manifest again.
    case urlExpired
    /// The download URL names a file that is not part of the version.
    case fileNotFound(String)
    /// The requested range lies outside the file.
    case rangeNotSatisfiable(size: Int64)
    /// The entitlements service did not answer; retry later.
    case entitlementsUnavailable
    /// A report of a download the log does not have.
    case downloadNotFound(Int64)
    /// A report of a download that cannot be true (more bytes than the download had).
    case invalidDownloadReport(String)

    var status: HTTPResponse.Status {
        switch self {
        case .productNotFound, .contentNotFound, .uploadNotFound, .fileNotFound, .downloadNotFound: .notFound
        case .appUpdateRequired, .uploadNotOpen, .versionExists, .pathConflict: .conflict
        case .notEntitled, .revoked, .deviceLimitReached, .productNotFree, .invalidSignature, .urlExpired: .forbidden
        case .invalidVersion, .invalidPath, .emptyUpload, .checksumMismatch, .invalidDownloadReport:
            .unprocessableContent
        case .fileTooLarge, .versionTooLarge, .tooManyFiles: .contentTooLarge
        case .storageFull: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        case .rangeNotSatisfiable: .rangeNotSatisfiable
        case .entitlementsUnavailable: .serviceUnavailable
        }
    }

    var code: String {
        switch self {
        case .productNotFound: "product_not_found"
        case .contentNotFound: "content_not_found"
        case .appUpdateRequired: "app_update_required"
        case .notEntitled: "not_entitled"
        case .revoked: "revoked"
        case .deviceLimitReached: "device_limit_reached"
        case .productNotFree: "product_not_free"
        case .uploadNotFound: "upload_not_found"
        case .uploadNotOpen: "upload_not_open"
        case .versionExists: "version_exists"
        case .invalidVersion: "invalid_version"
        case .invalidPath: "invalid_path"
        case .pathConflict: "path_conflict"
        case .fileTooLarge: "file_too_large"
        case .versionTooLarge: "version_too_large"
        case .tooManyFiles: "too_many_files"
        case .emptyUpload: "empty_upload"
        case .checksumMismatch: "checksum_mismatch"
        case .storageFull: "storage_full"
        case .invalidSignature: "invalid_signature"
        case .urlExpired: "url_expired"
        case .fileNotFound: "file_not_found"
        case .rangeNotSatisfiable: "range_not_satisfiable"
        case .entitlementsUnavailable: "entitlements_unavailable"
        case .downloadNotFound: "download_not_found"
        case .invalidDownloadReport: "invalid_download_report"
        }
    }

    var detail: String {
        switch self {
        case .productNotFound(let product): "This app's catalog has no product \(product)."
        case .contentNotFound(let product): "\(product) has no published content pack."
        case .appUpdateRequired(let product, let minimum):
            "Every content version of \(product) needs app version \(minimum) or later; update the app."
        case .notEntitled(let product): "This customer is not entitled to \(product)."
        case .revoked(let product):
            "The purchase of \(product) was refunded or revoked; its content is withdrawn. Delete it from the device."
        case .deviceLimitReached(let product, let limit):
            "The purchase of \(product) is in use on \(limit) devices, the most this app allows."
        case .productNotFree(let product): "\(product) is not free in the catalog; it must be bought."
        case .uploadNotFound(let id): "No upload \(id) for this product."
        case .uploadNotOpen(let id, let state): "Upload \(id) is \(state); start a new upload."
        case .versionExists(let product, let version):
            "Version \(version) of \(product) is already published; versions never change, upload a new one."
        case .invalidVersion(let version):
            "Version '\(version)' must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit."
        case .invalidPath(let path, let reason): "File path '\(path)' is refused: \(reason)."
        case .pathConflict(let path): "'\(path)' is both a file and a directory in this upload."
        case .fileTooLarge(let limit): "A file may hold at most \(limit) bytes."
        case .versionTooLarge(let limit): "A version may hold at most \(limit) bytes in all."
        case .tooManyFiles(let limit): "A version may hold at most \(limit) files."
        case .emptyUpload: "The upload has no files; upload at least one before publishing."
        case .checksumMismatch(let path, let expected, let actual):
            "'\(path)' arrived with SHA-256 \(actual), not the declared \(expected); it was not kept."
        case .storageFull:
            "The content storage is full; nothing was kept or published. Free space and upload again."
        case .invalidSignature: "This download URL is not valid; ask for the manifest again."
        case .urlExpired: "This download URL has expired; ask for the manifest again."
        case .fileNotFound(let path): "The pack has no file \(path)."
        case .rangeNotSatisfiable(let size): "The range lies outside the file of \(size) bytes."
        case .entitlementsUnavailable: "Ownership could not be checked right now; retry shortly."
        case .downloadNotFound(let id): "The download log has no download \(id)."
        case .invalidDownloadReport(let reason): "The download report is refused: \(reason)."
        }
    }

    var headers: HTTPFields {
        switch self {
        case .rangeNotSatisfiable(let size): [.contentRange: "bytes */\(size)"]
        case .entitlementsUnavailable, .storageFull: [.retryAfter: "2"]
        default: [:]
        }
    }
}
