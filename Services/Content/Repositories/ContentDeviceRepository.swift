import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// The devices that downloaded content, for support (which device to reset).
protocol ContentDeviceRepository: Sendable {
    /// The devices with downloads under `appUserID` (the id a reset names), most recently active first, at most
    /// ``ContentDevicePostgresRepository/limit``.
    func devices(appID: String, appUserID: String) async throws -> [ContentDevice]
}

/// ``ContentDeviceRepository`` on PostgreSQL (`content.downloads`).
struct ContentDevicePostgresRepository: ContentDeviceRepository {
    let client: PostgresClient
    let logger: Logger
    /// Most devices listed.
    static let limit = 200

    func devices(appID: String, appUserID: String) async throws -> [ContentDevice] {
        let rows = try await client.query(
            """
            SELECT device_id,
                   count(*) FILTER (WHERE reset_at IS NULL),
                   count(DISTINCT (product_id, version, path)) FILTER (WHERE reset_at IS NULL AND completed),
                   coalesce(sum(bytes_sent) FILTER (WHERE reset_at IS NULL), 0)::bigint,
                   coalesce(jsonb_agg(DISTINCT jsonb_build_object('product_id', product_id, 'version', version))
                       FILTER (WHERE reset_at IS NULL), '[]'::jsonb)::text,
                   max(started_at), max(reset_at)
            FROM content.downloads
            WHERE app_id = \(appID)::text AND app_user_id = \(appUserID)::text
            GROUP BY device_id
            ORDER BY max(started_at) DESC, device_id
            LIMIT \(Self.limit)
            """,
            logger: logger)
        var devices: [ContentDevice] = []
        let decoder = JSONDecoder()
        for try await (device, downloads, files, bytes, packs, last, reset) in rows.decode(
            (String, Int64, Int64, Int64, String, Date, Date?).self)
        {
            let decoded = (try? decoder.decode([ContentDevicePack].self, from: Data(packs.utf8))) ?? []
            devices.append(
                ContentDevice(
                    deviceID: device, downloads: Int(downloads), completedFiles: Int(files), bytesSent: bytes,
                    packs: decoded.sorted { ($0.productID, $0.version) < ($1.productID, $1.version) },
                    lastDownloadAt: last, lastResetAt: reset))
        }
        return devices
    }
}
