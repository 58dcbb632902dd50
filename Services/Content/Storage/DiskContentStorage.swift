import Crypto
import Foundation
import NIOCore
import NIOPosix
import ShopkeeperCore
import ShopkeeperModels
import _NIOFileSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``ContentStorage`` in a directory (a volume shared by every replica):
///
/// ```
/// <root>/staging/<upload id>/files/<path>   files of an upload, as uploaded
/// <root>/staging/<upload id>/tmp/<random>    a file while it is being received
/// <root>/packs/<app>/<product>/<version>/    a published version: the upload's `files` directory, renamed
/// ```
///
/// A file is received into `tmp` and renamed into `files` only once complete, so a broken upload leaves no partial
/// file; publishing renames the whole `files` directory, which `rename(2)` does atomically and refuses when the
/// version's directory already has files. Staging and packs are on one volume, so both renames stay renames.
struct DiskContentStorage: ContentStorage {
    let root: FilePath
    let reserveBytes: Int64
    private let fileSystem = FileSystem.shared

    init(root: String, reserveBytes: Int64) {
        self.root = FilePath(root)
        self.reserveBytes = reserveBytes
    }

    /// Creates the root's directories; called at start so a bad directory stops the service early.
    func prepare() async throws {
        for directory in [root.appending("staging"), root.appending("packs")] {
            try await fileSystem.createDirectory(at: directory, withIntermediateDirectories: true)
        }
    }

    private func staging(_ upload: String) -> FilePath { root.appending("staging").appending(upload) }

    private func directory(of version: PackVersion) -> FilePath {
        root.pushing(Self.relativeDirectory(of: version))
    }

    /// `packs/<app>/<product>/<version>`: the version's directory relative to the root.
    private static func relativeDirectory(of version: PackVersion) -> FilePath {
        FilePath("packs").appending(version.appID).appending(version.productID).appending(version.version)
    }

    func sharedPath(of version: PackVersion, path: ContentPath) -> String? {
        Self.relativeDirectory(of: version).appending(path.value).string
    }

    func store<Body: AsyncSequence>(
        _ body: Body, upload: String, path: ContentPath, limit: Int64, declaredLength: Int64?, expectedSHA256: String?
    ) async throws -> ContentFile where Body.Element == ByteBuffer {
        if let declaredLength {
            guard declaredLength <= limit else { throw ContentError.fileTooLarge(limit: limit) }
            try checkRoom(for: declaredLength)
        }
        let temporaryDirectory = staging(upload).appending("tmp")
        try await fileSystem.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
        let temporary = temporaryDirectory.appending(RandomToken.base62(length: 20))
        do {
            var hasher = SHA256()
            var size: Int64 = 0
            try await fileSystem.withFileHandle(forWritingAt: temporary, options: .newFile(replaceExisting: false)) {
                handle in
                try await handle.withBufferedWriter(capacity: .kibibytes(512)) { writer in
                    var sinceRoomCheck: Int64 = 0
                    for try await buffer in body {
                        size += Int64(buffer.readableBytes)
                        sinceRoomCheck += Int64(buffer.readableBytes)
                        guard size <= limit else { throw ContentError.fileTooLarge(limit: limit) }
                        if declaredLength == nil, sinceRoomCheck >= 64 << 20 {
                            // A body of unknown length is checked against the reserve as it grows.
                            try checkRoom(for: sinceRoomCheck)
                            sinceRoomCheck = 0
                        }
                        buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                        _ = try await writer.write(contentsOf: buffer)
                    }
                }
            }
            let sha256 = Data(hasher.finalize()).hexString
            if let expectedSHA256, expectedSHA256 != sha256 {
                throw ContentError.checksumMismatch(path: path.value, expected: expectedSHA256, actual: sha256)
            }
            let destination = staging(upload).appending("files").appending(path.value)
            try await createDirectories(destination.removingLastComponent(), path: path)
            try await rename(temporary, to: destination, path: path)
            return ContentFile(path: path.value, size: size, sha256: sha256)
        } catch {
            _ = try? await fileSystem.removeItem(at: temporary, strategy: .platformDefault, recursively: false)
            throw Self.mapped(error)
        }
    }

    func publish(upload: String, as version: PackVersion) async throws {
        let target = directory(of: version)
        try await fileSystem.createDirectory(at: target.removingLastComponent(), withIntermediateDirectories: true)
        let source = staging(upload).appending("files")
        let result = try await NIOThreadPool.singleton.runIfActive {
            systemRename(source.string, target.string)
        }
        switch result {
        case 0: return
        case ENOTEMPTY, EEXIST: throw ContentError.versionExists(product: version.productID, version: version.version)
        case ENOSPC: throw ContentError.storageFull
        case ENOENT: throw ContentError.emptyUpload
        default: throw StorageFailure(operation: "publish", code: result)
        }
    }

    func contains(_ version: PackVersion) async throws -> Bool {
        try await fileSystem.info(forFileAt: directory(of: version), infoAboutSymbolicLink: true)?.type == .directory
    }

    func discard(upload: String) async {
        _ = try? await fileSystem.removeItem(at: staging(upload), strategy: .platformDefault, recursively: true)
    }

    func read(
        _ version: PackVersion, path: ContentPath, range: ClosedRange<Int64>, chunkBytes: Int,
        into write: (ByteBuffer) async throws -> Void
    ) async throws {
        let file = directory(of: version).appending(path.value)
        // Links are never followed: a pack holds regular files only.
        try await fileSystem.withFileHandle(forReadingAt: file, options: .init(followSymbolicLinks: false)) { handle in
            // One chunk at a time, each read only after the previous one was handed to the connection (which waits
            // while the client is slow): `readChunks` would read up to eight chunks ahead per download.
            var offset = range.lowerBound
            while offset <= range.upperBound {
                let length = min(Int64(chunkBytes), range.upperBound - offset + 1)
                let chunk = try await handle.readChunk(fromAbsoluteOffset: offset, length: .bytes(length))
                guard chunk.readableBytes > 0 else { throw StorageFailure(operation: "read (file shrank)", code: 0) }
                offset += Int64(chunk.readableBytes)
                try await write(chunk)
            }
        }
    }

    /// Free bytes on the storage volume, or `nil` when the system cannot tell.
    func freeBytes() -> Int64? {
        var stats = statvfs()
        guard statvfs(root.string, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    private func checkRoom(for bytes: Int64) throws(ContentError) {
        if let free = freeBytes(), free - bytes < reserveBytes { throw .storageFull }
    }

    private func createDirectories(_ directory: FilePath, path: ContentPath) async throws {
        do {
            try await fileSystem.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch let error as FileSystemError where error.code == .fileAlreadyExists || error.code == .invalidArgument {
            throw ContentError.pathConflict(path.value)
        }
        guard try await fileSystem.info(forFileAt: directory, infoAboutSymbolicLink: true)?.type == .directory else {
            throw ContentError.pathConflict(path.value)
        }
    }

    private func rename(_ source: FilePath, to destination: FilePath, path: ContentPath) async throws {
        let result = try await NIOThreadPool.singleton.runIfActive {
            systemRename(source.string, destination.string)
        }
        switch result {
        case 0: return
        case EISDIR, ENOTDIR, ENOTEMPTY, EEXIST: throw ContentError.pathConflict(path.value)
        case ENOSPC: throw ContentError.storageFull
        default: throw StorageFailure(operation: "rename", code: result)
        }
    }

    /// `ENOSPC` anywhere in a file system error is a full disk.
    static func mapped(_ error: any Error) -> any Error {
        if let error = error as? FileSystemError {
            if let cause = error.cause as? FileSystemError.SystemCallError, cause.errno == .noSpace {
                return ContentError.storageFull
            }
            if let cause = error.cause as? FileSystemError { return mapped(cause) }
            if error.code == .resourceExhausted { return ContentError.storageFull }
        }
        return error
    }
}

/// `rename(2)`: 0, or the `errno` it failed with.
private func systemRename(_ source: String, _ destination: String) -> Int32 {
    #if canImport(Glibc)
        Glibc.rename(source, destination) == 0 ? 0 : errno
    #else
        Darwin.rename(source, destination) == 0 ? 0 : errno
    #endif
}

/// A storage operation failed for a reason other than the request (permissions, I/O): a 500, logged.
struct StorageFailure: Error, CustomStringConvertible {
    var operation: String
    var code: Int32
    var description: String { "\(operation) failed with errno \(code)" }
}
