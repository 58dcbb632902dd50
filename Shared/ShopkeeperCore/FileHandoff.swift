/// A download the content service leaves to the gateway to send from the shared content volume (the way nginx's
/// `X-Accel-Redirect` works): the gateway reads the file itself with `sendfile(2)` instead of relaying every byte
/// through a second process, then reports how it went with ``DownloadFinishReport``.
///
/// The gateway asks for it per request with ``InternalHeader/fileDelivery``; the service answers with the response
/// head the client will see, an empty body, and these headers, which the gateway strips before the head leaves it.
package struct FileHandoff: Sendable, Equatable {
    /// The file, relative to the content volume's root (`packs/<app>/<product>/<version>/<path>`).
    package var path: String
    /// The bytes to send.
    package var range: ClosedRange<Int64>
    /// The size the file must have: a volume that holds something else is noticed before a byte goes out.
    package var fileSize: Int64
    /// The download log entry to finish (``DownloadFinishReport``).
    package var downloadID: Int64

    /// Request header: the gateway can send a file from the volume (`sendfile`).
    package static let deliveryValue = "sendfile"
    package static let pathHeader = "x-shopkeeper-file"
    package static let rangeHeader = "x-shopkeeper-file-range"
    package static let sizeHeader = "x-shopkeeper-file-size"
    package static let downloadIDHeader = "x-shopkeeper-download-id"

    package init(path: String, range: ClosedRange<Int64>, fileSize: Int64, downloadID: Int64) {
        self.path = path
        self.range = range
        self.fileSize = fileSize
        self.downloadID = downloadID
    }

    /// The headers that carry this hand-off.
    package var headers: [(String, String)] {
        [
            (Self.pathHeader, path), (Self.rangeHeader, "\(range.lowerBound)-\(range.upperBound)"),
            (Self.sizeHeader, String(fileSize)), (Self.downloadIDHeader, String(downloadID)),
        ]
    }

    /// The hand-off in a response's headers, read with `value` (lowercase names); `nil` when there is none or it is
    /// malformed: a path that is absolute or climbs out of the volume, a range outside the file.
    package init?(_ value: (String) -> String?) {
        guard let path = value(Self.pathHeader), Self.isConfined(path),
            let rangeText = value(Self.rangeHeader), let dash = rangeText.firstIndex(of: "-"),
            let start = Int64(rangeText[..<dash]), let end = Int64(rangeText[rangeText.index(after: dash)...]),
            let size = value(Self.sizeHeader).flatMap({ Int64($0) }),
            let id = value(Self.downloadIDHeader).flatMap({ Int64($0) }),
            start >= 0, start <= end, end < size
        else { return nil }
        self.init(path: path, range: start...end, fileSize: size, downloadID: id)
    }

    /// The number of bytes to send.
    package var length: Int64 { range.upperBound - range.lowerBound + 1 }

    /// Whether `path` stays inside the directory it is relative to: not absolute, no empty, `.` or `..` segment.
    package static func isConfined(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0 != "." && $0 != ".."
        }
    }
}
