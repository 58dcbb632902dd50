import NIOCore
import ShopkeeperModels

/// Where pack files live. A directory on disk shared by replicas now (``DiskContentStorage``); object storage can
/// stand behind the same interface later.
///
/// Uploads are staged per upload id and become a version only through ``publish(upload:as:)``, which makes the
/// whole version visible at once or not at all.
protocol ContentStorage: Sendable {
    /// Streams `body` into the staging area of `upload` as `path`, replacing an earlier file of that path, and
    /// returns its size and SHA-256. Refuses more than `limit` bytes (``ContentError/fileTooLarge(limit:)``), a
    /// body that would leave less than the reserve free (``ContentError/storageFull``), and a `path` that clashes
    /// with a directory (``ContentError/pathConflict(_:)``) and bytes whose SHA-256 is not `expectedSHA256`
    /// (``ContentError/checksumMismatch(path:expected:actual:)``); nothing is kept when it throws.
    func store<Body: AsyncSequence>(
        _ body: Body, upload: String, path: ContentPath, limit: Int64, declaredLength: Int64?, expectedSHA256: String?
    ) async throws -> ContentFile where Body.Element == ByteBuffer

    /// Makes the staged files of `upload` the files of `version`, atomically. Throws
    /// ``ContentError/versionExists(product:version:)`` when the version already has files.
    func publish(upload: String, as version: PackVersion) async throws

    /// Whether `version` has its files in place.
    func contains(_ version: PackVersion) async throws -> Bool

    /// Forgets the staged files of `upload` (after a publish, or when it is aborted). Never throws.
    func discard(upload: String) async

    /// Where `path` of `version` lies relative to the storage's root, for another process that shares the volume
    /// (the gateway sends downloads from it itself: ``FileHandoff``); `nil` when the storage is not such a directory.
    func sharedPath(of version: PackVersion, path: ContentPath) -> String?

    /// Streams the bytes `range` of `path` of `version` to `write`, `chunkBytes` at a time.
    func read(
        _ version: PackVersion, path: ContentPath, range: ClosedRange<Int64>, chunkBytes: Int,
        into write: (ByteBuffer) async throws -> Void
    ) async throws
}
