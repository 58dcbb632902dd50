import ShopkeeperReports

/// The daily summary behind the content report (``DailyRollup``), from the download log: per UTC day, product and
/// pack version, the file downloads (requests that sent a file's last byte), the re-downloads among them (a file its
/// customer had downloaded before, on any device, reset or not) and the bytes sent (every request, finished or not).
/// It holds today too (nothing in it changes with the time alone).
enum ReportRollups {
    /// The UTC days of the downloads changed at or above the watermark.
    static let changedDays = """
        SELECT DISTINCT content.utc_day(x.started_at)::text FROM content.downloads x
        WHERE x.app_id = $1::text AND (x.changed_tx >= $2::text::xid8 OR $3::boolean)
        """

    /// The devices (customer and device) with a file download, per day and version.
    static let devices = DailyRollup(
        name: "download_devices", table: "content.report_download_devices", watermarks: "content.report_rollups",
        changedDays: changedDays,
        select: """
            SELECT DISTINCT $1::text, d.day, x.product_id, x.version, x.app_user_id, x.device_id
            FROM unnest($2::text[]::date[]) AS d(day)
            CROSS JOIN LATERAL (
                SELECT x.product_id, x.version, x.app_user_id, x.device_id FROM content.downloads x
                WHERE x.app_id = $1::text AND x.started_at >= content.utc_start(d.day)
                  AND x.started_at < content.utc_start(d.day + 1) AND x.completed AND x.range_end = x.file_size - 1
                OFFSET 0
            ) x
            """)

    static let downloads = DailyRollup(
        name: "downloads", table: "content.report_download_days", watermarks: "content.report_rollups",
        changedDays: changedDays,
        select: """
            SELECT $1::text, d.day, x.product_id, x.version,
                   count(*) FILTER (WHERE x.file), count(*) FILTER (WHERE x.again), coalesce(sum(x.bytes_sent), 0)
            FROM unnest($2::text[]::date[]) AS d(day)
            CROSS JOIN LATERAL (
                SELECT x.product_id, x.version, x.bytes_sent,
                       x.completed AND x.range_end = x.file_size - 1 AS file,
                       x.completed AND x.range_end = x.file_size - 1 AND EXISTS (
                           SELECT 1 FROM content.downloads e
                           WHERE e.app_id = x.app_id AND e.app_user_id = x.app_user_id
                             AND e.product_id = x.product_id AND e.version = x.version AND e.path = x.path
                             AND e.download_id < x.download_id AND e.completed AND e.range_end = e.file_size - 1
                       ) AS again
                FROM content.downloads x
                WHERE x.app_id = $1::text AND x.started_at >= content.utc_start(d.day)
                  AND x.started_at < content.utc_start(d.day + 1)
                OFFSET 0
            ) x
            GROUP BY d.day, x.product_id, x.version
            """)
}
