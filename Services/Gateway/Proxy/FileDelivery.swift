import NIOCore
import NIOPosix
import ShopkeeperCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Downloads the content service hands to the gateway (``FileHandoff``): the gateway opens the file on the content
/// volume it shares with the service and sends it with `sendfile(2)`, so the bytes cross no second process and
/// are never copied into this one. Each download's outcome goes back to the service through ``reporter``.
struct FileDelivery: Sendable {
    /// The content volume's root, as this process sees it (`SHOPKEEPER_CONTENT_DIR`).
    let root: String
    let reporter: DownloadReporter
    /// A file goes out in parts of this size: each part's completion counts the bytes sent for the report.
    static let partBytes = 4 << 20

    /// Opens the file of `handoff` on the thread pool, without following a link, and checks that it has the size the
    /// service expects (a volume that holds something else fails here, before a byte goes out).
    func open(_ handoff: FileHandoff, on eventLoop: any EventLoop) -> EventLoopFuture<NIOFileHandle> {
        let path = root.hasSuffix("/") ? root + handoff.path : root + "/" + handoff.path
        return NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
            let handle = try NIOFileHandle(
                _deprecatedPath: path, mode: .read, flags: .posix(flags: O_NOFOLLOW, mode: 0))
            do {
                let size = try FileRegion(fileHandle: handle).endIndex
                guard Int64(size) == handoff.fileSize else {
                    throw FileHandoffMismatch(path: handoff.path, expected: handoff.fileSize, found: Int64(size))
                }
                return handle
            } catch {
                try? handle.close()
                throw error
            }
        }
    }

    /// The parts `range` goes out in, in order.
    static func parts(of range: ClosedRange<Int64>, handle: NIOFileHandle) -> [FileRegion] {
        stride(from: range.lowerBound, through: range.upperBound, by: partBytes).map { start in
            FileRegion(
                fileHandle: handle, readerIndex: Int(start),
                endIndex: Int(min(start + Int64(partBytes), range.upperBound + 1)))
        }
    }
}

/// The file a hand-off names is not the file the content service described: another size on this volume.
struct FileHandoffMismatch: Error, CustomStringConvertible {
    var path: String
    var expected: Int64
    var found: Int64
    var description: String {
        "\(path) has \(found) bytes on the gateway's SHOPKEEPER_CONTENT_DIR, the content service says \(expected): "
            + "is it the content service's volume?"
    }
}
