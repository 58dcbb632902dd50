import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import ShopkeeperCore
import ShopkeeperModels

/// `shopkeeper content`.
struct ContentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content",
        abstract: "Upload and list content packs (secret key).",
        subcommands: [Push.self, Versions.self]
    )

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a folder as a new version of a product's pack and publish it.",
            discussion: """
                Every regular file below DIR is uploaded with its relative path (files and folders whose names \
                start with '.' are skipped). Symbolic links and other special files stop the push before anything \
                is sent. Each file is streamed with its SHA-256, so a damaged transfer is refused; the version \
                becomes visible only when every file has arrived and it is published.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The folder to upload.") var directory: String
        @Option(help: "The catalog product the pack belongs to.") var product: String
        @Option(help: "The new version's name (letters, digits, '.', '_', '-'); versions never change.")
        var version: String
        @Option(help: "The oldest app version that may use this version.") var minAppVersion: String?

        func run() async throws {
            var minimum: AppVersion?
            if let minAppVersion {
                guard let parsed = AppVersion(minAppVersion) else {
                    throw ValidationError("--min-app-version must look like 1.2.3")
                }
                minimum = parsed
            }
            let published = try await PackFolder.push(
                URL(fileURLWithPath: directory).standardizedFileURL, product: product, version: version,
                minAppVersion: minimum, client: try connection.secretClient()
            ) { print($0) }
            try printJSON(published)
        }
    }

    struct Versions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a product's published versions.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The catalog product.") var product: String

        func run() async throws {
            try printJSON(
                try await connection.secretClient().send(
                    .GET, "/v1/admin/content/\(product)", as: ContentVersionList.self))
        }
    }
}

/// Reading a pack folder: its files, their hashes, and streaming one to the gateway.
enum PackFolder {
    /// Uploads every file below `root` as version `version` of `product`'s pack and publishes it; `log` hears of
    /// each file sent.
    static func push(
        _ root: URL, product: String, version: String, minAppVersion: AppVersion?, client: GatewayAPIClient,
        log: (String) -> Void
    ) async throws -> ContentVersion {
        let files = try files(in: root)
        guard !files.isEmpty else { throw ValidationError("\(root.path) has no files to upload.") }
        let base = "/v1/admin/content/\(product)"
        let opened = try await client.send(
            .POST, "\(base)/uploads", body: CreateContentUploadRequest(version: version, minAppVersion: minAppVersion),
            as: ContentUpload.self)
        for file in files {
            let sha256 = try sha256(of: file.url)
            let query = "path=\(escape(file.path))&sha256=\(sha256)"
            let stored = try await Self.upload(
                file.url, size: file.size,
                url: client.baseURL.trimmingSuffix("/") + "\(base)/uploads/\(opened.uploadID)/files?\(query)",
                bearer: client.bearer)
            log("uploaded \(stored.path) (\(stored.size) bytes, sha256 \(stored.sha256))")
        }
        return try await client.send(
            .POST, "\(base)/uploads/\(opened.uploadID)/publish", body: [String: String](), as: ContentVersion.self)
    }

    struct File {
        var url: URL
        var path: String
        var size: Int64
    }

    /// Regular files below `root`, relative paths sorted; throws on links and special files.
    static func files(in root: URL) throws -> [File] {
        let manager = FileManager.default
        var result: [File] = []
        guard let walker = manager.enumerator(atPath: root.path) else {
            throw ValidationError("\(root.path) is not a readable folder.")
        }
        while let relative = walker.nextObject() as? String {
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            let attributes = try manager.attributesOfItem(atPath: root.appendingPathComponent(relative).path)
            switch attributes[.type] as? FileAttributeType {
            case .typeDirectory: continue
            case .typeRegular:
                let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                result.append(File(url: root.appendingPathComponent(relative), path: relative, size: size))
            case .typeSymbolicLink:
                throw ValidationError("\(relative) is a symbolic link; packs hold regular files only.")
            default:
                throw ValidationError("\(relative) is not a regular file.")
            }
        }
        return result.sorted { $0.path < $1.path }
    }

    static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return Data(hasher.finalize()).hexString
    }

    static func escape(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Streams the file as the request body (never whole in memory).
    static func upload(_ file: URL, size: Int64, url: String, bearer: String) async throws -> ContentFile {
        var request = HTTPClientRequest(url: url)
        request.method = .PUT
        request.headers.add(name: "Authorization", value: "Bearer \(bearer)")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .stream(FileChunks(url: file), length: .known(size))
        let response = try await HTTPClient.shared.execute(request, timeout: .hours(6))
        let body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        guard response.status == .ok else {
            throw GatewayAPIClient.Failure(status: response.status.code, body: String(decoding: body, as: UTF8.self))
        }
        return try JSONDecoder().decode(ContentFile.self, from: body)
    }
}

/// A file's bytes as a sequence of 1 MiB buffers, read as they are sent.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let url: URL

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        mutating func next() async throws -> ByteBuffer? {
            guard let handle, let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else {
                try handle?.close()
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: try? FileHandle(forReadingFrom: url)) }
}
