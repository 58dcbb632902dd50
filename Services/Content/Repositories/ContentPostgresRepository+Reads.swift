import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

extension ContentPostgresRepository {
    func versions(appID: String, productID: String) async throws -> [ContentVersion] {
        try await client.withConnection { connection in
            let rows = try await connection.checkedQuery(
                """
                SELECT version, min_app_version, published_at, total_size FROM content.versions
                WHERE app_id = \(appID)::text AND product_id = \(productID)::text AND state = 'published'
                ORDER BY sequence DESC
                """,
                logger: logger)
            var versions: [ContentVersion] = []
            for try await (version, minimum, publishedAt, total) in rows.decode((String, String?, Date, Int64).self) {
                versions.append(
                    ContentVersion(
                        productID: productID, version: version, minAppVersion: minimum.flatMap(AppVersion.init),
                        publishedAt: publishedAt, totalSize: total, files: []))
            }
            guard !versions.isEmpty else { return [] }
            let files = try await connection.checkedQuery(
                """
                SELECT version, path, size, sha256 FROM content.files
                WHERE app_id = \(appID)::text AND product_id = \(productID)::text
                ORDER BY version, path
                """,
                logger: logger)
            var byVersion: [String: [ContentFile]] = [:]
            for try await (version, path, size, sha256) in files.decode((String, String, Int64, String).self) {
                byVersion[version, default: []].append(ContentFile(path: path, size: size, sha256: sha256))
            }
            return versions.map { version in
                var version = version
                version.files = byVersion[version.version] ?? []
                return version
            }
        }
    }

    func file(_ pack: PackVersion, path: String) async throws -> ContentFile? {
        let (appID, productID, version) = (pack.appID, pack.productID, pack.version)
        let rows = try await client.executeStatement(
            FileStatement(bindings: try PostgresBindings(appID, productID, version, path)), logger: logger)
        for try await (size, sha256) in rows {
            return ContentFile(path: path, size: size, sha256: sha256)
        }
        return nil
    }

    /// The download path's one query, prepared once per connection.
    struct FileStatement: PostgresPreparedStatement {
        typealias Row = (Int64, String)
        static let name = "content_file_v1"
        static let sql = """
            SELECT f.size, f.sha256 FROM content.files f
            JOIN content.versions v USING (app_id, product_id, version)
            WHERE f.app_id = $1::text AND f.product_id = $2::text AND f.version = $3::text AND f.path = $4::text
              AND v.state = 'published'
            """
        var bindings: PostgresBindings
        func makeBindings() throws -> PostgresBindings { bindings }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    func productsWithContent(appID: String) async throws -> [String] {
        let rows = try await client.query(
            """
            SELECT DISTINCT product_id FROM content.versions
            WHERE app_id = \(appID)::text AND state = 'published' ORDER BY product_id
            """,
            logger: logger)
        var products: [String] = []
        for try await product in rows.decode(String.self) { products.append(product) }
        return products
    }

    func downloadedPaths(_ pack: PackVersion, appUserID: String, deviceID: String) async throws -> Set<String> {
        let (appID, productID, version) = (pack.appID, pack.productID, pack.version)
        let rows = try await client.query(
            """
            SELECT DISTINCT path FROM content.downloads
            WHERE app_id = \(appID)::text AND app_user_id = \(appUserID)::text AND device_id = \(deviceID)::text
              AND product_id = \(productID)::text AND version = \(version)::text AND reset_at IS NULL
              AND completed AND range_end = file_size - 1
            """,
            logger: logger)
        var paths: Set<String> = []
        for try await path in rows.decode(String.self) { paths.insert(path) }
        return paths
    }

    func startDownload(_ download: DownloadRecord) async throws -> Int64 {
        let (appID, productID, version) = (download.pack.appID, download.pack.productID, download.pack.version)
        let start: Int64 = download.range?.lowerBound ?? 0
        let end: Int64 = download.range?.upperBound ?? -1
        let path = download.path
        let user = download.appUserID
        let device = download.deviceID
        let size = download.fileSize
        let requestID = download.requestID
        let startedAt = download.startedAt
        let rows = try await client.query(
            """
            INSERT INTO content.downloads (
                app_id, app_user_id, device_id, product_id, version, path, range_start, range_end, file_size,
                bytes_sent, completed, request_id, started_at, finished_at)
            VALUES (
                \(appID)::text, \(user)::text, \(device)::text, \(productID)::text, \(version)::text, \(path)::text,
                \(start)::bigint, \(end)::bigint, \(size)::bigint, 0, false, \(requestID)::text,
                \(startedAt)::timestamptz, NULL)
            RETURNING download_id
            """,
            logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        throw DownloadLogInsertReturnedNothing()
    }

    func finishDownload(_ downloadID: Int64, bytesSent: Int64, completed: Bool) async throws -> Bool {
        // Only an unfinished entry changes (a repeated report does nothing), and never past its range.
        let rows = try await client.query(
            """
            WITH finished AS (
                UPDATE content.downloads
                SET bytes_sent = \(bytesSent)::bigint,
                    completed = \(completed)::boolean AND \(bytesSent)::bigint = range_end - range_start + 1,
                    finished_at = now()
                WHERE download_id = \(downloadID)::bigint AND finished_at IS NULL
                  AND \(bytesSent)::bigint <= range_end - range_start + 1
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM finished),
                   (SELECT range_end - range_start + 1 FROM content.downloads WHERE download_id = \(downloadID)::bigint)
            """,
            logger: logger)
        for try await (finished, length) in rows.decode((Int64, Int64?).self) {
            guard let length else { throw ContentError.downloadNotFound(downloadID) }
            guard bytesSent <= length else {
                throw ContentError.invalidDownloadReport("bytes_sent is more than the \(length) bytes of the download")
            }
            return finished == 1
        }
        throw ContentError.downloadNotFound(downloadID)
    }

    func reset(appID: String, appUserID: String, deviceID: String) async throws -> Int {
        let rows = try await client.query(
            """
            WITH forgotten AS (
                UPDATE content.downloads SET reset_at = now()
                WHERE app_id = \(appID)::text AND app_user_id = \(appUserID)::text AND device_id = \(deviceID)::text
                  AND reset_at IS NULL
                RETURNING 1
            )
            SELECT count(*) FROM forgotten
            """,
            logger: logger)
        var count: Int64 = 0
        for try await value in rows.decode(Int64.self) { count = value }
        return Int(count)
    }
}

/// An `INSERT ... RETURNING` into the download log that returned no row (never expected; rendered as a 500).
struct DownloadLogInsertReturnedNothing: Error {}
