import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// ``ContentRepository`` on PostgreSQL: uploads and publishing. Reads and the download log are in
/// `ContentPostgresRepository+Reads.swift`.
struct ContentPostgresRepository: ContentRepository {
    let client: PostgresClient
    var logger: Logger

    func catalogProduct(appID: String, productID: String) async throws -> CatalogContentProduct? {
        let rows = try await client.query(
            "SELECT free FROM catalog.products_v1 WHERE app_id = \(appID)::text AND product_id = \(productID)::text",
            logger: logger)
        for try await free in rows.decode(Bool.self) {
            return CatalogContentProduct(productID: productID, free: free)
        }
        return nil
    }

    func createUpload(appID: String, productID: String, request: CreateContentUploadRequest) async throws
        -> ContentUpload
    {
        let uploadID = RandomToken.identifier(prefix: "upl", length: 24)
        let minimum: String? = request.minAppVersion?.description
        let version = request.version
        let rows = try await client.query(
            """
            INSERT INTO content.uploads (upload_id, app_id, product_id, version, min_app_version)
            SELECT \(uploadID)::text, \(appID)::text, \(productID)::text, \(version)::text, \(minimum)::text
            WHERE NOT EXISTS (
                SELECT 1 FROM content.versions
                WHERE app_id = \(appID)::text AND product_id = \(productID)::text AND version = \(version)::text)
            RETURNING created_at
            """,
            logger: logger)
        for try await createdAt in rows.decode(Date.self) {
            return ContentUpload(
                uploadID: uploadID, productID: productID, version: request.version,
                minAppVersion: request.minAppVersion, state: "open", files: [], createdAt: createdAt)
        }
        throw ContentError.versionExists(product: productID, version: request.version)
    }

    func upload(appID: String, productID: String, uploadID: String) async throws -> ContentUpload {
        try await client.withConnection { connection in
            try await Self.upload(
                appID: appID, productID: productID, uploadID: uploadID, lock: false, on: connection, logger: logger)
        }
    }

    /// The upload and its files, optionally locking the upload's row. An aborted upload is gone: `upload_not_found`.
    static func upload(
        appID: String, productID: String, uploadID: String, lock: Bool, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> ContentUpload {
        let rows = try await connection.checkedQuery(
            lock
                ? """
                SELECT version, min_app_version, state, created_at FROM content.uploads
                WHERE upload_id = \(uploadID)::text AND app_id = \(appID)::text AND product_id = \(productID)::text
                    AND state <> 'aborted'
                FOR UPDATE
                """
                : """
                SELECT version, min_app_version, state, created_at FROM content.uploads
                WHERE upload_id = \(uploadID)::text AND app_id = \(appID)::text AND product_id = \(productID)::text
                    AND state <> 'aborted'
                """,
            logger: logger)
        var found: ContentUpload?
        for try await (version, minimum, state, createdAt) in rows.decode((String, String?, String, Date).self) {
            found = ContentUpload(
                uploadID: uploadID, productID: productID, version: version,
                minAppVersion: minimum.flatMap(AppVersion.init),
                state: state, files: [], createdAt: createdAt)
        }
        guard var upload = found else { throw ContentError.uploadNotFound(uploadID) }
        let files = try await connection.checkedQuery(
            "SELECT path, size, sha256 FROM content.upload_files WHERE upload_id = \(uploadID)::text ORDER BY path",
            logger: logger)
        for try await (path, size, sha256) in files.decode((String, Int64, String).self) {
            upload.files.append(ContentFile(path: path, size: size, sha256: sha256))
        }
        return upload
    }

    func addFile(_ file: ContentFile, appID: String, productID: String, uploadID: String) async throws {
        try await client.transaction(logger: logger) { connection in
            let upload = try await Self.upload(
                appID: appID, productID: productID, uploadID: uploadID, lock: true, on: connection, logger: logger)
            guard upload.state == "open" else { throw ContentError.uploadNotOpen(id: uploadID, state: upload.state) }
            try await connection.run(
                """
                INSERT INTO content.upload_files (upload_id, path, size, sha256)
                VALUES (\(uploadID)::text, \(file.path)::text, \(file.size)::bigint, \(file.sha256)::text)
                ON CONFLICT (upload_id, path) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256
                """,
                logger: logger)
        }
    }

    func abort(appID: String, productID: String, uploadID: String) async throws -> ContentUpload {
        try await client.transaction(logger: logger) { connection in
            var upload = try await Self.upload(
                appID: appID, productID: productID, uploadID: uploadID, lock: true, on: connection, logger: logger)
            guard upload.state == "open" else { throw ContentError.uploadNotOpen(id: uploadID, state: upload.state) }
            try await connection.run(
                "UPDATE content.uploads SET state = 'aborted', updated_at = now() WHERE upload_id = \(uploadID)::text",
                logger: logger)
            upload.state = "aborted"
            return upload
        }
    }

    func beginPublish(appID: String, productID: String, uploadID: String, limits: ContentLimits) async throws
        -> ContentUpload
    {
        try await client.transaction(logger: logger) { connection in
            var upload = try await Self.upload(
                appID: appID, productID: productID, uploadID: uploadID, lock: true, on: connection, logger: logger)
            guard upload.state == "open" || upload.state == "publishing" else {
                throw ContentError.uploadNotOpen(id: uploadID, state: upload.state)
            }
            guard !upload.files.isEmpty else { throw ContentError.emptyUpload }
            guard upload.files.count <= limits.maxFiles else { throw ContentError.tooManyFiles(limit: limits.maxFiles) }
            let total = upload.files.reduce(Int64(0)) { $0 + $1.size }
            guard total <= limits.maxVersionBytes else {
                throw ContentError.versionTooLarge(limit: limits.maxVersionBytes)
            }
            let minimum: String? = upload.minAppVersion?.description
            let count = upload.files.count
            let version = upload.version
            // The primary key decides between two uploads of one version; the same upload may claim it again.
            let claimed = try await connection.checkedQuery(
                """
                INSERT INTO content.versions (
                    app_id, product_id, version, upload_id, min_app_version, state, total_size, file_count)
                VALUES (
                    \(appID)::text, \(productID)::text, \(version)::text, \(uploadID)::text, \(minimum)::text,
                    'publishing', \(total)::bigint, \(count)::integer)
                ON CONFLICT (app_id, product_id, version) DO UPDATE SET total_size = excluded.total_size
                WHERE content.versions.upload_id = excluded.upload_id AND content.versions.state = 'publishing'
                RETURNING 1
                """,
                logger: logger)
            var won = false
            for try await _ in claimed.decode(Int.self) { won = true }
            guard won else { throw ContentError.versionExists(product: productID, version: upload.version) }
            try await connection.run(
                "UPDATE content.uploads SET state = 'publishing', updated_at = now() WHERE upload_id = \(uploadID)::text",
                logger: logger)
            upload.state = "publishing"
            return upload
        }
    }

    func abandonPublish(_ upload: ContentUpload, appID: String) async {
        do {
            try await client.transaction(logger: logger) { connection in
                let uploadID = upload.uploadID
                try await connection.run(
                    """
                    DELETE FROM content.versions
                    WHERE upload_id = \(uploadID)::text AND app_id = \(appID)::text AND state = 'publishing'
                    """,
                    logger: logger)
                try await connection.run(
                    "UPDATE content.uploads SET state = 'open', updated_at = now() WHERE upload_id = \(uploadID)::text",
                    logger: logger)
            }
        } catch {
            logger.error(
                "releasing a version claim failed", metadata: ["upload_id": "\(upload.uploadID)", "error": "\(error)"])
        }
    }

    func finishPublish(_ upload: ContentUpload, appID: String) async throws -> ContentVersion {
        try await client.transaction(logger: logger) { connection in
            let uploadID = upload.uploadID
            try await connection.run(
                """
                INSERT INTO content.files (app_id, product_id, version, path, size, sha256)
                SELECT v.app_id, v.product_id, v.version, f.path, f.size, f.sha256
                FROM content.versions v JOIN content.upload_files f ON f.upload_id = v.upload_id
                WHERE v.upload_id = \(uploadID)::text AND v.state = 'publishing'
                ON CONFLICT DO NOTHING
                """,
                logger: logger)
            let rows = try await connection.checkedQuery(
                """
                UPDATE content.versions SET state = 'published', published_at = now()
                WHERE upload_id = \(uploadID)::text AND app_id = \(appID)::text AND state = 'publishing'
                RETURNING published_at, total_size
                """,
                logger: logger)
            var published: (Date, Int64)?
            for try await row in rows.decode((Date, Int64).self) { published = row }
            guard let (publishedAt, total) = published else {
                throw ContentError.uploadNotOpen(id: uploadID, state: "published")
            }
            try await connection.run(
                "UPDATE content.uploads SET state = 'published', updated_at = now() WHERE upload_id = \(uploadID)::text",
                logger: logger)
            return ContentVersion(
                productID: upload.productID, version: upload.version, minAppVersion: upload.minAppVersion,
                publishedAt: publishedAt, totalSize: total, files: upload.files)
        }
    }
}
