import Crypto
import Foundation
import HTTPTypes
import NIOCore

/// The console's static files: every servable file of one folder, read into memory with its content type and
/// `ETag`.
///
/// Only what the folder held when it was read is ever answered: a request names an entry of this table, never a path
/// on disk, so `..`, `%2e%2e`, absolute paths and symbolic links planted later reach nothing. Hidden files and
/// extensions without a known content type are left out. Links inside the folder are followed when it is read (a
/// JavaScript library installed by the system's packages may be linked in), to a bounded depth.
struct ConsoleFiles: Sendable {
    /// One file as it is served.
    struct File: Sendable {
        var body: ByteBuffer
        var contentType: String
        /// A strong validator: the start of the SHA-256 of the bytes.
        var etag: String
    }

    /// Files by their path below `/console/` (`index.html`, `js/app.js`).
    let files: [String: File]

    /// Content types by extension; other files are not served.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        // ES modules are served as JavaScript (`text/javascript`, RFC 9239): browsers refuse modules of other types.
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "json": "application/json",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/vnd.microsoft.icon",
        "woff2": "font/woff2",
        "txt": "text/plain; charset=utf-8",
    ]

    /// Most files, most bytes in all, deepest folder: a folder past these is refused at start.
    static let maximumFiles = 2000
    static let maximumBytes = 64 << 20
    static let maximumDepth = 8

    /// Reads every servable file below `directory`.
    static func load(from directory: String) throws(ConsoleFilesError) -> ConsoleFiles {
        var files: [String: File] = [:]
        var total = 0
        try collect(directory: directory, prefix: "", depth: 0, into: &files, total: &total)
        guard files["index.html"] != nil else { throw .invalid("\(directory) has no index.html") }
        return ConsoleFiles(files: files)
    }

    private static func collect(
        directory: String, prefix: String, depth: Int, into files: inout [String: File], total: inout Int
    ) throws(ConsoleFilesError) {
        guard depth <= maximumDepth else { throw .invalid("\(directory) lies deeper than \(maximumDepth) folders") }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw .invalid("cannot list \(directory): \(error)")
        }
        for name in names where !name.hasPrefix(".") {
            let path = directory + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                try collect(directory: path, prefix: prefix + name + "/", depth: depth + 1, into: &files, total: &total)
                continue
            }
            let fileExtension = (name as NSString).pathExtension.lowercased()
            guard let contentType = contentTypes[fileExtension] else { continue }
            guard let data = FileManager.default.contents(atPath: path) else { throw .invalid("cannot read \(path)") }
            total += data.count
            guard files.count < maximumFiles, total <= maximumBytes else {
                throw .invalid("more than \(maximumFiles) files or \(maximumBytes) bytes")
            }
            let digest = SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined()
            files[prefix + name] = File(
                body: ByteBuffer(bytes: data), contentType: contentType, etag: "\"\(digest)\"")
        }
    }

    /// The file a request path names: `/console` and `/console/` are `index.html`; `nil` for anything else that is
    /// not in the table (a path that does not decode, holds `..`, a backslash or a NUL never is).
    func file(forPath path: String) -> File? {
        guard let relative = Self.relativePath(path) else { return nil }
        return files[relative]
    }

    /// The table key of a request path below `/console`, percent-decoded; `nil` when it cannot be one.
    static func relativePath(_ path: String) -> String? {
        guard path == "/console" || path.hasPrefix("/console/") else { return nil }
        guard let decoded = String(path.dropFirst("/console".count)).removingPercentEncoding else { return nil }
        let relative = decoded.drop { $0 == "/" }
        if relative.isEmpty { return "index.html" }
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard
            !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.hasPrefix(".") }),
            !relative.contains("\\"), !relative.contains("\0")
        else { return nil }
        return String(relative)
    }
}

/// The console folder cannot be served.
struct ConsoleFilesError: Error, CustomStringConvertible {
    var description: String

    static func invalid(_ description: String) -> ConsoleFilesError { ConsoleFilesError(description: description) }
}
